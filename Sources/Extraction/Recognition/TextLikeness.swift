/// The cheap test before recognition: does a picture look like it holds text? Photos without
/// text are most pictures, and recognising one costs a second or more for nothing.
///
/// Text is made of thin strokes: along a row, a strong edge one way (light to dark) is followed
/// within a few pixels by a strong edge the other way (dark to light), or the reverse for light
/// text on a dark bar. In text most strong edges pair up like that; in a photo (faces, foliage,
/// a sky's gradient) fewer do, or there are no strong edges at all. The test measures, on a
/// grayscale copy shrunk to fit 600 pixels, the share of strong edges (a step of more than 40
/// grey levels) closed by an edge the other way within 6 pixels, and how many there are.
///
/// Measured (issue 28, this code on a copy fitting 600 px): generated scan 0.93, generated
/// screenshot 0.84 (its panels' borders left out: see `init`), an image-only page 0.93, a documentation screenshot 0.89, a chart with
/// labels 0.71; photos: a phone photo 0.39, a portrait 0.54, a circuit board with printed
/// labels 0.64 (Tesseract reads 88 characters from it at confidence 44), ImageMagick `plasma:`
/// pictures and a noisy gradient 0 (no strong edge at all). Histogram features (the share of
/// the few most common grey levels), tried first in a prototype, put the portrait (0.74) near
/// a scan (0.92) and would miss a photographed page's uneven light. So a picture is taken as
/// text when at least 68% of its strong edges pair into strokes and there is at least one
/// stroke per 2,000 pixels.
///
/// Cost: two passes over at most 600×600 bytes after the shrinking (20–200 ms in a debug build,
/// a few ms optimised); decoding the picture costs more, and recognition seconds.
struct TextLikeness: Equatable {
    /// Strong edges followed by the other way's within `strokeWidth` pixels, of all strong
    /// edges (0 when there are none).
    var pairedShare: Double
    /// Such paired edges, per pixel.
    var strokeShare: Double

    static let side = 600
    static let step = 40
    static let strokeWidth = 6
    static let minimumPairedShare = 0.68
    static let minimumStrokeShare = 0.0005
    /// An edge that goes on, the same way, down this many rows or more is a line of the layout
    /// (a panel's border, a window's side, a table's rule), not a letter's stem: at 600 pixels a
    /// stem is at most about a line of text high.
    static let longestStem = 25

    var looksLikeText: Bool { pairedShare >= Self.minimumPairedShare && strokeShare >= Self.minimumStrokeShare }

    /// The sides tried after `side`, each half the one before: large type (a banner, a slide's
    /// title, a poster, a logo) has stems wider than `strokeWidth` and taller than `longestStem`
    /// at 600 pixels, so its edges did not pair and its stems were taken for layout lines. "ZEBRA
    /// QUOKKA" in black 48-point letters on a 600×120 banner scored as a photo; the same picture
    /// shrunk to 300 pixels has the stems of 24-point text, which passes. Halving keeps each
    /// size of type within the measure's range at one of the scales; a photo has no such scale
    /// (plasma and noise still have no strong edge, the corpus's photos still stop).
    static let smallerSides = [300, 150]

    /// The measure at 600 pixels, else at the first smaller side where the picture looks like
    /// text; when none does, the scale at which the most edges paired (for the skip's reason).
    static func of(_ image: GrayImage) -> TextLikeness {
        var best = TextLikeness(image, fit: side)
        if best.looksLikeText { return best }
        for fit in smallerSides where min(image.width, image.height) * fit / max(1, max(image.width, image.height)) >= 24 {
            let measured = TextLikeness(image, fit: fit)
            if measured.looksLikeText { return measured }
            if measured.pairedShare > best.pairedShare { best = measured }
        }
        return best
    }

    /// Measures `image` (shrunk first when larger than `side`).
    ///
    /// Edges that run down `longestStem` rows or more are left out of both counts. A screenshot
    /// is mostly empty panels: each row crossing a panel has its two unpaired borders, and a
    /// generated 1600×1000 settings window with two lines of text scored 0.59 with them (a
    /// photo, by the threshold), 0.94 without. A photo's long edges (a horizon seen sideways, a
    /// trunk) are unpaired too, so leaving them out does not move photos towards text: the phone
    /// photo stays at 0.38.
    init(_ image: GrayImage) {
        self.init(image, fit: Self.side)
    }

    /// The measure on `image` shrunk to fit `fit` pixels.
    init(_ image: GrayImage, fit: Int) {
        let small = image.shrunk(toFit: fit)
        let w = small.width, h = small.height
        let cols = max(0, w - 1)
        // Steps of every row: +1 a strong rise, -1 a strong fall, 0 neither.
        var steps = [Int8](repeating: 0, count: cols * h)
        small.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                let row = y * w, out = y * cols
                for x in 0..<cols {
                    let d = Int(p[row + x + 1]) - Int(p[row + x])
                    steps[out + x] = d > Self.step ? 1 : d < -Self.step ? -1 : 0
                }
            }
        }
        // Layout lines out: runs of the same step down a column, `longestStem` rows or longer.
        for x in 0..<cols {
            var y = 0
            while y < h {
                let v = steps[y * cols + x]
                guard v != 0 else { y += 1; continue }
                var end = y + 1
                while end < h, steps[end * cols + x] == v { end += 1 }
                if end - y >= Self.longestStem {
                    for r in y..<end { steps[r * cols + x] = 0 }
                }
                y = end
            }
        }
        var edges = 0, paired = 0
        for y in 0..<h {
            let out = y * cols
            for x in 0..<cols where steps[out + x] != 0 {
                edges += 1
                // The closing edge of a stroke: the other way, within `strokeWidth`.
                var k = 1
                while k <= Self.strokeWidth, x + k < cols {
                    if steps[out + x + k] == -steps[out + x] { paired += 1; break }
                    k += 1
                }
            }
        }
        pairedShare = edges == 0 ? 0 : Double(paired) / Double(edges)
        strokeShare = w * h == 0 ? 0 : Double(paired) / Double(w * h)
    }
}

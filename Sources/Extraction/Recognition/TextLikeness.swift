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
/// screenshot 0.84, an image-only page 0.93, a documentation screenshot 0.89, a chart with
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

    var looksLikeText: Bool { pairedShare >= Self.minimumPairedShare && strokeShare >= Self.minimumStrokeShare }

    /// Measures `image` (shrunk first when larger than `side`).
    init(_ image: GrayImage) {
        let small = image.shrunk(toFit: Self.side)
        let w = small.width, h = small.height
        var edges = 0, paired = 0
        // Steps of the row: +1 a strong rise, -1 a strong fall, 0 neither.
        var steps = [Int8](repeating: 0, count: max(0, w - 1))
        small.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                let row = y * w
                for x in 0..<(w - 1) {
                    let d = Int(p[row + x + 1]) - Int(p[row + x])
                    steps[x] = d > Self.step ? 1 : d < -Self.step ? -1 : 0
                }
                for x in 0..<steps.count where steps[x] != 0 {
                    edges += 1
                    // The closing edge of a stroke: the other way, within `strokeWidth`.
                    var k = 1
                    while k <= Self.strokeWidth, x + k < steps.count {
                        if steps[x + k] == -steps[x] { paired += 1; break }
                        k += 1
                    }
                }
            }
        }
        pairedShare = edges == 0 ? 0 : Double(paired) / Double(edges)
        strokeShare = w * h == 0 ? 0 : Double(paired) / Double(w * h)
    }
}

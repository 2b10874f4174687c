/// The cheap test before recognition: does a picture look like it holds text? Photos without
/// text are most pictures, and recognising one costs a second or more for nothing.
///
/// Text is made of thin strokes: along a row, a strong edge one way (light to dark) is followed
/// within a few pixels by a strong edge the other way (dark to light), or the reverse for light
/// text on a dark bar. In text most strong edges pair up like that; in a photo (foliage, faces,
/// a sky's gradient) few do, or there are no strong edges at all. The test measures, on a
/// grayscale copy shrunk to fit 600 pixels, the share of strong edges (a step of more than 40
/// grey levels) that belong to such a stroke (its closing edge within 6 pixels), and how many
/// stroke pixels there are.
///
/// Measured (issue 28, on a copy fitting 600 px): generated scan 0.92, generated screenshot 0.89,
/// a documentation screenshot 0.88, a chart with labels 0.68; photos: a phone photo 0.40, a
/// circuit board 0.50, a portrait 0.49, ImageMagick `plasma:` pictures 0 (no strong edge).
/// Histogram features (the share of the few most common grey levels) told the portrait (0.74)
/// from a scan (0.92) less well, and would miss a photographed page's uneven light. So a picture
/// is taken as text when at least 60% of its strong edges pair into strokes and strokes cover
/// at least 0.2% of it.
///
/// Cost: one pass over at most 600×600 bytes (well under a millisecond in a release build); the
/// decoding before it costs far more.
struct TextLikeness: Equatable {
    /// Strong edges that pair into strokes, of all strong edges (0 when there are none).
    var pairedShare: Double
    /// Stroke pixels, of all pixels.
    var strokeShare: Double

    static let side = 600
    static let step = 40
    static let strokeWidth = 6
    static let minimumPairedShare = 0.6
    static let minimumStrokeShare = 0.002

    var looksLikeText: Bool { pairedShare >= Self.minimumPairedShare && strokeShare >= Self.minimumStrokeShare }

    /// Measures `image` (shrunk first when larger than `side`).
    init(_ image: GrayImage) {
        let small = image.shrunk(toFit: Self.side)
        let w = small.width, h = small.height
        var edges = 0, paired = 0
        small.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                let row = y * w
                var x = 0
                while x + 1 < w {
                    let d = Int(p[row + x + 1]) - Int(p[row + x])
                    guard abs(d) > Self.step else { x += 1; continue }
                    edges += 1
                    // The closing edge of a stroke: the other way, within `strokeWidth`.
                    var k = 1
                    var closed = false
                    while k <= Self.strokeWidth, x + k + 1 < w {
                        let e = Int(p[row + x + k + 1]) - Int(p[row + x + k])
                        if abs(e) > Self.step, (e > 0) != (d > 0) { closed = true; break }
                        k += 1
                    }
                    if closed { paired += 2; edges += 1; x += k + 1 } else { x += 1 }
                }
            }
        }
        pairedShare = edges == 0 ? 0 : Double(paired) / Double(edges)
        strokeShare = w * h == 0 ? 0 : Double(paired / 2) / Double(w * h)
    }
}

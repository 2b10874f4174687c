import CGdkPixbuf
import CPoppler
import MemberwiseInit
import Glibc

/// An 8-bit grayscale picture, one byte a pixel, rows `width` bytes apart: what Tesseract reads
/// (it binarises on its own) and what `TextLikeness` measures.
@MemberwiseInit
struct GrayImage {
    var width: Int
    var height: Int
    var pixels: [UInt8]

    /// The luma (ITU-R 601 weights, integer) of a gdk-pixbuf's RGB(A) pixels; transparent
    /// pixels count as white (a screenshot's or a logo's clear background).
    init(pixbuf: OpaquePointer) {
        width = Int(gdk_pixbuf_get_width(pixbuf))
        height = Int(gdk_pixbuf_get_height(pixbuf))
        let channels = Int(gdk_pixbuf_get_n_channels(pixbuf))
        let alpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        let stride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        let source = gdk_pixbuf_read_pixels(pixbuf)!
        var out = [UInt8](repeating: 255, count: width * height)
        let (w, h) = (width, height)
        out.withUnsafeMutableBufferPointer { dst in
            for y in 0..<h {
                let row = source + y * stride
                for x in 0..<w {
                    let p = row + x * channels
                    var l = (299 * Int(p[0]) + 587 * Int(p[1]) + 114 * Int(p[2])) / 1000
                    if alpha, channels == 4 { let a = Int(p[3]); l = (l * a + 255 * (255 - a)) / 255 }
                    dst[y * w + x] = UInt8(l)
                }
            }
        }
        pixels = out
    }

    /// The luma of a cairo ARGB32 surface (native-endian words; opaque: painted white first).
    init(cairo data: UnsafeMutablePointer<UInt8>, width: Int, height: Int, stride: Int) {
        self.width = width
        self.height = height
        var out = [UInt8](repeating: 255, count: width * height)
        out.withUnsafeMutableBufferPointer { dst in
            for y in 0..<height {
                let src = UnsafeRawPointer(data + y * stride).assumingMemoryBound(to: UInt32.self)
                for x in 0..<width {
                    let p = src[x]
                    let r = Int((p >> 16) & 0xFF), g = Int((p >> 8) & 0xFF), b = Int(p & 0xFF)
                    dst[y * width + x] = UInt8((299 * r + 587 * g + 114 * b) / 1000)
                }
            }
        }
        pixels = out
    }

    /// A copy shrunk to fit `side` pixels (box-averaged), or itself when it fits already.
    func shrunk(toFit side: Int) -> GrayImage {
        let factor = (max(width, height) + side - 1) / side
        guard factor > 1 else { return self }
        let w = width / factor, h = height / factor
        guard w > 0, h > 0 else { return self }
        var out = [UInt8](repeating: 0, count: w * h)
        let area = factor * factor
        pixels.withUnsafeBufferPointer { src in
            for y in 0..<h {
                for x in 0..<w {
                    var sum = 0
                    for dy in 0..<factor {
                        let row = (y * factor + dy) * width + x * factor
                        for dx in 0..<factor { sum += Int(src[row + dx]) }
                    }
                    out[y * w + x] = UInt8(sum / area)
                }
            }
        }
        return GrayImage(width: w, height: h, pixels: out)
    }
}

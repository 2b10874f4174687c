/// The sizes of the freedesktop thumbnail cache, each a folder of
/// `$XDG_CACHE_HOME/thumbnails/`: a thumbnail fits in a square of `pixels`.
///
/// `normal` is what file managers show in their icon views, and what FSIndex makes unless asked
/// for `large` (`fsindex thumbnail --large`). The two bigger ones are only read.
package enum ThumbnailSize: String, Sendable, Hashable, CaseIterable {
    case normal
    case large
    case xLarge = "x-large"
    case xxLarge = "xx-large"

    /// The folder's name under `thumbnails/`.
    package var folder: String { rawValue }

    /// The longest side of a thumbnail of this size.
    package var pixels: Int {
        switch self {
        case .normal: 128
        case .large: 256
        case .xLarge: 512
        case .xxLarge: 1024
        }
    }
}

/// Why a donation was refused. A batch is all or nothing: any error means nothing of it was
/// written, and the message names the line (counted from 1) and what to fix.
package enum DonationError: Error, Sendable, Hashable, CustomStringConvertible {
    case badDomain(String)
    /// An item that cannot be taken: `place` is `line N` of donated text, or `item N` of a
    /// socket request's list (both counted from 1).
    case badItem(place: String, reason: String)
    case tooManyItems(limit: Int)
    /// The batch's JSON text is larger than `DonationReader.maximumBatchBytes`.
    case batchTooLarge(size: Int, limit: Int)
    case clientStateTooLarge(size: Int, limit: Int)
    /// A URL scheme an app may not declare as its own.
    case badURLScheme(String, reason: String)

    package var description: String {
        switch self {
        case .badDomain(let d):
            "domain \"\(d)\" is not usable: a domain is 1 to 64 letters, digits, '.', '_' or '-' (such as notes or org.example.mail), and not a crawled root's"
        case .badItem(let place, let reason): "\(place): \(reason); nothing of this batch was written"
        case .tooManyItems(let limit): "a batch holds at most \(limit) items; donate in several batches (each with its client state)"
        case .batchTooLarge(let size, let limit):
            "the batch is \(size) bytes of JSON; a batch holds at most \(limit) bytes (\(limit >> 20) MiB, DonationReader.maximumBatchBytes); donate in several batches (each with its client state)"
        case .clientStateTooLarge(let size, let limit): "the client state is \(size) bytes; at most \(limit)"
        case .badURLScheme(let scheme, let reason): "URL scheme \"\(scheme.prefix(40))\" cannot be an app's own: \(reason)"
        }
    }
}

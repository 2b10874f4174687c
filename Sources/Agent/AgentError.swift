/// Why a tool call cannot be answered. Every case becomes a tool error (`isError`) whose text
/// the model can act on; none is a protocol failure.
package enum AgentError: Error, Sendable, CustomStringConvertible {
    /// An argument is missing, of the wrong type or beyond its limit.
    case badArgument(name: String, reason: String)
    /// The query could not be parsed or run: fsfind's own message (a caret under the spot
    /// included).
    case query(String)
    /// The index or the query engine failed (it cannot be opened, read or asked): its error,
    /// kept, whose words (fsfind's, a caret under the spot included) the model reads.
    case failed(any Error)
    /// A path or scope outside the folders this server may show.
    case outsideScopes(path: String, scopes: [String])
    /// A path inside the scopes that the index does not hold, or that the user cannot read.
    case notAvailable(path: String, reason: String)
    /// The server's own options or settings are unusable (reported at start, never per call).
    case options(String)

    package var description: String {
        switch self {
        case .badArgument(let name, let reason): "argument `\(name)` \(reason)"
        case .query(let message): message
        case .failed(let error): "\(error)"
        case .outsideScopes(let path, let scopes):
            "\(path) is outside the folders this server searches (\(scopes.joined(separator: ", "))); use one of them or a folder inside"
        case .notAvailable(let path, let reason): "\(path): \(reason)"
        case .options(let message): message
        }
    }
}

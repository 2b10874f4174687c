import Attributes
import FoundationEssentials

/// The readable form `fsfind --explain` prints, like `mdfind -interpret`:
/// `(contentTypeTree conforms to public.image) AND (pixelWidth > 1000)`.
extension ItemPredicate: CustomStringConvertible {
    package var description: String {
        switch self {
        case .all: "every item"
        case .none: "nothing"
        case .text(let p):
            "words " + p.groups.map { g in
                g.map { "\"" + $0.tokens.joined(separator: " ") + "\"" + ($0.prefix ? "*" : "") }.joined(separator: " or ")
            }.joined(separator: " and ") + (p.column.map { " in \($0.rawValue)" } ?? " in name, title, other text attributes or text")
        case .nameContains(let s): "name contains \"\(s)\" (ignoring case)"
        case .conformsTo(let t): "contentTypeTree includes \(t.rawValue)"
        case .compare(let c): c.description
        case .inside(let f): "inside \(String(decoding: f, as: UTF8.self))"
        case .folderNamed(let n): "in a folder named \"\(n)\""
        case .identifiers(let ids): "one of \(ids.count) items"
        case .domain(let d): "in domain \(d)"
        case .and(let parts): parts.map { "(\($0))" }.joined(separator: " AND ")
        case .or(let parts): parts.map { "(\($0))" }.joined(separator: " OR ")
        case .not(let inner): "NOT (\(inner))"
        }
    }
}

extension AttributeComparison: CustomStringConvertible {
    package var description: String {
        let value: String = switch operand {
        case .text(let p): p.description
        case .number(let n): QueryCompiler.format(n)
        case .date(let d): AttributeValue.iso8601(d)
        case .bool(let b): String(b)
        }
        let name = key == .anyText ? "any text attribute" : key.rawValue
        return "\(name) \(op.rawValue) \(value)"
    }
}

import MCP

/// A tool call's arguments, read with their limits. The schemas in `tools/list` say the same,
/// but a client need not check them, so every limit is enforced here too, with a message naming
/// the argument and the limit.
struct ToolArguments {
    let values: [String: Value]
    /// The argument names this tool takes (any other is an error: a misspelt name would
    /// otherwise be ignored and the call answered as if it were not there).
    let known: Set<String>

    /// The longest string any argument may be (the query's own limit, `QueryLimits`, is the same).
    static let maximumString = 131_072
    /// The most elements any list argument may have.
    static let maximumList = 64

    init(_ values: [String: Value]?, known: Set<String>) throws(AgentError) {
        self.values = values ?? [:]
        self.known = known
        for name in self.values.keys.sorted() where !known.contains(name) {
            throw .badArgument(name: name, reason: "is not an argument of this tool; it takes \(known.sorted().joined(separator: ", "))")
        }
    }

    func string(_ name: String, required: Bool = false, maxLength: Int = maximumString) throws(AgentError) -> String? {
        guard let v = values[name], !v.isNull else {
            if required { throw .badArgument(name: name, reason: "is required") }
            return nil
        }
        guard let s = v.stringValue else { throw .badArgument(name: name, reason: "must be a string") }
        guard s.utf8.count <= maxLength else { throw .badArgument(name: name, reason: "is longer than its limit of \(maxLength) bytes") }
        return s
    }

    func integer(_ name: String, in range: ClosedRange<Int>) throws(AgentError) -> Int? {
        guard let v = values[name], !v.isNull else { return nil }
        let n: Int
        if let i = v.intValue {
            n = i
        } else if let d = v.doubleValue, d.rounded() == d, abs(d) < 1e15 {
            n = Int(d)
        } else {
            throw .badArgument(name: name, reason: "must be a whole number")
        }
        guard range.contains(n) else { throw .badArgument(name: name, reason: "must be from \(range.lowerBound) to \(range.upperBound) (it is \(n))") }
        return n
    }

    /// A whole number of at least `minimum`, with no upper limit (the caller cuts it to its cap).
    func integer(_ name: String, atLeast minimum: Int) throws(AgentError) -> Int? {
        guard let v = values[name], !v.isNull else { return nil }
        let n: Int
        if let i = v.intValue {
            n = i
        } else if let d = v.doubleValue, d.rounded() == d {
            // 1e300 is as good as any large number here.
            n = d >= 1e15 ? Int.max : d <= -1e15 ? Int.min : Int(d)
        } else {
            throw .badArgument(name: name, reason: "must be a whole number")
        }
        guard n >= minimum else { throw .badArgument(name: name, reason: "must be \(minimum) or more (it is \(n))") }
        return n
    }

    func number(_ value: Value, name: String, in range: ClosedRange<Double>) throws(AgentError) -> Double {
        let d: Double
        if let i = value.intValue { d = Double(i) } else if let x = value.doubleValue { d = x } else {
            throw .badArgument(name: name, reason: "must be a number")
        }
        guard d.isFinite, range.contains(d) else {
            throw .badArgument(name: name, reason: "must be from \(Self.format(range.lowerBound)) to \(Self.format(range.upperBound))")
        }
        return d
    }

    func strings(_ name: String, maxCount: Int = maximumList, maxLength: Int = 4096) throws(AgentError) -> [String] {
        guard let v = values[name], !v.isNull else { return [] }
        guard let array = v.arrayValue else { throw .badArgument(name: name, reason: "must be a list of strings") }
        guard array.count <= maxCount else { throw .badArgument(name: name, reason: "has more than its limit of \(maxCount) elements") }
        var result: [String] = []
        for element in array {
            guard let s = element.stringValue else { throw .badArgument(name: name, reason: "must be a list of strings") }
            guard s.utf8.count <= maxLength else { throw .badArgument(name: name, reason: "has an element longer than its limit of \(maxLength) bytes") }
            result.append(s)
        }
        return result
    }

    func objects(_ name: String, maxCount: Int) throws(AgentError) -> [[String: Value]] {
        guard let v = values[name], !v.isNull else { return [] }
        guard let array = v.arrayValue else { throw .badArgument(name: name, reason: "must be a list of objects") }
        guard array.count <= maxCount else { throw .badArgument(name: name, reason: "has more than its limit of \(maxCount) elements") }
        var result: [[String: Value]] = []
        for element in array {
            guard let o = element.objectValue else { throw .badArgument(name: name, reason: "must be a list of objects") }
            result.append(o)
        }
        return result
    }

    /// One of `choices` (the schema's enum).
    func choice(_ name: String, _ choices: [String], required: Bool = false) throws(AgentError) -> String? {
        guard let s = try string(name, required: required, maxLength: 256) else { return nil }
        guard choices.contains(s) else { throw .badArgument(name: name, reason: "must be one of \(choices.joined(separator: ", ")) (it is \"\(s)\")") }
        return s
    }

    static func format(_ d: Double) -> String {
        d.rounded() == d && abs(d) < 1e15 ? String(Int(d)) : String(d)
    }
}

import FoundationEssentials
import TOMLKit
#if canImport(Glibc)
import Glibc
#endif

/// The `[query]` table of the config file, which `fsfind` reads on its own: it links only the
/// query stage, not the crawler and its parsers, so that it starts as fast as `plocate`.
/// `fsindex` validates the same table through `Settings`, with the same rules (`apply`).
public enum QuerySettings {
    /// The user's config file: `$XDG_CONFIG_HOME/fsindex/config.toml`, else `~/.config/fsindex/config.toml`.
    public static func userConfigPath(environment: [String: String]) -> String {
        if let x = environment["XDG_CONFIG_HOME"], x.hasPrefix("/") { return x + "/fsindex/config.toml" }
        return (environment["HOME"] ?? "") + "/.config/fsindex/config.toml"
    }

    /// The ranking weights from `explicit` (which must exist) or the user's file, if any.
    public static func load(explicit: String?, environment: [String: String]) throws(QuerySettingsError) -> RankingWeights {
        let path = explicit ?? userConfigPath(environment: environment)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            if explicit != nil { throw QuerySettingsError(file: path, message: "cannot be read") }
            return RankingWeights()
        }
        let table: TOMLTable
        do { table = try TOMLTable(string: text) } catch {
            throw QuerySettingsError(file: path, message: "is not valid TOML (`fsindex status --config \(path)` shows where)")
        }
        var weights = RankingWeights()
        if let query = table["query"]?.table {
            for key in query.keys {
                if let expected = apply(key, query[key]!, to: &weights) {
                    throw QuerySettingsError(file: path, message: "query.\(key): expected \(expected)")
                }
            }
        }
        return weights
    }

    /// Sets one `[query]` key; returns what was expected when the key or value is wrong.
    public static func apply(_ key: String, _ value: any TOMLValueConvertible, to weights: inout RankingWeights) -> String? {
        let number = value.double ?? value.int.map(Double.init)
        switch key {
        case "recency_weight":
            guard let n = number, (0...10).contains(n) else { return "a number from 0 to 10" }
            weights.recency = n
        case "usage_weight":
            guard let n = number, (0...10).contains(n) else { return "a number from 0 to 10" }
            weights.usage = n
        case "decay_days":
            guard let n = number, n > 0, n <= 3650 else { return "a number of days from 1 to 3650" }
            weights.decaySeconds = n * 86400
        default:
            return "one of recency_weight, usage_weight, decay_days (unknown setting)"
        }
        return nil
    }
}

public struct QuerySettingsError: Error, Sendable, CustomStringConvertible {
    public var file: String
    public var message: String
    public var description: String { "\(file): \(message)" }
}

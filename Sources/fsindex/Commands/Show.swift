import ArgumentParser
import Attributes
import CommandSupport
import FoundationEssentials
import Indexing
import SharedIndex
import SystemPackage

extension FSIndexCommand {
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the attributes stored for one file (like mdls).",
            discussion: """
                With a shared index (--index-url, or [index] url in the settings unless
                --index-dir is given), the item is read there, as the URL's role may see it: each
                host that holds the path is shown, its name first (`host = "lab-3"`; in JSON a
                `host` field, one object per line), hosts in name order; --host NAME shows that
                host's only.

                Exit status: 0 shown, 1 the file is not in the index (or not visible to the role),
                2 error.
                """)

        @OptionGroup var store: IndexOptions

        @Option(name: .customLong("host"), help: ArgumentHelp("With the shared index: the item of this host only (default: every host that holds the path).", valueName: "name"))
        var host: String?

        @Flag(name: .long, help: "Print one JSON object (with the shared index, one per host, a line each).")
        var json = false

        @Flag(name: .long, help: "Print the whole text content instead of its first 200 characters.")
        var fullText = false

        @Argument(help: ArgumentHelp("The file.", valueName: "path"))
        var path: String

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let bytes = PathArgument.item(path)
                // As fsfind chooses: --index-url, else [index] url unless --index-dir names a local index.
                let url = store.indexURL != nil || store.indexDir == nil ? try store.sharedURL() : nil
                let items: [(host: String?, item: SearchableItem)]
                if let url {
                    let link = try PostgresLink.connect(url)
                    defer { link.close() }
                    items = try SharedIndexHosts.items(at: bytes, host: host, link).map { ($0.host, $0.item) }
                } else {
                    if host != nil { throw CommandFailure("--host chooses among the shared index's hosts: give --index-url postgresql://… or set [index] url") }
                    let s = try IndexStore(location: store.location(), readOnly: true)
                    items = try s.item(ItemIdentifier(bytes: bytes)).map { [(nil, $0)] } ?? []
                }
                guard !items.isEmpty else {
                    let which = url.map { " at \($0)" + (host.map { " for host \($0)" } ?? "") } ?? ""
                    Output.error("fsindex", "\(ByteString.escaped(bytes, escapeControls: true)) is not in the index\(which)")
                    throw ExitCode(1)
                }
                let out = Output.standardOutput
                for (n, (host, item)) in items.enumerated() {
                    if json {
                        out.write(JSONLine.render(path: bytes, attributes: item.attributes, extra: host.map { ["host": $0] } ?? [:]) + "\n")
                        continue
                    }
                    if n > 0 { out.write("\n") }
                    var attributes = item.attributes
                    attributes[.path] = .string(ByteString.escaped(bytes, escapeControls: out.isTerminal))
                    let width = max(attributes.keys.map(\.rawValue.count).max() ?? 0, host == nil ? 0 : 4)
                    // Which host the item comes from, first (the host's name is text: `Output.field`).
                    if let host { out.write("host".padding(width) + " = " + Output.field(AttributeValue.string(host).displayText) + "\n") }
                    for key in attributes.keys {
                        var value = attributes[key]!.displayText
                        if key == .textContent && !fullText && value.count > 200 { value = String(value.prefix(200)) + "…" }
                        // The path as fsfind prints paths; every other value is text (`Output.field`).
                        if key != .path { value = Output.field(value) }
                        out.write(key.rawValue.padding(width) + " = " + value + "\n")
                    }
                }
                out.flush()
            }
        }
    }
}

extension AttributeValue {
    /// How `fsindex show` and `fsindex extract` print a value, like mdls: strings quoted, lists
    /// in parentheses.
    var displayText: String {
        switch self {
        case .string(let s): "\"" + s + "\""
        case .strings(let a): "(" + a.map { "\"" + $0 + "\"" }.joined(separator: ", ") + ")"
        default: stringValue ?? ""
        }
    }
}

extension String {
    func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}

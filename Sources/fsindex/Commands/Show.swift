import ArgumentParser
import Attributes
import CommandSupport
import FoundationEssentials
import Indexing
import SystemPackage

extension FSIndexCommand {
    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show the attributes stored for one file (like mdls).",
            discussion: "Exit status: 0 shown, 1 the file is not in the index, 2 error.")

        @OptionGroup var store: IndexOptions

        @Flag(name: .long, help: "Print one JSON object.")
        var json = false

        @Flag(name: .long, help: "Print the whole text content instead of its first 200 characters.")
        var fullText = false

        @Argument(help: ArgumentHelp("The file.", valueName: "path"))
        var path: String

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let location = store.location()
                let item: SearchableItem?
                let bytes = PathArgument.item(path)
                let s = try IndexStore(location: location, readOnly: true)
                item = try s.item(ItemIdentifier(bytes: bytes))
                guard let item else {
                    Output.error("fsindex", "\(ByteString.escaped(bytes, escapeControls: true)) is not in the index")
                    throw ExitCode(1)
                }
                let out = Output.standardOutput
                if json {
                    out.write(JSONLine.render(path: bytes, attributes: item.attributes) + "\n")
                } else {
                    var attributes = item.attributes
                    attributes[.path] = .string(ByteString.escaped(bytes, escapeControls: out.isTerminal))
                    let width = attributes.keys.map(\.rawValue.count).max() ?? 0
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

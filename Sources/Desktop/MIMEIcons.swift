import Foundation
import Glibc

/// The themed icon names for a content type, as shared-mime-info lists them.
///
/// The most specific name first (`application-pdf`, from the type, or the database's `icons`
/// file), then the type's generic icon (`x-office-document`, from `generic-icons`), then the
/// generic icon of its media (`text-x-generic`, `image-x-generic`...), so an icon theme always
/// has one of them. The files are read once, from each `mime/` folder of `XDG_DATA_HOME` and
/// `XDG_DATA_DIRS`, the first folder that names a type winning, as the specification says.
package final class MIMEIcons: @unchecked Sendable {
    private var specific: [String: String] = [:]
    private var generic: [String: String] = [:]

    package init(dataDirectories: [String] = MIMEIcons.dataDirectories()) {
        for dir in dataDirectories.reversed() {
            read(dir + "/mime/generic-icons") { generic[$0] = $1 }
            read(dir + "/mime/icons") { specific[$0] = $1 }
        }
    }

    /// `XDG_DATA_HOME` (or ~/.local/share), then `XDG_DATA_DIRS` (or /usr/local/share:/usr/share).
    package static func dataDirectories() -> [String] {
        func variable(_ name: String) -> String? { getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
        let home = variable("XDG_DATA_HOME") ?? (variable("HOME").map { $0 + "/.local/share" } ?? "")
        let dirs = (variable("XDG_DATA_DIRS") ?? "/usr/local/share:/usr/share").split(separator: ":").map(String.init)
        return ([home] + dirs).filter { $0.hasPrefix("/") }
    }

    /// The icon names for `contentType` (a MIME type such as `application/pdf`), most specific
    /// first; a folder's are `folder`, an unknown type's `text-x-generic`.
    package func names(for contentType: String?) -> [String] {
        guard let type = contentType?.lowercased(), type.contains("/") else { return ["text-x-generic"] }
        if type == "inode/directory" { return ["folder"] }
        var out: [String] = []
        func add(_ name: String?) { if let name, !name.isEmpty, !out.contains(name) { out.append(name) } }
        add(specific[type])
        add(type.replacingOccurrences(of: "/", with: "-"))
        add(generic[type])
        let media = type.split(separator: "/")[0]
        switch media {
        case "image", "audio", "video", "text", "font": add("\(media)-x-generic")
        case "inode": add("inode-x-generic")
        default: add(type.hasSuffix("zip") || type.contains("archive") || type.contains("tar") ? "package-x-generic" : "text-x-generic")
        }
        return out
    }

    private func read(_ path: String, _ store: (String, String) -> Void) {
        guard let f = fopen(path, "r") else { return }
        defer { fclose(f) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, f) > 0, let line {
            let text = String(cString: line).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let colon = text.firstIndex(of: ":"), !text.hasPrefix("#") else { continue }
            store(String(text[..<colon]).lowercased(), String(text[text.index(after: colon)...]))
        }
    }
}

import Foundation

/// A `recently-used.xbel` as GTK writes it (GLib's `GBookmarkFile`, 2.66 and later): the XML
/// declaration, both namespaces, the lone `>` closing the root's start tag, percent-encoded
/// `file://` hrefs, microsecond dates, `&apos;` in `exec`, a MIME type and the applications.
package enum RecentlyUsedFixture {
    package struct Entry {
        package var path: String
        /// The bookmark's `modified` and `visited`, and its application's `modified`.
        package var visited: String
        package var applications: [(name: String, count: Int)]
        package init(path: String, visited: String, applications: [(name: String, count: Int)] = [("org.gnome.TextEditor", 1)]) {
            self.path = path
            self.visited = visited
            self.applications = applications
        }
    }

    package static func xbel(_ entries: [Entry], extra: String = "") -> String {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <xbel version="1.0"
                  xmlns:bookmark="http://www.freedesktop.org/standards/desktop-bookmarks"
                  xmlns:mime="http://www.freedesktop.org/standards/shared-mime-info"
            >

            """
        for e in entries {
            out += """
                  <bookmark href="file://\(percentEncoded(e.path))" added="2026-11-01T08:00:00.000001Z" modified="\(e.visited)" visited="\(e.visited)">
                    <info>
                      <metadata owner="http://freedesktop.org">
                        <mime:mime-type type="text/plain"/>
                        <bookmark:applications>

                """
            for app in e.applications {
                out += """
                              <bookmark:application name="\(app.name)" exec="&apos;\(app.name.split(separator: ".").last!.lowercased()) %u&apos;" modified="\(e.visited)" count="\(app.count)"/>

                    """
            }
            out += """
                        </bookmark:applications>
                      </metadata>
                    </info>
                  </bookmark>

                """
        }
        out += extra + "</xbel>"
        return out
    }

    /// GLib's `g_filename_to_uri` escaping: every byte but unreserved characters and `/` as `%XX`.
    package static func percentEncoded(_ path: String) -> String {
        var out = ""
        for b in path.utf8 {
            switch b {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.append(Character(Unicode.Scalar(b)))
            default:
                out += String(format: "%%%02X", b)
            }
        }
        return out
    }

    /// Writes `text` to `path` the way GLib does: a temporary file in the same folder, renamed
    /// over the list.
    package static func write(_ text: String, to path: String) throws {
        let temporary = path + ".TMP\(UInt32.random(in: 0...UInt32.max))"
        try Data(text.utf8).write(to: URL(fileURLWithPath: temporary))
        guard rename(temporary, path) == 0 else { throw CocoaError(.fileWriteUnknown) }
    }
}

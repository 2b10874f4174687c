import Querying
import Testing

@Suite("Folder spans and literal patterns, shared by both backends")
struct FolderSpanTests {
    @Test("a folder is itself or the byte range after its slash; trailing slashes dropped; / is everything")
    func spans() {
        let s = FolderSpan.spans([Array("/home/ada/".utf8), Array("/srv".utf8)])
        #expect(s == [FolderSpan(folder: Array("/home/ada".utf8), lower: Array("/home/ada/".utf8), upper: Array("/home/ada0".utf8)),
                      FolderSpan(folder: Array("/srv".utf8), lower: Array("/srv/".utf8), upper: Array("/srv0".utf8))])
        // '-' sorts before '/', and '0' right after it: "/home/ada-old" and "/home/ada0" are outside.
        let inside = { (path: String) in
            let p = Array(path.utf8)
            return s!.contains { span in p == span.folder || (!p.lexicographicallyPrecedes(span.lower) && p.lexicographicallyPrecedes(span.upper)) }
        }
        #expect(inside("/home/ada/notes.txt") && inside("/home/ada") && inside("/srv/x/y"))
        #expect(!inside("/home/ada-old/x") && !inside("/home/ada0") && !inside("/home/adb") && !inside("/srvx"))
        #expect(FolderSpan.spans([Array("/srv".utf8), Array("//".utf8)]) == nil)
    }

    @Test("a literal pattern matches itself only: wildcards and the backslash escaped")
    func literal() {
        #expect(TextPattern.literal(#"a*b?c\d"#) == #"a\*b\?c\\d"#)
        #expect(TextPattern.literal("plain") == "plain")
    }
}

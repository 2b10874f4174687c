@testable import Agent
import Foundation
import MCP
import Testing

@Suite("Agent: the stdio transport's lines and messages")
struct StdioLineTransportTests {
    func feed(_ splitter: inout LineSplitter, _ text: String) -> [LineSplitter.Event] {
        splitter.feed(Array(text.utf8)[...])
    }

    @Test("lines are cut wherever the reads split them; empty lines are skipped; an overlong line is counted and dropped")
    func lines() {
        var s = LineSplitter(limit: 8)
        #expect(feed(&s, "ab") == [])
        #expect(feed(&s, "c\n\nde\nf") == [.line(Data("abc".utf8)), .line(Data("de".utf8))])
        #expect(feed(&s, "0123456") == [])      // "f0123456": 8 bytes, at the limit
        #expect(feed(&s, "\nx\n") == [.line(Data("f0123456".utf8)), .line(Data("x".utf8))])
        #expect(feed(&s, "0123") == [] && feed(&s, "45678") == [])
        #expect(feed(&s, "9\nok\n") == [.tooLong(10), .line(Data("ok".utf8))])
    }

    @Test("what is not a JSON-RPC message is refused with id null, or its own id where it has one")
    func messages() {
        func refusal(_ s: String) -> MessageCheck.Refusal? { MessageCheck.refusal(of: Data(s.utf8)) }
        #expect(refusal(#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#) == nil)
        #expect(refusal(#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#) == nil)
        #expect(refusal(#"{"jsonrpc":"2.0","id":"a","result":{}}"#) == nil)
        #expect(refusal(#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#) == nil)
        #expect(refusal("{oops") == .parseError)
        #expect(refusal("[]")?.id == .null)
        #expect(refusal("7")?.id == .null)
        #expect(refusal(#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#)?.id == .null)
        #expect(refusal(#"{"jsonrpc":"2.0","id":2.5,"method":"ping"}"#)?.id == .null)
        #expect(refusal(#"{"jsonrpc":"1.0","id":3,"method":"ping"}"#)?.id == .int(3))
        #expect(refusal(#"{"jsonrpc":"2.0","id":"q"}"#)?.id == .string("q"))
        let parse = String(decoding: MessageCheck.Refusal.parseError.response, as: UTF8.self)
        #expect(parse.contains(#""id":null"#) && parse.contains("-32700"), "\(parse)")
    }

    @Test("scopes: outside as written is refused before the file system is asked; . and .. are taken as written")
    func scopes() throws {
        #expect(ScopeSet.normalized(Array("/a/./b/../../../etc//x".utf8)) == Array("/etc/x".utf8))
        #expect(ScopeSet.normalized(Array("/".utf8)) == Array("/".utf8))
        let s = ScopeSet(resolved: [Array("/usr/share/doc".utf8)])
        #expect(!s.admits(Array("/etc/passwd".utf8)) && !s.admits(Array("/usr/share/docs".utf8)))
        #expect(s.admits(Array("/usr/share/doc".utf8)) && s.admits(Array("/usr/share/doc/no/such/file".utf8)))
        #expect(try ResourceURI.path("file:///usr/share/doc/../../../etc/passwd") == Array("/etc/passwd".utf8))
        // The same answer for a folder outside that exists and one that does not.
        for outside in ["/etc", "/no/such/folder", "/usr/share/doc/../../../etc"] {
            do { _ = try s.narrowed(to: [outside]); Issue.record("\(outside) was taken") } catch {
                #expect(error.description.contains("is outside the folders"), "\(outside): \(error)")
            }
        }
    }
}

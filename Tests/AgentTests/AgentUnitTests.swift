@testable import Agent
import Foundation
import MCP
import Querying
import Testing

@Suite("Agent: guidance, scopes, URIs, arguments")
struct AgentUnitTests {
    @Test("guidance parses the three forms and refuses anything else, naming what is allowed")
    func guidance() throws {
        #expect(try Guidance.parse("complete") == .complete)
        #expect(try Guidance.parse("focused:pdf, Mail") == .focused(kinds: ["pdf", "mail"]))
        #expect(try Guidance.parse("dynamic:text,dates") == .dynamic([.text, .dates]))
        #expect(try Guidance.parse("dynamic:dates,text").description == "dynamic:dates,text")
        for bad in ["", "everything", "focused:", "focused:pdfs", "dynamic:", "dynamic:smell", "narrow:pdf"] {
            #expect(throws: AgentError.self, "\(bad)") { try Guidance.parse(bad) }
        }
        do { _ = try Guidance.parse("dynamic:smell") } catch {
            #expect(error.description.contains("text, names, dates, numbers, people, places"))
        }
    }

    @Test("scopes: whole components, narrowing within, refusing outside")
    func scopes() throws {
        let s = ScopeSet(resolved: [Array("/tmp".utf8), Array("/tmp/sub".utf8), Array("/usr/share/doc/".utf8)])
        #expect(s.folders == [Array("/tmp".utf8), Array("/usr/share/doc".utf8)])
        #expect(s.contains(Array("/tmp/x".utf8)) && s.contains(Array("/tmp".utf8)))
        #expect(!s.contains(Array("/tmpx/y".utf8)) && !s.contains(Array("/usr/share".utf8)))
        let rel = s.relative(Array("/usr/share/doc/bash/README".utf8))
        #expect(rel.map { String(decoding: $0.relative, as: UTF8.self) } == "bash/README")
        #expect(try s.narrowed(to: ["/usr/share"]) == [Array("/usr/share/doc".utf8)])
        #expect(try s.narrowed(to: ["/tmp"]) == [Array("/tmp".utf8)])
        #expect(throws: AgentError.self) { try s.narrowed(to: ["/etc"]) }
        #expect(throws: AgentError.self) { try s.narrowed(to: ["/no/such/folder"]) }
        #expect(ScopeSet(resolved: [[0x2F]]).contains(Array("/etc/passwd".utf8)))
    }

    @Test("file:// URIs carry any bytes and come back exactly")
    func uris() throws {
        let paths: [[UInt8]] = [Array("/a b/c%d.txt".utf8), [0x2F, 0x66, 0xFF, 0xFE], Array("/日本/ü.md".utf8)]
        for p in paths {
            let uri = ResourceURI.uri(p)
            #expect(uri.hasPrefix("file:///") && !uri.contains(" "))
            #expect(try ResourceURI.path(uri) == p)
        }
        #expect(try ResourceURI.path("file://localhost/etc/x") == Array("/etc/x".utf8))
        for bad in ["http://x/y", "file://host/x", "file:///a%2", "file:///a%00b"] {
            #expect(throws: AgentError.self, "\(bad)") { try ResourceURI.path(bad) }
        }
    }

    @Test("arguments: unknown names, wrong types and limits are errors naming the argument")
    func arguments() throws {
        let known: Set<String> = ["query", "maxResults", "scopes"]
        #expect(throws: AgentError.self) { try ToolArguments(["colour": "red"], known: known) }
        let a = try ToolArguments(["query": "x", "maxResults": 7, "scopes": ["/a", "/b"]], known: known)
        #expect(try a.string("query") == "x")
        #expect(try a.integer("maxResults", in: 1...20) == 7)
        #expect(throws: AgentError.self) { try a.integer("maxResults", in: 1...5) }
        #expect(try a.strings("scopes") == ["/a", "/b"])
        let wrong = try ToolArguments(["query": 3, "maxResults": 2.5], known: known)
        #expect(throws: AgentError.self) { try wrong.string("query") }
        #expect(throws: AgentError.self) { try wrong.integer("maxResults", in: 1...20) }
        let whole = try ToolArguments(["maxResults": 4.0], known: known)
        #expect(try whole.integer("maxResults", in: 1...20) == 4)
    }

    @Test("the catalog leaves out what a technique does not offer")
    func catalog() throws {
        let scopes = ScopeSet(resolved: [Array("/tmp".utf8)])
        let all = ToolCatalog(options: try AgentOptions(scopes: scopes))
        #expect(all.names == ["search", "count", "table", "statistic", "read_text", "describe", "suggest"])
        #expect(all.arguments(of: "search") == ["query", "scopes", "maxResults", "fetchAttributes", "sort", "stages"])
        let people = ToolCatalog(options: try AgentOptions(scopes: scopes, guidance: .dynamic([.people])))
        #expect(people.names == ["search", "count", "table", "describe"])
        #expect(people.groupings == ["kind", "contentType", "author"])
        #expect(people.attributes.contains(.authors) && !people.attributes.contains(.fileSize) && !people.attributes.contains(.contentModificationDate))
        #expect(throws: AgentError.self) { try AgentOptions(scopes: scopes, maxResults: 201) }
        #expect(throws: AgentError.self) { try AgentOptions(scopes: scopes, maxResults: 0) }
    }
}

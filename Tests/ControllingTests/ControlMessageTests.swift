import Foundation
import Indexing
import Testing
@testable import Controlling

@Suite("Control messages")
struct ControlMessageTests {
    static let requests: [ControlRequest] = [
        .status, .pause, .resume, .reindex(paths: []), .reindex(paths: [[0x2F, 0xFF], Array("/a b".utf8)]),
        .subscribe, .shutdown, .used(paths: [[0x2F, 0xFF], Array("/é x.txt".utf8)], title: "Budget review"),
        .used(paths: [Array("/a".utf8)], title: nil),
        .searchBox(SearchBoxQuery(terms: ["annual", "bud"], limit: 20)),
        .searchBox(SearchBoxQuery(terms: ["x"], limit: 5, within: [[0x2F, 0xFF], Array("notes:n-1".utf8)])),
    ]
    static let responses: [ControlResponse] = [
        .status(ScriptedHandler.sampleStatus),
        .status(DaemonStatus(state: .crawling, pid: 1)),
        .ok(message: "line one\nline two"),
        .reindexDone(ScriptedHandler.sampleSummary),
        .itemsChanged(ItemChanges(updated: [[0x80]], removed: [])),
        .itemsChanged(ItemChanges(summarized: [Array("/s.txt".utf8), [0x2F, 0xFE, 0x00, 0x6B]])),
        .itemsChanged(ItemChanges(prioritized: [Array("/m/cur/1:2,".utf8), [0x2F, 0xFE, 0x00, 0x6B]])),
        .error("refused: \"quoted\""),
        .usesRecorded(RecordedUses(paths: [[0x2F, 0xFF], Array("/b".utf8)], useCounts: [1, 7], indexed: [true, false])),
        .searchBoxHits([]),
        .searchBoxHits([DesktopHit(id: "b64:L/8=", identifier: [0x2F, 0xFF], name: "\u{FFFD}", folder: "/",
                                   summary: "a \"quoted\" word", contentType: "text/plain", contentURL: nil),
                        DesktopHit(id: "notes:n-1", identifier: Array("notes:n-1".utf8), name: "Note", contentURL: "https://n.example/1")]),
    ]

    @Test("a search box query refuses a limit out of range and identifiers that are not base64")
    func searchBoxBounds() {
        for bad in [#"{"request":"searchBox","query":{"terms":["a"],"limit":0}}"#,
                    #"{"request":"searchBox","query":{"terms":["a"],"limit":1001}}"#,
                    #"{"request":"searchBox","query":{"terms":["a"],"limit":3,"withinBase64":["!!"]}}"#,
                    #"{"request":"searchBox","query":{"limit":3}}"#] {
            #expect(throws: DecodingError.self, "\(bad)") { _ = try WireFormat.decode(ControlRequest.self, from: Array(bad.utf8)[...]) }
        }
    }

    @Test("each request is one JSON line and decodes to itself", arguments: requests)
    func requestLine(_ request: ControlRequest) throws {
        let line = try WireFormat.line(request)
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false)
        #expect(try WireFormat.decode(ControlRequest.self, from: line.dropLast()) == request)
    }

    @Test("each response is one JSON line and decodes to itself", arguments: responses)
    func responseLine(_ response: ControlResponse) throws {
        let line = try WireFormat.line(response)
        #expect(line.dropLast().contains(0x0A) == false)
        #expect(try WireFormat.decode(ControlResponse.self, from: line.dropLast()) == response)
    }

    @Test("paths go out exact (base64) and printable")
    func pathFields() throws {
        let line = try WireFormat.line(ControlRequest.reindex(paths: [[0x2F, 0x61, 0xFF]]))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["request"] as? String == "reindex")
        #expect(object["pathsBase64"] as? [String] == ["L2H/"])
        #expect(object["paths"] as? [String] == ["/a\\xFF"])
    }

    @Test("used: paths exact and printable, the title beside them; recorded uses with lists of one length")
    func usedFields() throws {
        let line = try WireFormat.line(ControlRequest.used(paths: [[0x2F, 0x61, 0xFF]], title: "Notes"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        #expect(object["request"] as? String == "used")
        #expect(object["pathsBase64"] as? [String] == ["L2H/"])
        #expect(object["paths"] as? [String] == ["/a\\xFF"])
        #expect(object["title"] as? String == "Notes")
        let typed = #"{"request":"used","paths":["/home/ada/notes.txt"]}"#
        #expect(try WireFormat.decode(ControlRequest.self, from: Array(typed.utf8)[...])
                == .used(paths: [Array("/home/ada/notes.txt".utf8)], title: nil))
        let uneven = #"{"response":"usesRecorded","uses":{"paths":["/a","/b"],"useCounts":[1],"indexed":[true,true]}}"#
        #expect(throws: DecodingError.self) { _ = try WireFormat.decode(ControlResponse.self, from: Array(uneven.utf8)[...]) }
    }

    @Test("big change sets are split into lines of at most 1,024 paths, in order, removals first")
    func chunking() {
        let updated = (0..<1500).map { Array("/u\($0)".utf8) }
        let removed = (0..<700).map { Array("/r\($0)".utf8) }
        let pieces = ItemChanges(updated: updated, removed: removed).chunked(maxPaths: 1024)
        #expect(pieces.map(\.count) == [1024, 1024, 152])
        #expect(pieces.flatMap(\.updated) == updated)
        #expect(pieces.flatMap(\.removed) == removed)
        // A subscriber applies a line's removals before its updates: a path in both (a file
        // replaced) must not have its update arrive in an earlier line than its removal.
        #expect(pieces.first?.removed == removed)
        #expect(pieces.dropFirst().allSatisfy { $0.removed.isEmpty })
    }

    @Test("summarized items travel exact and printable; a line without them (an older daemon) decodes as none")
    func summarizedField() throws {
        let line = try WireFormat.line(ControlResponse.itemsChanged(ItemChanges(updated: [Array("/u".utf8)], summarized: [[0x2F, 0x61, 0xFF]])))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
        let changes = try #require(object["changes"] as? [String: Any])
        #expect(changes["summarizedBase64"] as? [String] == ["L2H/"])
        #expect(changes["summarized"] as? [String] == ["/a\\xFF"])
        // Ordinary changes do not grow a field.
        let plain = String(decoding: try WireFormat.line(ControlResponse.itemsChanged(ItemChanges(updated: [Array("/u".utf8)]))), as: UTF8.self)
        #expect(!plain.contains("summarized"))
        let old = Array(#"{"response":"itemsChanged","changes":{"updated":["/u"],"removed":[]}}"#.utf8)
        let decoded = try WireFormat.decode(ControlResponse.self, from: old[...])
        #expect(decoded == .itemsChanged(ItemChanges(updated: [Array("/u".utf8)])))
        let typed = Array(#"{"response":"itemsChanged","changes":{"summarized":["/typed by hand"]}}"#.utf8)
        #expect(try WireFormat.decode(ControlResponse.self, from: typed[...]) == .itemsChanged(ItemChanges(summarized: [Array("/typed by hand".utf8)])))
    }

    @Test("summaries come last when a change is split, after the updates they follow")
    func chunkingSummaries() {
        let updated = (0..<600).map { Array("/u\($0)".utf8) }
        let summarized = (0..<600).map { Array("/s\($0)".utf8) }
        let pieces = ItemChanges(updated: updated, summarized: summarized).chunked(maxPaths: 1024)
        #expect(pieces.map(\.count) == [1024, 176])
        #expect(pieces.flatMap(\.summarized) == summarized)
        #expect(pieces.flatMap(\.updated) == updated)
        #expect(pieces[0].updated.count == 600 && pieces[1].updated.isEmpty)
    }

    @Test("issue 27: prioritized items travel exact and printable, after the updates when split; ordinary changes do not grow the field")
    func prioritizedField() throws {
        let line = try WireFormat.line(ControlResponse.itemsChanged(ItemChanges(updated: [Array("/u".utf8)], prioritized: [[0x2F, 0x61, 0xFF]])))
        let changes = try #require((try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])?["changes"] as? [String: Any])
        #expect(changes["prioritizedBase64"] as? [String] == ["L2H/"])
        #expect(changes["prioritized"] as? [String] == ["/a\\xFF"])
        let plain = String(decoding: try WireFormat.line(ControlResponse.itemsChanged(ItemChanges(updated: [Array("/u".utf8)]))), as: UTF8.self)
        #expect(!plain.contains("prioritized"))
        let prioritized = (0..<600).map { Array("/p\($0)".utf8) }
        let pieces = ItemChanges(updated: prioritized.map { $0 + [0x31] }, prioritized: prioritized).chunked(maxPaths: 1024)
        #expect(pieces.map(\.count) == [1024, 176])
        #expect(pieces.flatMap(\.prioritized) == prioritized)
    }
}

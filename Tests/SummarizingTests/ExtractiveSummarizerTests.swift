import Foundation
import Summarizing
import TestSupport
import Testing

@Suite("Extractive summaries", .blocking)
struct ExtractiveSummarizerTests {
    let summarizer = ExtractiveSummarizer()

    /// The text with its whitespace collapsed, as summaries print sentences.
    static func collapsed(_ s: String) -> String {
        s.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static let glaciers = """
        Glaciers are slow rivers of ice that form where snow builds up faster than it melts. \
        My neighbour bought a red bicycle yesterday afternoon. \
        As a glacier moves, the ice grinds the rock below it and carries the debris for many kilometres. \
        The weather was pleasant for a walk. \
        Most glaciers in the Alps have lost half of their ice since 1850, because summers melt more ice than winters bring as snow. \
        Without the meltwater of glaciers, rivers run low in late summer. \
        Cats sleep a lot.
        """

    @Test("English: the sentences about the topic, in the text's order, within 300 characters")
    func english() throws {
        let summary = try #require(summarizer.summary(of: Self.glaciers))
        #expect(summary.count <= 300)
        #expect(summary.contains("glacier") || summary.contains("Glacier"))
        #expect(!summary.contains("bicycle"), "an off-topic sentence: \(summary)")
        #expect(!summary.contains("Cats"))
        // Extractive: every sentence is the text's own, in its order.
        let text = Self.collapsed(Self.glaciers)
        var position = text.startIndex
        for sentence in Self.sentences(summary) {
            let found = try #require(text.range(of: sentence, range: position..<text.endIndex), "not in the text, in order: \(sentence)")
            position = found.upperBound
        }
        #expect((2...3).contains(Self.sentences(summary).count), "\(summary)")
        #expect(summarizer.summary(of: Self.glaciers) == summary, "deterministic")
    }

    static func sentences(_ s: String) -> [String] {
        var out: [String] = []
        var current = ""
        for ch in s {
            current.append(ch)
            if ".!?。！？".contains(ch) {
                out.append(current.trimmingCharacters(in: .whitespaces))
                current = ""
            }
        }
        if !current.trimmingCharacters(in: .whitespaces).isEmpty { out.append(current.trimmingCharacters(in: .whitespaces)) }
        return out
    }

    @Test("German: umlauts are letters, abbreviations do not end a sentence")
    func german() throws {
        let text = """
            Die Bienen sammeln im Frühling den Nektar der Blüten, z.B. von Obstbäumen und Löwenzahn. \
            Gestern regnete es in der ganzen Stadt. \
            Aus dem Nektar machen die Bienen im Stock Honig, den sie in Waben für den Winter lagern. \
            Der Bus kam zu spät. \
            Ein Volk von Bienen braucht für ein Kilogramm Honig den Nektar von Millionen Blüten. \
            Das Konzert war ausverkauft.
            """
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary.count <= 300)
        #expect(summary.contains("Bienen"))
        #expect(!summary.contains("Bus kam"), "\(summary)")
        #expect(!summary.hasPrefix("von Obstbäumen"), "z.B. ended a sentence: \(summary)")
        for sentence in Self.sentences(summary) {
            #expect(Self.collapsed(text).contains(sentence), "\(sentence)")
        }
    }

    @Test("Chinese: sentences end at 。！？ and are joined without spaces")
    func chinese() throws {
        let text = """
            长城是中国古代的军事防御工程，长城的修建持续了两千多年。今天天气很好。\
            长城东起山海关，西至嘉峪关，全长一万多公里，是世界上最长的防御工程。我喜欢喝茶！\
            明朝修建的长城保存得最完整，每年有很多游客来参观长城。他明天去上海吗？\
            长城在一九八七年被列入世界文化遗产名录，长城的保护工作非常重要。公园里的花开了。\
            八达岭长城是北京附近最有名的一段长城，每天都有成千上万的游客登上这段长城。\
            长城的城墙多用砖石砌成，城墙上每隔一段距离就有一座烽火台，用来传递军情。
            """
        #expect(text.unicodeScalars.count >= 200)
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary.count <= 300)
        #expect(summary.contains("长城"))
        #expect(!summary.contains(" "), "CJK sentences are joined without spaces: \(summary)")
        #expect(!summary.contains("天气"), "\(summary)")
        for sentence in Self.sentences(summary) { #expect(text.contains(sentence), "\(sentence)") }
    }

    @Test("Japanese: kana particles weigh little, the topic's sentences are chosen")
    func japanese() throws {
        let text = """
            富士山は日本で一番高い山で、高さは三千七百七十六メートルです。昨日は雨でした。\
            富士山は活火山で、最後の噴火は千七百七年の宝永噴火です。駅の前に新しいパン屋ができました。\
            毎年夏になると、多くの登山者が富士山の山頂を目指して登ります。猫が好きです。\
            富士山は二千十三年に世界文化遺産に登録されました。電車が少し遅れました。\
            富士山の山頂には浅間大社の奥宮があり、昔から富士山は信仰の対象でした。\
            晴れた日には東京からも富士山が見えることがあり、富士山の写真を撮る人が多いです。
            """
        #expect(text.unicodeScalars.count >= 200)
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary.count <= 300)
        #expect(summary.contains("富士山"))
        #expect(!summary.contains("パン屋"), "\(summary)")
        for sentence in Self.sentences(summary) { #expect(text.contains(sentence), "\(sentence)") }
    }

    @Test("code without sentences: whole lines of the code")
    func code() throws {
        let text = """
            import Foundation

            struct Inventory {
                var items: [String: Int] = [:]
                mutating func add(_ item: String, count: Int) { items[item, default: 0] += count }
                mutating func remove(_ item: String) { items[item] = nil }
                func count(of item: String) -> Int { items[item] ?? 0 }
            }

            var inventory = Inventory()
            inventory.add("apples", count: 3)
            print(inventory.count(of: "apples"))
            """
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary.count <= 300)
        let lines = Set(text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        // Each piece of the summary is a line of the code (joined by single spaces).
        #expect(lines.contains { !$0.isEmpty && summary.contains($0) }, "\(summary)")
        #expect(summary.contains("item"), "\(summary)")
    }

    @Test("a repeated line is taken once")
    func repeatedLines() throws {
        let text = """
            class Lock:
                async def acquire(self):
                    return await self.waiter.acquire(self)
                async def wait(self):
                    return await self.waiter.wait(self)
                async def wait(self):
                    return await self.waiter.wait(self)
                def locked(self):
                    return self.waiter.locked(self)
            """
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary.components(separatedBy: "async def wait(self):").count <= 2, "\(summary)")
        #expect(summary.components(separatedBy: "return await self.waiter.wait(self)").count <= 2, "\(summary)")
    }

    @Test("CSV: rows, never a cut in the middle of one when rows fit")
    func csv() throws {
        var text = "name,species,weight_kg,habitat\n"
        for i in 0..<20 { text += "animal\(i),penguin,\(10 + i),antarctic coast\n" }
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary.count <= 300)
        #expect(!summary.hasSuffix("…"), "\(summary)")
        let rows = text.split(separator: "\n").map(String.init)
        #expect(rows.contains { summary.contains($0) }, "\(summary)")
    }

    @Test("under 200 characters: no summary; at 200: one")
    func threshold() throws {
        let sentence = "The quick brown fox jumps over the lazy dog near the river bank. "   // 65 characters
        let long = String(repeating: sentence, count: 4)   // 260
        let exactly200 = String(long.prefix(200))
        let only199 = String(long.prefix(199))
        #expect(exactly200.unicodeScalars.count == 200)
        #expect(summarizer.summary(of: only199) == nil)
        #expect(summarizer.summary(of: exactly200) != nil)
        #expect(summarizer.summary(of: "") == nil)
        #expect(summarizer.summary(of: String(repeating: " \n\t", count: 200)) == nil, "whitespace only")
        #expect(!ExtractiveSummarizer.qualifies(only199))
        #expect(ExtractiveSummarizer.qualifies(exactly200))
    }

    @Test("three sentences of exactly 300 characters together are the summary; one more character is too many")
    func exactLimit() throws {
        func sentence(_ word: String, _ length: Int) -> String {
            var s = "The \(word) sentence talks about tides"
            while s.count < length - 1 { s += s.count < length - 6 ? " tide" : "s" }
            return String(s.prefix(length - 1)) + "."
        }
        let a = sentence("first", 100), b = sentence("second", 99), c = sentence("third", 99)
        #expect(a.count == 100 && b.count == 99 && c.count == 99)
        let text = [a, b, c].joined(separator: " ")
        #expect(text.count == 300)
        #expect(summarizer.summary(of: text) == text)
        let over = [sentence("first", 101), b, c].joined(separator: " ")
        let summary = try #require(summarizer.summary(of: over))
        #expect(summary.count < 300)
        #expect(Self.sentences(summary).count == 2, "\(summary)")
    }

    @Test("one long sentence is cut at a word boundary with …")
    func cutAtWord() throws {
        let words = (0..<80).map { "word\($0)" }
        let text = words.joined(separator: " ") + "."
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary.count <= 300)
        #expect(summary.hasSuffix("…"))
        let head = String(summary.dropLast())
        #expect(text.hasPrefix(head + " "), "cut inside a word: \(summary)")
        #expect(head.count > 250, "cut far too early: \(head.count)")
    }

    @Test("a scrap that fits does not beat a better line that must be cut (a heading above code run together)")
    func scrapVersusLongLine() throws {
        let code = (1...40).map { "\($0)let buffer = reader.read(buffer, count: limit);" }.joined(separator: " ")
        let text = "Skip to main content\nFiles\n" + code
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary != "Skip to main content")
        #expect(summary.contains("buffer") && summary.hasSuffix("…"), "\(summary)")
        #expect(summary.count <= 300)
    }

    @Test("CJK without sentence ends is cut by characters, to exactly 300")
    func cutCJK() throws {
        let text = String(repeating: "山川草木鳥獣虫魚", count: 60)   // 480 ideographs, no 。
        let summary = try #require(summarizer.summary(of: text))
        #expect(summary.count == 300)
        #expect(summary.hasSuffix("…"))
        #expect(text.hasPrefix(String(summary.dropLast())))
    }

    @Test("binary garbage: no crash, no summary of garbage; the same answer every time")
    func garbage() throws {
        var generator = SplitMix64(seed: 42)
        for round in 0..<50 {
            let bytes = (0..<(200 + round * 97)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let text = String(decoding: bytes, as: UTF8.self)
            let summary = summarizer.summary(of: text)
            #expect(summary == summarizer.summary(of: text))
            if let summary { #expect(summary.count <= 300) }
        }
        let nulsAndReplacement = String(repeating: "\u{0}\u{FFFD}\u{1}\u{E000}", count: 100)
        #expect(summarizer.summary(of: nulsAndReplacement) == nil)
    }

    @Test("a 1 MiB text: only its start is analysed, quickly")
    func bigText() throws {
        let paragraph = Self.glaciers + "\n\n"
        var text = String(repeating: paragraph, count: 70_000 / paragraph.count + 1)
        text += "Zeppelins are the only subject of this tail section, zeppelins everywhere, zeppelins all the time. "
        text += String(repeating: "Zeppelins fly. Zeppelins float over the zeppelin field. ", count: 1_000_000 / 56)
        let start = Date()
        let summary = try #require(summarizer.summary(of: text))
        let seconds = Date().timeIntervalSince(start)
        #expect(!summary.contains("eppelin"), "beyond the analysed start: \(summary)")
        #expect(summary.count <= 300)
        #expect(seconds < 2, "took \(seconds) s")
    }

    @Test("real documents: a summary of the text files, no crash on the binary ones", .realCorpus)
    func realCorpus() throws {
        let root = RealCorpus.root.string
        let files = try FileManager.default.subpathsOfDirectory(atPath: root).sorted()
        var summarized = 0
        for relative in files {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let data = FileManager.default.contents(atPath: path) else { continue }
            let text = String(decoding: data.prefix(1 << 20), as: UTF8.self)
            let summary = summarizer.summary(of: text)
            #expect(summary == summarizer.summary(of: text), "not deterministic: \(relative)")
            if let summary {
                #expect(summary.count <= 300, "\(relative)")
                #expect(!summary.isEmpty)
            }
            // Files that are UTF-8 text as they are (not UTF-16, not binary).
            let isText = (["code/", "misc/"].contains { relative.hasPrefix($0) } || relative.hasSuffix(".html"))
                && String(validating: data, as: UTF8.self) != nil && !data.contains(0)
            if isText && ExtractiveSummarizer.qualifies(text) {
                #expect(summary != nil, "no summary of a text file: \(relative)")
                summarized += 1
            }
        }
        #expect(summarized >= 10)
    }
}

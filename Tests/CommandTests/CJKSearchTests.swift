import Foundation
import SystemPackage
import TestSupport
import Testing

/// Every script searchable (issue 14): words of Han, Hiragana, Katakana and Hangul text are
/// found through overlapping bigrams (the `fsindex_cjk` tokenizer); other scripts keep
/// unicode61's behaviour.
@Suite("Chinese, Japanese and Korean words", .blocking)
struct CJKSearchTests {
    static func fixture() throws -> CLIFixture {
        let f = try CLIFixture()
        try f.tree.create("root/ja.txt", contents: "東京都は日本の首都です。カタカナのテキストもあります。\n")
        try f.tree.create("root/zh.txt", contents: "我们在北京学习简体中文。\n")
        try f.tree.create("root/ko.txt", contents: "서울에서 한국어를 배웁니다.\n")
        try f.tree.create("root/mixed.txt", contents: "Swift言語のテスト and some English words.\n")
        try f.tree.create("root/latin.txt", contents: "Café au lait in Москва, Αθήνα and القاهرة.\n")
        let r = try f.fsindex("index", f.root)
        #expect(r.status == 0, "\(r.stderr)")
        return f
    }

    func names(_ r: CommandResult) -> [String] { r.lines.map { String($0.split(separator: "/").last ?? "") }.sorted() }

    @Test("a word inside a run of Han, Kana or Hangul is found, alone, as a prefix or in a phrase")
    func words() throws {
        let f = try Self.fixture()
        let expected: [(String, [String])] = [
            ("首都", ["ja.txt"]), ("北京", ["zh.txt"]), ("中文", ["zh.txt"]), ("学习简体", ["zh.txt"]),
            ("東京", ["ja.txt"]), ("\"東京都\"", ["ja.txt"]), ("カタカナ", ["ja.txt"]), ("テキスト", ["ja.txt"]),
            ("서울", ["ko.txt"]), ("한국어", ["ko.txt"]), ("言語", ["mixed.txt"]), ("Swift", ["mixed.txt"]),
            ("首", ["ja.txt"]), ("首都 日本", ["ja.txt"]),
        ]
        for (query, files) in expected {
            let r = try f.fsfind(query)
            #expect(names(r) == files, "\(query): \(r.out)\(r.stderr)")
        }
        // Words that are not there, and a phrase whose words are apart.
        for query in ["大阪", "\"日本首都\"", "韓国"] {
            #expect(try f.fsfind(query).status == 1, "\(query)")
        }
    }

    @Test("snippets and highlights mark the matched characters")
    func snippets() throws {
        let f = try Self.fixture()
        let r = try f.fsfind("--snippet", "首都")
        #expect(r.out.contains("**首都**"), "\(r.out)")
        let phrase = try f.fsfind("--snippet", "\"東京都\"")
        #expect(phrase.out.contains("**東京都**"), "\(phrase.out)")
    }

    @Test("Latin, Cyrillic, Greek and Arabic keep their words (case and accents folded)")
    func otherScripts() throws {
        let f = try Self.fixture()
        for query in ["cafe", "CAFÉ", "москва", "Αθήνα", "القاهرة", "lait"] {
            #expect(names(try f.fsfind(query)) == ["latin.txt"], "\(query)")
        }
        #expect(try f.fsfind("caf").status == 0)   // the last word is a prefix, as before
    }

    @Test("the real corpus's GB18030 and Shift-JIS files are found by their words", .realCorpus)
    func corpus() throws {
        let f = try CLIFixture()
        for name in ["zh/gb18030.txt", "ja/shift_jis.txt"] {
            let data = try Data(contentsOf: URL(fileURLWithPath: RealCorpus.file("text-encodings/uchardet/" + name).string))
            FileManager.default.createFile(atPath: f.root + "/" + name.replacingOccurrences(of: "/", with: "-"), contents: data)
        }
        #expect(try f.fsindex("index", f.root).status == 0)
        #expect(names(try f.fsfind("中文")) == ["zh-gb18030.txt"])
        #expect(names(try f.fsfind("简体")) == ["zh-gb18030.txt"])
        #expect(names(try f.fsfind("日本語")) == ["ja-shift_jis.txt"])
    }
}

import ExtractionModel
import SystemCalls
import CTextCat
import Glibc

/// Guesses the language of a text with libexttextcat's n-gram fingerprints (the models in
/// `/usr/share/libexttextcat`, listed in `fpdb.conf`), for the `language` attribute.
///
/// It answers only when it is confident: one best candidate (or several that are the same
/// language, such as `zh-CN` and `zh-TW`) within textcat's usual 3 % of the best score. The
/// answer is an ISO 639-1 code (`en`, `fr`, `ru`); the models of languages without one are not
/// loaded.
///
/// For example:
/// ```swift
/// LanguageIdentifier.shared?.language(of: "Der Bäcker backt Brötchen für die Straße …")   // "de"
/// LanguageIdentifier.shared?.language(of: "int main(void) { return 0; }")                 // nil
/// ```
///
/// A key design decision: `textcat_Classify` compares the text with all 164 models, 2–5 ms per
/// call on this machine; too much for a crawl of 100,000 files. Here the writing system is found
/// first (one pass over the sample): Hangul is Korean, Han with kana Japanese, Han alone Chinese,
/// without asking textcat; other texts are compared only with the models of their own script
/// (of the 127 models with an ISO 639-1 code, about 80 are Latin and 14 Cyrillic), through
/// libexttextcat's fingerprint functions (`fp_Create`, `fp_Compare`). At most `sampleBytes` of
/// text are used.
///
/// The models are read once per process (about 0.1 s, on first use) and never written
/// afterwards (`fp_Compare` only reads them), so all threads share them; each call makes its own
/// fingerprint of the text.
///
/// Cost (release build, CPU time on a busy 2-core machine): about 0.45 ms per English text,
/// 0.15 ms per Russian one, 0.05 ms for CJK (no textcat call); nothing for texts under
/// `minimumBytes`.
package final class LanguageIdentifier: @unchecked Sendable {
    /// Where Debian's libexttextcat-data puts the models.
    package static let dataDirectory = "/usr/share/libexttextcat/"
    /// Part of every item's extractor version; bumped in `ExtractionVersions.language`.
    package static var version: Int { ExtractionVersions.language }
    /// Bytes of text classified (cut on a character boundary). textcat needs a few hundred
    /// bytes; making its fingerprint costs in proportion to the sample (about 0.1 ms per KiB of
    /// CPU on this machine), so 2 KiB rather than 4.
    package static let sampleBytes = 2048
    /// Texts shorter than this (in UTF-8 bytes) get no language.
    package static let minimumBytes = 100

    /// The models, loaded on first use; nil when the data files are missing or unreadable.
    package static let shared: LanguageIdentifier? = LanguageIdentifier(directory: dataDirectory)

    /// Whether the models' configuration can be read, without loading them: for a diagnostic.
    package static var dataAvailable: Bool { access(dataDirectory + "fpdb.conf", R_OK) == 0 }

    struct Model {
        let fingerprint: UnsafeMutableRawPointer
        let code: String
        let script: Script
    }

    private let models: [Model]
    private let byScript: [Script: [Int]]

    init?(directory: String) {
        guard let conf = Self.readFile(directory + "fpdb.conf") else { return nil }
        var models: [Model] = []
        for line in conf.split(whereSeparator: { $0 == "\n" || $0 == "\r" }) {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, !fields[0].hasPrefix("#") else { continue }
            let file = directory + fields[0], id = String(fields[1])
            let code = String(id.prefix { $0 != "-" })
            // Only languages with an ISO 639-1 code: the 60-odd others (Acehnese, Scots, ...)
            // doubled the comparisons of Latin text and mostly produced close calls with the
            // major language next to them (`[en][sco]`).
            guard code.utf8.count == 2 else { continue }
            guard let lm = Self.readFile(file), let fp = fp_Init(id) else { continue }
            _ = fp_SetProperty(fp, TCPROP_UTF8AWARE, sint4(TC_TRUE.rawValue))
            guard fp_Read(fp, file, 400) != 0 else { fp_Done(fp); continue }
            let ngrams = lm.split(separator: "\n").prefix(200).map { $0.prefix { $0 != "\t" && $0 != " " } }.joined()
            models.append(Model(fingerprint: fp, code: code, script: Self.dominantScript(ngrams)?.script ?? .other))
        }
        guard !models.isEmpty else { return nil }
        self.models = models
        var byScript: [Script: [Int]] = [:]
        for (i, m) in models.enumerated() { byScript[m.script, default: []].append(i) }
        self.byScript = byScript
    }

    deinit { for m in models { fp_Done(m.fingerprint) } }

    /// How many models were loaded, and of which script (for tests).
    var modelCount: Int { models.count }
    func models(of script: Script) -> [String] { (byScript[script] ?? []).map { models[$0].code } }

    /// The language of `text` (its first `sampleBytes`), or nil when unsure.
    package func language(of text: String) -> String? {
        guard text.utf8.count >= Self.minimumBytes else { return nil }
        let sample = TextDecoding.capped(text, toUTF8Bytes: Self.sampleBytes).text
        guard let (script, kana) = Self.dominantScript(sample) else { return nil }
        switch script {
        case .hangul: return "ko"
        case .han: return kana ? "ja" : "zh"
        default: break
        }
        guard let candidates = byScript[script], !candidates.isEmpty else { return nil }
        if Set(candidates.map { models[$0].code }).count == 1 { return models[candidates[0]].code }

        guard let unknown = fp_Init(nil) else { return nil }
        defer { fp_Done(unknown) }
        _ = fp_SetProperty(unknown, TCPROP_UTF8AWARE, sint4(TC_TRUE.rawValue))
        let made = sample.withCString { fp_Create(unknown, $0, uint4(strlen($0)), 400) }
        guard made != 0 else { return nil }
        var best = Int32.max, threshold = Int32.max
        var scores: [(Int32, Int)] = []
        scores.reserveCapacity(candidates.count)
        for i in candidates {
            let score = fp_Compare(models[i].fingerprint, unknown, threshold)
            scores.append((score, i))
            if score < best {
                best = score
                threshold = Int32(Double(score) * 1.03)   // textcat's THRESHOLDVALUE
            }
        }
        guard best < Int32.max else { return nil }
        let close = Set(scores.filter { $0.0 <= threshold }.map { models[$0.1].code })
        return close.count == 1 ? close.first : nil
    }

    /// Writing systems, as far as choosing models goes. Indic and other scripts of their own
    /// Unicode block are told apart by the block.
    enum Script: Hashable {
        case latin, greek, cyrillic, armenian, hebrew, arabic, thai, georgian, hangul, han, kana
        case block(UInt32)
        case other
    }

    /// The script of most letters of `text`, and whether kana are a noticeable part of Han
    /// text (Japanese); nil when there are fewer than 30 letters or fewer than 20 different
    /// ones (`日本語日本語…` is not enough to tell Japanese from Chinese).
    static func dominantScript(_ text: String) -> (script: Script, kana: Bool)? {
        // Counters in a fixed array (slots 0–10 the named scripts, 16 + v >> 7 the blocks of
        // U+0700–U+1FFF); a dictionary here cost more than textcat's fingerprint.
        let named: [Script] = [.latin, .greek, .cyrillic, .armenian, .hebrew, .arabic, .thai, .georgian, .hangul, .han, .kana]
        var counts = [Int](repeating: 0, count: 16 + 0x40)
        var letters = 0
        var distinct: [UInt32] = []
        distinct.reserveCapacity(20)
        for s in text.unicodeScalars {
            let v = s.value
            let slot: Int
            switch v {
            case 0x41...0x5A, 0x61...0x7A, 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x24F, 0x1E00...0x1EFF: slot = 0
            case 0x370...0x3FF, 0x1F00...0x1FFF: slot = 1
            case 0x400...0x52F: slot = 2
            case 0x530...0x58F: slot = 3
            case 0x590...0x5FF: slot = 4
            case 0x600...0x6FF, 0x750...0x77F, 0xFB50...0xFDFF, 0xFE70...0xFEFF: slot = 5
            case 0xE00...0xE7F: slot = 6
            case 0x10A0...0x10FF: slot = 7
            case 0x1100...0x11FF, 0x3130...0x318F, 0xAC00...0xD7AF: slot = 8
            case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF: slot = 9
            case 0x3040...0x30FF: slot = 10
            case 0x700...0x1FFF: slot = 16 + Int(v >> 7)
            default: continue
            }
            counts[slot] += 1
            letters += 1
            if distinct.count < 20, !distinct.contains(v) { distinct.append(v) }
        }
        guard letters >= 30, distinct.count >= 20 else { return nil }
        let hangul = counts[8], han = counts[9], kana = counts[10]
        // A CJK character says as much as a Latin word: Japanese text with a few English words
        // (`Extended Unix Code (EUC) は…`) is Japanese.
        if (han + kana + hangul) * 3 >= letters {
            if hangul >= han + kana { return (.hangul, false) }
            return (.han, kana * 10 >= han + kana)
        }
        counts[9] = han + kana
        counts[10] = 0
        guard let best = counts.indices.max(by: { counts[$0] < counts[$1] }), counts[best] > 0 else { return nil }
        return (best < named.count ? named[best] : .block(UInt32(best - 16)), false)
    }

    /// A small file read whole, as UTF-8 (models are UTF-8; at most 1 MiB).
    /// A model file (a few KiB), or nil if it cannot be read.
    static func readFile(_ path: String) -> String? {
        guard case .success(let bytes) = SystemCall.readFile(path, limit: 1 << 20) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }
}

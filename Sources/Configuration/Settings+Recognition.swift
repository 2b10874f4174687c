import Foundation

// OCR (issue 28): where Tesseract's data is, which languages to read, and whether OCR runs.
extension Settings {
    /// OCR as it will run: the tessdata folder and the languages, Tesseract's way ("eng+deu").
    package struct Recognition: Sendable, Hashable {
        package var dataPath: String
        package var languages: [String]
        package var languageList: String { languages.joined(separator: "+") }
    }

    /// Why OCR cannot run as configured: said once (fsindex prints it, fsindexd logs it), and
    /// everything else is indexed as usual.
    package enum RecognitionProblem: Error, Sendable, Hashable, CustomStringConvertible {
        /// No tessdata folder with a language pack.
        case noData(searched: [String])
        /// `ocr_languages` names packs that are not installed.
        case missingLanguages([String], installed: [String], dataPath: String)

        package var description: String {
            switch self {
            case let .noData(searched):
                "OCR is off: no Tesseract language data in \(searched.joined(separator: ", ")); install tesseract-ocr-eng (or another tesseract-ocr-LANG), or set `ocr = false` in the [extraction] section"
            case let .missingLanguages(missing, installed, path):
                "OCR is off: `ocr_languages` in the [extraction] section names \(missing.joined(separator: ", ")), not installed in \(path) (installed: \(installed.isEmpty ? "none" : installed.joined(separator: ", "))); install tesseract-ocr-\(missing[0]) or remove it from the list"
            }
        }
    }

    /// The folders Tesseract's data is looked for in: `$TESSDATA_PREFIX` (as Tesseract itself
    /// reads it), then Debian's and other distributions' places for Tesseract 5 and 4.
    package static func tessdataFolders(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        var out: [String] = []
        if let prefix = environment["TESSDATA_PREFIX"], !prefix.isEmpty {
            out.append(prefix.hasSuffix("/tessdata") || prefix.hasSuffix("/tessdata/") ? prefix : prefix + "/tessdata")
            out.append(prefix)
        }
        return out + ["/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/share/tessdata"]
    }

    /// The language packs installed in `folder` (`eng` for `eng.traineddata`), without `osd`
    /// (orientation and script detection, which reads no words).
    package static func installedLanguages(in folder: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { $0.hasSuffix(".traineddata") }.map { String($0.dropLast(".traineddata".count)) }
            .filter { $0 != "osd" }.sorted()
    }

    /// OCR as configured: nil when `ocr = false`; a problem when it cannot run (no data, a
    /// configured language missing). The default languages are the installed packs, English
    /// first when it is one of them.
    package func recognition(environment: [String: String] = ProcessInfo.processInfo.environment) -> Result<Recognition, RecognitionProblem>? {
        guard extraction.ocr else { return nil }
        let folders = Self.tessdataFolders(environment: environment)
        guard let found = folders.lazy.map({ ($0, Self.installedLanguages(in: $0)) }).first(where: { !$0.1.isEmpty }) else {
            return .failure(.noData(searched: folders))
        }
        let (folder, installed) = found
        if extraction.ocrLanguages.isEmpty {
            let ordered = installed.contains("eng") ? ["eng"] + installed.filter { $0 != "eng" } : installed
            return .success(Recognition(dataPath: folder, languages: ordered))
        }
        let missing = extraction.ocrLanguages.filter { !installed.contains($0) }
        guard missing.isEmpty else { return .failure(.missingLanguages(missing, installed: installed, dataPath: folder)) }
        return .success(Recognition(dataPath: folder, languages: extraction.ocrLanguages))
    }
}

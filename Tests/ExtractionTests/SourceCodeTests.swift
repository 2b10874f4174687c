import Attributes
import Crawling
@testable import Extraction
import ExtractionModel
import Testing
import TestSupport

@Suite("SourceCode", .blocking)
struct SourceCodeTests {
    /// (corpus file, expected type, whether it conforms to public.source-code, a word of its text)
    static let real: [(String, String, Bool, String)] = [
        ("code/testC.c", "public.c-source", true, "Apache Tika!"),
        ("code/testCPP.cpp", "public.c-plus-plus-source", true, "Hello world"),
        ("code/testJAVA.java", "com.sun.java-source", true, "class"),
        ("code/testGROOVY.groovy", "org.groovy-lang.groovy-source", true, "hello, world"),
        ("code/testJS.js", "com.netscape.javascript-source", true, "Licensed to the Apache Software Foundation"),
        ("code/testCSS.css", "public.css", false, "Licensed to the Apache Software Foundation"),
        ("code/testJAVAPROPS.properties", "com.sun.java-properties", false, "Licensed to the Apache Software Foundation"),
        ("misc/testCSV.csv", "public.comma-separated-values-text", false, "Numbers and their Squares"),
        ("misc/testWebVTT.vtt", "org.w3.webvtt", false, "Everyone wants"),
        ("misc/test_subrip.srt", "public.subrip-subtitle", false, "ESSAI DE SOUS-TITRES"),
    ]

    @Test("real source and text files: type, parent and text", .realCorpus, arguments: real)
    func realFiles(_ file: String, _ type: String, _ isSource: Bool, _ word: String) throws {
        let r = try extractReal(file)
        #expect(r.attributes.contentType == ContentType(rawValue: type))
        #expect(r.attributes.contentTypeTree.contains(.sourceCode) == isSource)
        #expect(r.attributes.contentTypeTree.contains(.text) == true)
        #expect(r.extractor == "plain-text")
        #expect(r.attributes.textContent?.contains(word) == true)
    }

    /// (file name, contents, expected type)
    static let generated: [(String, String, String)] = [
        ("main.swift", "import Foundation\nprint(\"hi\")\n", "public.swift-source"),
        ("hello.py", "def main():\n    print('hi')\n", "public.python-script"),
        ("run.sh", "#!/bin/sh\necho hi\n", "public.shell-script"),
        ("main.go", "package main\n\nfunc main() {}\n", "org.golang.go-source"),
        ("lib.rs", "fn main() { println!(\"hi\"); }\n", "org.rust-lang.rust-source"),
        ("app.rb", "puts 'hi'\n", "public.ruby-script"),
        ("tool.pl", "use strict;\nprint \"hi\\n\";\n", "public.perl-script"),
        ("index.php", "<?php echo 'hi'; ?>\n", "public.php-script"),
        ("Main.kt", "fun main() { println(\"hi\") }\n", "org.kotlinlang.kotlin-source"),
        ("Program.cs", "class Program { static void Main() {} }\n", "com.microsoft.c-sharp-source"),
        ("App.tsx", "export const App = () => <div>hi</div>;\n", "com.microsoft.typescript"),
        ("View.m", "#import <Foundation/Foundation.h>\n@implementation View\n@end\n", "public.objective-c-source"),
        ("View.mm", "#import <Foundation/Foundation.h>\nclass A {};\n", "public.objective-c-plus-plus-source"),
        ("init.lua", "local x = 1\nprint(x)\n", "org.lua.lua-source"),
        ("schema.sql", "CREATE TABLE t (id INTEGER PRIMARY KEY);\n", "org.iso.sql"),
        ("Main.scala", "object Main extends App { println(\"hi\") }\n", "org.scala-lang.scala-source"),
        ("util.h", "#ifndef UTIL_H\n#define UTIL_H\nint f(void);\n#endif\n", "public.c-header"),
    ]

    @Test("generated source files get their language's type and their text", arguments: generated)
    func generatedFiles(_ name: String, _ contents: String, _ type: String) throws {
        let tree = try TemporaryTree()
        let r = try extract(try tree.create(name, contents: contents))
        #expect(r.attributes.contentType == ContentType(rawValue: type), "\(r.attributes.string(.mimeType) ?? "")")
        #expect(r.attributes.contentTypeTree.contains(.sourceCode) == true)
        #expect(r.extractor == "plain-text")
        #expect(r.attributes.textContent == contents)
    }

    @Test("data formats are text but not source code")
    func dataFormats() throws {
        let tree = try TemporaryTree()
        for (name, contents, type) in [("a.json", "{\"a\": 1}\n", "public.json"), ("a.yaml", "a: 1\nb: [x, y]\n", "public.yaml"),
                                       ("a.toml", "a = 1\n[t]\nb = \"x\"\n", "public.toml")] {
            let r = try extract(try tree.create(name, contents: contents))
            #expect(r.attributes.contentType == ContentType(rawValue: type), "\(name)")
            #expect(r.attributes.contentTypeTree.contains(.sourceCode) == false, "\(name)")
            #expect(r.attributes.textContent == contents, "\(name)")
        }
    }
}

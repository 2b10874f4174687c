import MemberwiseInitMacros
import SwiftSyntaxMacrosGenericTestSupport
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing

/// The expansion of `@MemberwiseInit`, as source text: what Swift's own memberwise initializer
/// would take, made `package`.
@Suite("@MemberwiseInit")
struct MemberwiseInitTests {
    let macros: [String: MacroSpec] = ["MemberwiseInit": MacroSpec(type: MemberwiseInitMacro.self)]

    func expand(_ source: String, _ expanded: String, diagnostics: [DiagnosticSpec] = [],
                sourceLocation: SourceLocation = #_sourceLocation) {
        assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros,
                             failureHandler: { Issue.record(Comment(rawValue: $0.message), sourceLocation: sourceLocation) })
    }

    @Test("stored properties in order; a var's initial value is its default, an optional var's nil; a let with a value, computed and static properties left out")
    func parameters() {
        expand("""
            @MemberwiseInit
            struct Hit {
                let path: [UInt8]
                var score: Double = 1.5
                var note: String?
                let kind = "file"
                var size: Int { path.count }
                static var count: Int = 0
                lazy var cache: [Int] = []
                var seen: Bool = false { didSet { } }
            }
            """, """
            struct Hit {
                let path: [UInt8]
                var score: Double = 1.5
                var note: String?
                let kind = "file"
                var size: Int { path.count }
                static var count: Int = 0
                lazy var cache: [Int] = []
                var seen: Bool = false { didSet { } }

                package init(path: [UInt8], score: Double = 1.5, note: String? = nil, seen: Bool = false) {
                    self.path = path
                    self.score = score
                    self.note = note
                    self.seen = seen
                }
            }
            """)
    }

    @Test("a closure is @escaping, an optional one as it is; a let optional has no default")
    func closures() {
        expand("""
            @MemberwiseInit
            final class Job {
                let run: @Sendable (Int) -> Void
                let done: (() -> Void)?
            }
            """, """
            final class Job {
                let run: @Sendable (Int) -> Void
                let done: (() -> Void)?

                package init(run: @escaping @Sendable (Int) -> Void, done: (() -> Void)?) {
                    self.run = run
                    self.done = done
                }
            }
            """)
    }

    @Test("a property without a written type, and an enum, are refused with a message that says what to do")
    func refusals() {
        expand("""
            @MemberwiseInit
            struct Guess {
                var count = 0
            }
            """, """
            struct Guess {
                var count = 0
            }
            """, diagnostics: [DiagnosticSpec(message: "@MemberwiseInit needs the type of 'count' written out (it sees syntax, not inferred types)", line: 3, column: 9)])
        expand("""
            @MemberwiseInit
            enum Side {
                case left
            }
            """, """
            enum Side {
                case left
            }
            """, diagnostics: [DiagnosticSpec(message: "@MemberwiseInit applies to a struct or a class", line: 1, column: 1)])
    }
}

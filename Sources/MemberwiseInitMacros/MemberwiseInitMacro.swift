import SwiftCompilerPlugin
import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The expansion of `@MemberwiseInit`: see its declaration in MemberwiseInit.
package struct MemberwiseInitMacro: MemberMacro {
    package static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard declaration.is(StructDeclSyntax.self) || declaration.is(ClassDeclSyntax.self) else {
            context.diagnose(Diagnostic(node: node, message: Problem.notAStructOrClass))
            return []
        }
        var parameters: [String] = []
        var assignments: [String] = []
        for member in declaration.memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self), isStoredInstance(variable) else { continue }
            let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
            for binding in variable.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.trimmedDescription else {
                    context.diagnose(Diagnostic(node: binding.pattern, message: Problem.notASimpleName))
                    return []
                }
                // A let with its value is set once, there; it takes no parameter.
                if isLet, binding.initializer != nil { continue }
                guard let type = binding.typeAnnotation?.type else {
                    context.diagnose(Diagnostic(node: binding, message: Problem.noType(name)))
                    return []
                }
                var parameter = "\(name): \(isFunction(type) ? "@escaping " : "")\(type.trimmedDescription)"
                if let value = binding.initializer?.value {
                    parameter += " = \(value.trimmedDescription)"
                } else if !isLet, isOptional(type) {
                    parameter += " = nil"
                }
                parameters.append(parameter)
                assignments.append("self.\(name) = \(name)")
            }
        }
        let body = assignments.map { "    \($0)" }.joined(separator: "\n")
        return ["package init(\(raw: parameters.joined(separator: ", "))) {\n\(raw: body)\n}"]
    }

    /// A stored instance property: not static, not lazy, no getter (observers keep it stored).
    static func isStoredInstance(_ variable: VariableDeclSyntax) -> Bool {
        for modifier in variable.modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.static), .keyword(.class), .keyword(.lazy): return false
            default: continue
            }
        }
        for binding in variable.bindings {
            switch binding.accessorBlock?.accessors {
            case nil: continue
            case .getter: return false
            case .accessors(let list):
                for accessor in list {
                    switch accessor.accessorSpecifier.tokenKind {
                    case .keyword(.willSet), .keyword(.didSet): continue
                    default: return false
                    }
                }
            }
        }
        return true
    }

    /// A function type, perhaps with attributes (`@Sendable (Int) -> Void`): a parameter of that
    /// type must be `@escaping` to be stored. An optional function type is escaping already.
    static func isFunction(_ type: TypeSyntax) -> Bool {
        if type.is(FunctionTypeSyntax.self) { return true }
        if let attributed = type.as(AttributedTypeSyntax.self) { return isFunction(attributed.baseType) }
        if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1, let only = tuple.elements.first {
            return isFunction(only.type)
        }
        return false
    }

    static func isOptional(_ type: TypeSyntax) -> Bool {
        if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return true }
        if let named = type.as(IdentifierTypeSyntax.self) { return named.name.text == "Optional" }
        return false
    }

    enum Problem: DiagnosticMessage {
        case notAStructOrClass
        case notASimpleName
        case noType(String)

        var message: String {
            switch self {
            case .notAStructOrClass: "@MemberwiseInit applies to a struct or a class"
            case .notASimpleName: "@MemberwiseInit needs one name per stored property, not a pattern"
            case .noType(let name): "@MemberwiseInit needs the type of '\(name)' written out (it sees syntax, not inferred types)"
            }
        }
        var diagnosticID: MessageID { MessageID(domain: "MemberwiseInit", id: "\(self)") }
        var severity: DiagnosticSeverity { .error }
    }
}

@main
struct MemberwiseInitPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [MemberwiseInitMacro.self]
}

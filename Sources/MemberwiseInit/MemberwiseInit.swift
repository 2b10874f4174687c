/// Gives a struct or class the `package init` that Swift would write for it, were its
/// memberwise initializer not `internal`.
///
/// Why: the modules hand small value types to each other, and Swift's own memberwise
/// initializer is never visible outside the module that declares the type. Before this macro,
/// 75 types spelled that initializer out (the parameters, then one `self.x = x` a property): a
/// third of the pairs `duplicates` listed, each a place where adding a property meant editing
/// two lists that had to agree.
///
/// The parameters are the stored instance properties in their order, with their types:
/// - a `var` with an initial value takes it as the parameter's default;
/// - an optional `var` without one defaults to `nil`, as in Swift's own;
/// - a `let` with an initial value is left out (it cannot be set again);
/// - a property of function type is `@escaping`.
///
/// A stored property needs a written type: the macro sees syntax, not inferred types.
@attached(member, names: named(init))
package macro MemberwiseInit() = #externalMacro(module: "MemberwiseInitMacros", type: "MemberwiseInitMacro")

/// A small deterministic generator (SplitMix64, Steele, Lea and Flood 2014), so that generated
/// fixtures, garbage and mutations are the same on every run and a failure can be replayed.
/// One copy for every test target: the four hand copies had drifted (one seeded a step ahead).
package struct SplitMix64: RandomNumberGenerator, Sendable {
    package var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A number in `0..<bound` by the plain remainder (not `Int.random(in:using:)`, whose
    /// rejection sampling would draw a different sequence): the property tests' inputs stay
    /// what they were when they were written.
    package mutating func next(_ bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}

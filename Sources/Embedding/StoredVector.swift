/// A sentence vector as the index stores it: each of its numbers as a signed byte, scaled so
/// that the largest is ±127, then the scale as a little-endian float32. 388 bytes for 384
/// numbers, a quarter of float32's; the closeness it gives differs from float32's by less than
/// a hundredth, far below what separates a relevant file from another.
package enum StoredVector {
    package static func encode(_ vector: [Float]) -> [UInt8] {
        let largest = vector.reduce(Float(0)) { max($0, abs($1)) }
        let scale = largest > 0 ? largest / 127 : 1
        var bytes = vector.map { UInt8(bitPattern: Int8(max(-127, min(127, ($0 / scale).rounded())))) }
        withUnsafeBytes(of: scale.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The closeness (cosine, both of length 1) of `query` and a stored vector; nil when the
    /// bytes are not a vector of `query`'s length.
    package static func closeness(_ query: [Float], _ stored: [UInt8]) -> Float? {
        let n = query.count
        guard stored.count == n + 4 else { return nil }
        let scale = Float(bitPattern: UInt32(stored[n]) | UInt32(stored[n + 1]) << 8 | UInt32(stored[n + 2]) << 16 | UInt32(stored[n + 3]) << 24)
        guard scale.isFinite else { return nil }
        var sum: Float = 0
        for i in 0..<n { sum += query[i] * Float(Int8(bitPattern: stored[i])) }
        return sum * scale
    }
}

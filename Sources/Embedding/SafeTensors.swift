import FoundationEssentials
import Glibc
import SystemCalls

/// A `.safetensors` file mapped into memory, read-only: an 8-byte little-endian header length,
/// a JSON header naming each tensor's type, shape and byte range, then the tensors' bytes. The
/// encoder reads its float32 weights where they lie, so a process that asks one question maps
/// 87 MB and touches only the pages it uses.
///
/// A key design decision: every length and offset of the header is checked against the file
/// before a pointer is made: the file comes from a package or a download, and a short or
/// altered one must be an error, not a read out of bounds.
package final class SafeTensors: @unchecked Sendable {
    // Unchecked: the mapping is read-only and unmapped only in deinit.
    private let base: UnsafeRawPointer
    private let size: Int
    private let dataStart: Int
    private let entries: [String: Entry]
    let name: String

    struct Entry: Decodable {
        var dtype: String?
        var shape: [Int]?
        var data_offsets: [Int]?
    }

    /// Maps the file at `path`, which must be a regular file of the user's or root's that no
    /// one else may write.
    package init(path: String) throws(EmbeddingError) {
        name = String(path.split(separator: "/").last ?? "")
        let (fd, size) = try ModelLocation.openTrusted(path)
        defer { SystemCall.close(fd) }
        self.size = size
        guard size >= 16 else { throw .malformed(file: path, reason: "it is \(size) bytes long") }
        guard let mapped = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), mapped != MAP_FAILED else {
            throw .unusable(file: path, reason: "it cannot be mapped into memory")
        }
        base = UnsafeRawPointer(mapped)
        // Compared as read, not masked: a length past the file is an error, never a smaller one.
        let declared = base.loadUnaligned(as: UInt64.self).littleEndian
        let headerLength = declared < UInt64(size) ? Int(declared) : size
        guard headerLength > 0, 8 + headerLength <= size else {
            munmap(mapped, size)
            throw .malformed(file: path, reason: "its header length \(declared) does not fit its \(size) bytes")
        }
        dataStart = 8 + headerLength
        let header = Data(bytes: base + 8, count: headerLength)
        do {
            entries = try JSONDecoder().decode([String: Entry].self, from: header)
        } catch {
            munmap(mapped, size)
            throw .malformed(file: path, reason: "its header is not JSON of tensors (\(error))")
        }
    }

    deinit { munmap(UnsafeMutableRawPointer(mutating: base), size) }

    /// The float32 tensor `key`, which must have `shape`: a pointer to its elements.
    package func floats(_ key: String, shape: [Int]) throws(EmbeddingError) -> UnsafePointer<Float> {
        guard let e = entries[key], let dtype = e.dtype, let s = e.shape, let offsets = e.data_offsets, offsets.count == 2 else {
            throw .malformed(file: name, reason: "it has no tensor \(key)")
        }
        guard dtype == "F32" else { throw .malformed(file: name, reason: "\(key) is \(dtype), not F32") }
        guard s == shape else { throw .malformed(file: name, reason: "\(key) has shape \(s), not \(shape)") }
        let count = shape.reduce(1, *)
        let start = offsets[0], end = offsets[1]
        guard start >= 0, end >= start, end - start == count * 4, dataStart + end <= size, (dataStart + start) % 4 == 0 else {
            throw .malformed(file: name, reason: "\(key)'s bytes \(start)..<\(end) do not hold \(count) floats within the file")
        }
        return (base + dataStart + start).assumingMemoryBound(to: Float.self)
    }

    /// How many tensors have names that start with `prefix` (the encoder's layers).
    func count(prefix: String) -> Int { entries.keys.count(where: { $0.hasPrefix(prefix) }) }
}

import Glibc

/// The worker's side of the pipe protocol, for `fsindex-fuzz`: the frames `FrameReader` reads
/// from a descriptor, exactly as the worker's loop reads its standard input.
///
/// For the fuzzer and the tests that replay its findings; `package`, like everything here,
/// since no other package builds on these modules.
package enum WorkerRuntimeFuzzing {
    /// Every frame readable from `fd` until its end (a partial frame at the end is left unread,
    /// as the worker leaves it when its parent closes the pipe).
    package static func frames(readingFrom fd: Int32) -> [(kind: UInt8, payload: [UInt8])] {
        let reader = FrameReader(fd: fd)
        var out: [(kind: UInt8, payload: [UInt8])] = []
        while let (kind, payload) = reader.next() { out.append((kind, payload)) }
        return out
    }
}

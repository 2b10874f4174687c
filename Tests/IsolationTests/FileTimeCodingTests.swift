import Crawling
import ExtractionModel
import SystemPackage
import Testing
@testable import Isolation

/// File times outside 1677 to 2262 cross the worker pipe exactly (issue 22, F12).
@Suite("File times on the worker pipe")
struct FileTimeCodingTests {
    static func facts(modification: FileTime, birth: FileTime?) -> FileFacts {
        FileFacts(path: FilePath("/r/a.txt"), type: .regular, size: 1, permissions: 0o644, uid: 0, gid: 0, device: 1, inode: 2,
                  linkCount: 1, accessTime: FileTime(seconds: 1_780_000_000, nanoseconds: 5), modificationTime: modification,
                  changeTime: FileTime(seconds: 1_780_000_000, nanoseconds: 0), birthTime: birth, allocatedSize: 4096)
    }

    @Test("2300-01-01 and year −249 round-trip with their nanoseconds; a time inside the range is sent as before")
    func farTimes() throws {
        let future = FileTime(seconds: 10_413_792_000, nanoseconds: 250_000_000)
        let past = FileTime(seconds: -70_000_000_000, nanoseconds: 999_999_999)
        let far = WorkRequest(facts: Self.facts(modification: future, birth: past), textCap: 10)
        #expect(WorkRequest(decoding: far.encoded()) == far)
        #expect(future.nanosecondsSince1970 == .max)
        #expect(past.nanosecondsSince1970 == .min)

        let near = WorkRequest(facts: Self.facts(modification: FileTime(seconds: 1_780_000_000, nanoseconds: 7), birth: nil), textCap: 10)
        #expect(WorkRequest(decoding: near.encoded()) == near)
        #expect(far.encoded().count == near.encoded().count + 4 * 16)
        // A trailer cut short is refused.
        #expect(WorkRequest(decoding: Array(far.encoded().dropLast())) == nil)
    }

    @Test("nanoseconds since 1970 and back, also before 1970")
    func nanos() {
        for n: Int64 in [0, 1, -1, -1_000_000_000, -1_500_000_000, 1_780_000_000_123_456_789, .max, .min] {
            #expect(FileTime(nanosecondsSince1970: n).nanosecondsSince1970 == n)
        }
        #expect(FileTime(nanosecondsSince1970: -1) == FileTime(seconds: -1, nanoseconds: 999_999_999))
    }
}

import Foundation
import Testing
@testable import Extraction

/// Named time zones from the system's tz database, without Foundation's ICU (the worker's size).
@Suite(.enabled(if: FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/Europe/Paris"), "needs tzdata (/usr/share/zoneinfo)"))
struct ZoneInfoTests {
    @Test func offsetsAcrossDaylightSaving() throws {
        let paris = try #require(ZoneInfo.named("Europe/Paris"))
        #expect(paris.offset(atUTC: 1_795_766_400) == 3600)   // 2026-11-27: winter time
        #expect(paris.offset(atUTC: 1_783_296_000) == 7200)   // 2026-07-06: summer time
        let newYork = try #require(ZoneInfo.named("America/New_York"))
        #expect(newYork.offset(atUTC: 1_795_766_400) == -18_000)
        // 2026-11-27 09:00 in Paris is 08:00 UTC.
        let local = Int64(daysFromCivil(year: 2026, month: 11, day: 27)) * 86_400 + 9 * 3600
        #expect(paris.utc(fromLocal: local) == local - 3600)
        #expect(daysFromCivil(year: 1970, month: 1, day: 1) == 0 && daysFromCivil(year: 2000, month: 3, day: 1) == 11_017)
    }

    @Test func unknownOrHostileNamesAreRefused() {
        #expect(ZoneInfo.named("Mars/Olympus_Mons") == nil)
        #expect(ZoneInfo.named("../../etc/passwd") == nil)
        #expect(ZoneInfo.named("/etc/localtime") == nil)
        #expect(ZoneInfo.parse(Array("TZif2 not really".utf8)) == nil)
        #expect(ZoneInfo.parse([]) == nil)
    }

    /// Foundation's answer (ICU's tz data) and ours agree on every day of a year in several zones.
    @Test(arguments: ["Europe/Paris", "America/St_Johns", "Australia/Lord_Howe", "Asia/Kolkata"])
    func agreesWithFoundation(_ name: String) throws {
        let zone = try #require(ZoneInfo.named(name))
        let foundation = try #require(TimeZone(identifier: name))
        for day in stride(from: 1_767_225_600, to: 1_798_761_600, by: 86_400 / 2) {
            #expect(zone.offset(atUTC: Int64(day)) == foundation.secondsFromGMT(for: Date(timeIntervalSince1970: Double(day))), "\(name) at \(day)")
        }
    }
}

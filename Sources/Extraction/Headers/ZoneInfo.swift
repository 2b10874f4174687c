import Glibc

/// UTC offsets of named time zones, read from the system's tz database (`/usr/share/zoneinfo`,
/// TZif files), for calendar times given with a `TZID`.
///
/// A key design decision: the worker links FoundationEssentials only. Foundation's named time
/// zones come with ICU and its 34 MB of data, which made the worker 57.7 MB instead of 14.3
/// (issue 27's package goal is 60 MB for everything). The TZif files are under `/usr`, which
/// the worker's sandbox may read.
///
/// For example, `ZoneInfo.named("Europe/Paris")?.utc(fromLocal: 1_795_766_400)` is that local
/// wall-clock time (seconds since 1970 as if it were UTC) minus one hour in November.
struct ZoneInfo: Sendable {
    /// Transition instants (UTC seconds), ascending, and the offset that starts at each.
    let transitions: [(at: Int64, offset: Int)]
    /// The offset before the first transition (or always, for a zone without any).
    let initial: Int

    /// The zone of this IANA name, or nil when it is unknown or its file unreadable. Names with
    /// `..` or a leading `/` are refused: a calendar file names the zone.
    static func named(_ name: String, root: String = "/usr/share/zoneinfo") -> ZoneInfo? {
        guard !name.isEmpty, !name.hasPrefix("/"), !name.contains(".."), name.utf8.count < 200 else { return nil }
        return read(root + "/" + name)
    }

    /// The process's own zone: `TZ` when it names one, else `/etc/localtime`; nil (UTC) when
    /// neither can be read.
    static func local() -> ZoneInfo? {
        if let tz = getenv("TZ").map({ String(cString: $0) }), !tz.isEmpty {
            let name = tz.hasPrefix(":") ? String(tz.dropFirst()) : tz
            return name.hasPrefix("/") ? read(name) : named(name)
        }
        return read("/etc/localtime")
    }

    /// The offset (seconds east of UTC) in force at `utc`.
    func offset(atUTC utc: Int64) -> Int {
        var low = 0, high = transitions.count
        while low < high {
            let mid = (low + high) / 2
            if transitions[mid].at <= utc { low = mid + 1 } else { high = mid }
        }
        return low == 0 ? initial : transitions[low - 1].offset
    }

    /// The UTC instant of a local wall-clock time (seconds since 1970 read as if UTC). In a gap
    /// (clocks moved forward) or an overlap (moved back) the offset before the change is used.
    func utc(fromLocal local: Int64) -> Int64 {
        let first = offset(atUTC: local)
        let second = offset(atUTC: local - Int64(first))
        return local - Int64(second)
    }

    static func read(_ path: String) -> ZoneInfo? {
        guard let f = fopen(path, "rb") else { return nil }
        defer { fclose(f) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&buffer, 1, buffer.count, f)
            if n <= 0 { break }
            bytes += buffer[..<n]
            if bytes.count > 1 << 20 { return nil }
        }
        return parse(bytes)
    }

    /// A TZif file (RFC 8536): the 64-bit data block of version 2 and later, else version 1's.
    static func parse(_ b: [UInt8]) -> ZoneInfo? {
        func u32(_ i: Int) -> Int? {
            guard i >= 0, i + 4 <= b.count else { return nil }
            return Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
        }
        func header(_ at: Int) -> (isutc: Int, isstd: Int, leap: Int, time: Int, type: Int, char: Int)? {
            guard at + 44 <= b.count, b[at] == 0x54, b[at + 1] == 0x5A, b[at + 2] == 0x69, b[at + 3] == 0x66,
                  let a = u32(at + 20), let s = u32(at + 24), let l = u32(at + 28), let t = u32(at + 32),
                  let ty = u32(at + 36), let c = u32(at + 40), ty > 0, ty < 256, t < 100_000 else { return nil }
            return (a, s, l, t, ty, c)
        }
        guard let h1 = header(0) else { return nil }
        var at = 0, timeSize = 4, h = h1
        if b[4] >= 0x32 {   // version '2' or later: skip the 32-bit block
            let v1 = 44 + h1.time * 5 + h1.type * 6 + h1.char + h1.leap * 8 + h1.isstd + h1.isutc
            guard let h2 = header(v1) else { return nil }
            at = v1; timeSize = 8; h = h2
        }
        var p = at + 44
        guard p + h.time * (timeSize + 1) + h.type * 6 <= b.count else { return nil }
        var times: [Int64] = []
        for i in 0..<h.time {
            var v: Int64 = 0
            for k in 0..<timeSize { v = v << 8 | Int64(b[p + i * timeSize + k]) }
            if timeSize == 4 { v = Int64(Int32(truncatingIfNeeded: v)) }
            times.append(v)
        }
        p += h.time * timeSize
        let indices = Array(b[p..<(p + h.time)])
        p += h.time
        var offsets: [Int] = []
        for i in 0..<h.type {
            guard let raw = u32(p + i * 6) else { return nil }
            offsets.append(Int(Int32(truncatingIfNeeded: raw)))
        }
        var transitions: [(at: Int64, offset: Int)] = []
        for (i, t) in times.enumerated() {
            guard Int(indices[i]) < offsets.count else { return nil }
            transitions.append((t, offsets[Int(indices[i])]))
        }
        return ZoneInfo(transitions: transitions, initial: offsets[0])
    }
}

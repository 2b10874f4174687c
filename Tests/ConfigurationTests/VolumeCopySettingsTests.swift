import Configuration
import Foundation
import Testing
import Glibc

/// `store_on_volume` (issue 29) and `volume.json`, the record of a volume's portable index copy,
/// which is read from a disk and so parsed as hostile input.
@Suite("Volume copy settings and record")
struct VolumeCopySettingsTests {
    static func volume(uuid: String? = "0b6c1f4e-aaaa", label: String? = "DISK", at point: String = "/run/media/ada/DISK") -> Volume {
        Volume(key: uuid ?? "tmpfs-x", uuid: uuid, label: label, mountPoint: point, source: "/dev/sdb1", fileSystemType: "ext4",
               isNetwork: false, readOnly: false)
    }

    @Test("store_on_volume: off by default, on for all, and per volume by override (the last naming it wins)")
    func storeOnVolume() throws {
        #expect(Settings().volumes.storeOnVolume == false)
        #expect(Settings().volumes.storesOnVolume(Self.volume()) == false)
        var all = Settings()
        try all.apply(toml: "[volumes]\nstore_on_volume = true\n", file: "c.toml")
        #expect(all.volumes.storesOnVolume(Self.volume()))
        var some = Settings()
        try some.apply(toml: """
            [volumes]
            store_on_volume = true
            [[volumes.volume]]
            label = "DISK"
            store_on_volume = false
            [[volumes.volume]]
            uuid = "0B6C1F4E-AAAA"
            index = true
            [[volumes.volume]]
            path = "/mnt/mine"
            index = true
            store_on_volume = true
            """, file: "c.toml")
        #expect(some.volumes.overrides[0] == Settings.Volumes.Override(label: "DISK", storeOnVolume: false))
        // The uuid override says nothing of copies: the label's false stands.
        #expect(!some.volumes.storesOnVolume(Self.volume()))
        #expect(some.volumes.storesOnVolume(Self.volume(label: "OTHER")))
        #expect(some.volumes.storesOnVolume(Self.volume(label: "DISK", at: "/mnt/mine")))
        for (toml, message) in [
            ("[volumes]\nstore_on_volume = \"yes\"\n", "volumes.store_on_volume"),
            ("[[volumes.volume]]\nlabel = \"X\"\nstore_on_volume = 1\n", "volumes.volume.store_on_volume"),
        ] {
            var bad = Settings()
            do {
                try bad.apply(toml: toml, file: "c.toml")
                Issue.record("accepted: \(toml)")
            } catch {
                #expect(error.description.contains(message), "\(error.description)")
            }
        }
    }

    @Test("volume.json: round trip; another format, a relative mount point, garbage are refused with a reason")
    func record() throws {
        let written = Date(timeIntervalSince1970: 1_795_000_000)
        let r = VolumeCopyRecord(uuid: "0b6c", label: "DISK", mountPoint: "/run/media/ada/DISK", written: written)
        let bytes = Array(try r.encoded())
        #expect(try VolumeCopyRecord.decode(bytes).get() == r)
        #expect(String(decoding: bytes, as: UTF8.self).contains("\"written\" : \"2026-"))
        func refusal(_ json: String) -> String? {
            if case .failure(let why) = VolumeCopyRecord.decode(Array(json.utf8)) { return why.description }
            return nil
        }
        #expect(refusal(#"{"format":2,"mountPoint":"/m","written":"2026-11-28T01:00:00Z"}"#)?.contains("format 2") == true)
        #expect(refusal(#"{"format":1,"mountPoint":"m","written":"2026-11-28T01:00:00Z"}"#)?.contains("no absolute mount point") == true)
        #expect(refusal(#"{"format":1,"mountPoint":"/m"}"#)?.contains("not a valid record") == true)
        #expect(refusal("\u{0}\u{1}garbage")?.contains("not a valid record") == true)
        #expect(refusal(#"{"format":1,"mountPoint":"/m","written":"2026-11-28T01:00:00Z"}"#) == nil)
    }

    @Test("ownership: only this user's, writable by no one else, of the right type")
    func ownership() {
        var st = stat()
        st.st_uid = geteuid()
        st.st_mode = S_IFDIR | 0o700
        #expect(VolumeCopyRecord.ownershipProblem(st, name: "d", directory: true) == nil)
        #expect(VolumeCopyRecord.ownershipProblem(st, name: "d", directory: false)?.contains("not a regular file") == true)
        st.st_mode = S_IFDIR | 0o770
        #expect(VolumeCopyRecord.ownershipProblem(st, name: "d", directory: true)?.contains("writable by its group or others") == true)
        st.st_mode = S_IFDIR | 0o702
        #expect(VolumeCopyRecord.ownershipProblem(st, name: "d", directory: true)?.contains("writable by its group or others") == true)
        st.st_mode = S_IFLNK | 0o777
        #expect(VolumeCopyRecord.ownershipProblem(st, name: "d", directory: true)?.contains("not a folder") == true)
        st.st_mode = S_IFREG | 0o644
        st.st_uid = geteuid() &+ 1
        #expect(VolumeCopyRecord.ownershipProblem(st, name: "f", directory: false)?.contains("owned by uid") == true)
    }
}

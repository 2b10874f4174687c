import MemberwiseInit
import TOMLKit

// `[volumes]`: which mounted file systems fsindexd indexes, each in an index of its own
// (issue 29), and the overrides for one volume named by UUID, label, source or mount point.
extension Settings {
    /// `[volumes]`: file systems mounted while fsindexd runs (USB drives, SD cards, disk
    /// images, network shares) and how they are indexed.
    package struct Volumes: Sendable, Hashable {
        /// Which mounts are indexed without an override.
        package enum Policy: String, Sendable, Hashable, CaseIterable {
            /// What `MountFacts` calls removable: a removable block device, or a mount under
            /// `/media/` or `/run/media/` (where desktops mount USB drives and SD cards).
            case removable
            /// Every mount of a block device, and those under `/media/` or `/run/media/`,
            /// except the system's own (`/`, `/boot`, `/usr`, `/var`, … and what holds the home
            /// folder, which the home index covers).
            case all
            /// None, unless an override names it.
            case none
        }

        /// One `[[volumes.volume]]`: a volume named by one or more of `uuid`, `label`, `source`
        /// and `path` (all given must match), and what to do with it.
        @MemberwiseInit
        package struct Override: Sendable, Hashable {
            package var uuid: String? = nil
            package var label: String? = nil
            /// What was mounted, as `/proc/self/mountinfo` says (`server:/export`, `//nas/share`).
            package var source: String? = nil
            /// The mount point.
            package var path: String? = nil
            /// Index it (true) or never (false); nil: as the policy says.
            package var index: Bool? = nil
            /// Keep a portable copy of its index on it (true) or not (false); nil: as
            /// `store_on_volume` says.
            package var storeOnVolume: Bool? = nil
        }

        package var index: Policy = .removable
        package var overrides: [Override] = []
        /// Whether fsindexd writes a copy of each volume's index on the volume, in `.fsindex/`
        /// (when it is mounted writable), and seeds a volume's index from such a copy. Off by
        /// default: writing on someone's drive is a choice.
        package var storeOnVolume = false
        package init() {}

        /// `storeOnVolume` for one volume: the last override naming it that says, else the default.
        package func storesOnVolume(_ volume: Volume) -> Bool {
            overrides.last { $0.storeOnVolume != nil && $0.matches(volume) }?.storeOnVolume ?? storeOnVolume
        }
    }

    /// Reads one `volumes.` key; false when `full` is not one.
    mutating func applyVolumes(_ full: String, _ v: any TOMLValueConvertible, _ r: KeyReader) throws(SettingsError) -> Bool {
        switch full {
        case "volumes.index": volumes.index = try r.choice(v, full)
        case "volumes.volume": volumes.overrides = try r.volumeOverrides(v)
        case "volumes.store_on_volume": volumes.storeOnVolume = try r.bool(v, full)
        default: return false
        }
        return true
    }
}

extension KeyReader {
    /// `[[volumes.volume]]` tables: each names a volume (uuid, label, source or path) and says
    /// `index = true` or `false`, and/or `store_on_volume = true` or `false`.
    func volumeOverrides(_ v: any TOMLValueConvertible) throws(SettingsError) -> [Settings.Volumes.Override] {
        let shape = "[[volumes.volume]] tables, each with uuid, label, source or path, and index or store_on_volume = true or false"
        guard let array = v.array else { throw bad("volumes.volume", shape) }
        var out: [Settings.Volumes.Override] = []
        for element in array {
            guard let t = element.table else { throw bad("volumes.volume", shape) }
            var o = Settings.Volumes.Override()
            for k in t.keys {
                let value = t[k]!
                let key = "volumes.volume." + k
                switch k {
                case "uuid", "label", "source", "path":
                    guard let s = value.string, !s.isEmpty else { throw bad(key, "a non-empty string") }
                    switch k {
                    case "uuid": o.uuid = s
                    case "label": o.label = s
                    case "source": o.source = s
                    default:
                        guard s.hasPrefix("/") else { throw bad(key, "an absolute mount point such as \"/mnt/share\"") }
                        o.path = s.count > 1 && s.hasSuffix("/") ? String(s.dropLast()) : s
                    }
                case "index": o.index = try bool(value, key)
                case "store_on_volume": o.storeOnVolume = try bool(value, key)
                default: throw unknown(key)
                }
            }
            guard o.uuid != nil || o.label != nil || o.source != nil || o.path != nil else {
                throw bad("volumes.volume", "a uuid, label, source or path in every [[volumes.volume]]")
            }
            guard o.index != nil || o.storeOnVolume != nil else {
                throw bad("volumes.volume.index", "index = true or false in every [[volumes.volume]] (or store_on_volume = true or false)")
            }
            out.append(o)
        }
        return out
    }
}

import Attributes
import Configuration
import Crawling
import Dispatch
import Indexing
import MemberwiseInit
import SystemCalls
import SystemPackage

/// Compares the index with the disk, entry by entry: `fsindex check`.
///
/// The index promises to hold exactly the entries a crawl would find under each root (the same
/// exclusions: hidden names, globs, `.noindex` folders, other file systems), each with the stamp
/// (size, mtime, ctime, inode) the disk shows now. This walks each root once and reads the stored
/// stamps once, so it costs what an incremental crawl costs without extracting anything, and it
/// changes nothing: it is the judge that the watcher-faults and crash-consistency harnesses, and
/// a user who suspects the index, use to tell "in step" from "drifted".
///
/// For example:
/// ```swift
/// let result = try IndexCheck(store: store, settings: settings).check(roots: ["/home/ada/Documents"])
/// for d in result.differences { print(d.kind, d.path) }
/// ```
///
/// Items inside files (the messages of an mbox) go with their file and are not compared; a root
/// that does not exist on disk makes every item of it `extra`.
@MemberwiseInit
package struct IndexCheck: Sendable {
    package let store: IndexStore
    package let settings: Settings

    /// One entry where the index and the disk disagree.
    package struct Difference: Sendable, Hashable {
        package enum Kind: String, Sendable, Hashable, Codable {
            /// On disk, not in the index.
            case missing
            /// In the index, not on disk.
            case extra
            /// In both, but the index holds an older size, time or inode.
            case stale
        }
        package var kind: Kind
        package var path: [UInt8]
    }

    /// What a check found.
    package struct Result: Sendable, Hashable {
        /// Sorted by path, then kind.
        package var differences: [Difference] = []
        /// Entries found on disk under the roots.
        package var entriesOnDisk = 0
        /// Items of the roots in the index (items inside files not counted).
        package var itemsInIndex = 0
        /// Folders that could not be listed (their entries are not compared), as printable text.
        package var problems: [String] = []
        package var seconds: Double = 0
        package var inStep: Bool { differences.isEmpty }
    }

    /// Checks the given roots, or every root the index holds when `roots` is empty.
    package func check(roots: [FilePath] = []) throws(UpdateError) -> Result {
        let start = DispatchTime.now()
        let targets: [FilePath]
        if roots.isEmpty {
            do { targets = try store.domains().map { FilePath(bytes: $0.root) } } catch { throw .index(error) }
        } else {
            targets = roots
        }
        var result = Result()
        for root in targets {
            try check(root: root, into: &result)
        }
        result.differences.sort { a, b in
            a.path == b.path ? a.kind.rawValue < b.kind.rawValue : a.path.lexicographicallyPrecedes(b.path)
        }
        result.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return result
    }

    private func check(root: FilePath, into result: inout Result) throws(UpdateError) {
        let stored: [[UInt8]: StoredStamp]
        do { stored = try store.stamps(domain: IndexUpdater.domainName(root)) } catch { throw .index(error) }
        result.itemsInIndex += stored.count
        var seen = Set<[UInt8]>()
        var problems: [String] = []
        var diffs: [Difference] = []
        var onDisk = 0
        var options = settings.walkOptions
        // A files-only root holds its files alone: its subfolders are not missing.
        options.filesOnly = ((try? store.meta(IndexUpdater.depthKey(IndexUpdater.domainName(root)))) ?? nil) == IndexRoot.Depth.filesOnly.rawValue
        do {
            try DirectoryWalker(root: root, options: options).walk({ facts in
                let key = facts.pathBytes
                seen.insert(key)
                onDisk += 1
                guard let old = stored[key] else {
                    diffs.append(Difference(kind: .missing, path: key))
                    return
                }
                let now = FileStamp(facts)
                if old.stamp != now { diffs.append(Difference(kind: .stale, path: key)) }
            }, problem: { p in
                problems.append("\(ByteString.escaped(p.path.bytes)): \(p.reason)")
            })
        } catch {
            // The root itself is not there (or cannot be read): everything the index holds for it
            // is extra.
            problems.append("\(ByteString.escaped(root.bytes)): \(error.reason)")
        }
        for key in stored.keys where !seen.contains(key) {
            diffs.append(Difference(kind: .extra, path: key))
        }
        result.entriesOnDisk += onDisk
        result.differences += diffs
        result.problems += problems
    }
}

import ArgumentParser
import Attributes
import CommandSupport
import Configuration
import Crawling
import ExtractionModel
import Indexing
import SystemCalls
import SystemPackage
import Updating
import Glibc

extension FSIndexCommand {
    /// `fsindex tag PATH... +work -draft`: edits the tags people see in Dolphin (and that
    /// `fsfind tag:work` finds), kept in each file's `user.xdg.tags` extended attribute.
    ///
    /// Decisions: a symlink is refused, because Linux keeps `user.` attributes only on files and
    /// folders (the link itself cannot hold tags) and following it would tag a file that may lie
    /// outside the indexed tree, under a name the user did not type. When fsindexd runs, the
    /// change reaches the index through its `IN_ATTRIB` event; when it does not, this command
    /// updates the index item itself (attributes only, nothing is extracted again), so that
    /// `fsfind tag:work` is right at once either way.
    struct Tag: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show, add or remove the tags of files (user.xdg.tags, as Dolphin writes them).",
            discussion: """
                +TAG adds a tag, -TAG removes one; with neither, the tags are printed. Tags are
                compared ignoring case, kept in their order, never twice; a tag cannot hold a comma.
                The index follows at once: through fsindexd when it runs, else updated here.

                Examples:
                  fsindex tag report.pdf                    print its tags
                  fsindex tag report.pdf notes.md +work     tag both "work"
                  fsindex tag report.pdf +final -draft      add one, remove another
                  fsfind tag:work                           find them

                Exit status: 0 done, 2 a file could not be tagged (the others were).
                """)

        @OptionGroup var store: IndexOptions

        @Argument(parsing: .allUnrecognized,
                  help: ArgumentHelp("Files and folders, then +TAG to add and -TAG to remove.", valueName: "path|+tag|-tag"))
        var items: [String] = []

        func run() throws {
            try ToolRun.reporting("fsindex") {
                let request: TagRequest
                do throws(TagError) { request = try TagRequest(items) } catch {
                    throw CommandFailure(error.message(nil))
                }
                var failed = false
                var changed: [FilePath] = []
                for argument in request.paths {
                    let path = FilePath(bytes: PathArgument.absolute(argument))
                    do throws(TagError) {
                        let (tags, didChange) = try TagEditor.apply(request, to: path)
                        if didChange { changed.append(path) }
                        Output.standardOutput.write(ArgumentBytes.display(argument) + ": "
                                                    + (tags.isEmpty ? "(no tags)" : tags.map(Output.field).joined(separator: ", ")) + "\n")
                    } catch {
                        Output.error("fsindex", error.message(ArgumentBytes.display(argument)))
                        failed = true
                    }
                }
                Output.standardOutput.flush()
                if !changed.isEmpty { try updateIndex(changed) }
                if failed { throw ExitCode(2) }
            }
        }

        /// Without fsindexd, updates the items of the changed files that are inside an indexed
        /// root (attributes only). An index that does not exist yet is left alone.
        private func updateIndex(_ paths: [FilePath]) throws {
            let location = store.location()
            guard location.exists, try connectDaemon(location) == nil else { return }
            do {
                let settings = try store.settings()
                let (indexStore, _) = try IndexStore.openRecovering(location: location)
                let roots = try indexStore.domains().map { FilePath(bytes: $0.root) }
                let live = LiveIndexer(updater: IndexUpdater(store: indexStore, settings: settings, problem: { p in
                    Output.error("fsindex", p.description)
                }), roots: roots)
                let inside = paths.filter { live.root(of: $0) != nil }
                if !inside.isEmpty { _ = try live.apply(inside.map { .attributesChanged($0) }) }
            } catch {
                throw CommandFailure("the tags were written, but the index could not be updated (\(error)); run `fsindex index` to catch up")
            }
        }
    }
}

/// What `fsindex tag` was asked: the paths, and the tags to add and remove.
struct TagRequest {
    var paths: [String] = []
    var add: [String] = []
    var remove: [String] = []
    var isEdit: Bool { !add.isEmpty || !remove.isEmpty }

    init(_ items: [String]) throws(TagError) {
        for item in items {
            if let first = item.first, first == "+" || first == "-" {
                // The tag's bytes as given: user.xdg.tags is UTF-8 text, so bytes that are not
                // are refused, not written as the code points that carry them in an argument
                // (U+10FFxx; issue 22, F18).
                guard let tag = String(validating: ArgumentBytes.bytes(of: String(item.dropFirst())), as: UTF8.self) else {
                    throw .notUTF8(ArgumentBytes.display(item))
                }
                guard !tag.isEmpty else { throw .emptyTag(item) }
                guard !tag.contains(",") else { throw .comma(tag) }
                if first == "+" { add.append(tag) } else { remove.append(tag) }
            } else {
                paths.append(item)
            }
        }
        guard !paths.isEmpty else { throw .noPath }
    }
}

/// Reads and writes one file's `user.xdg.tags`.
enum TagEditor {
    /// Applies `request` to `path`; returns the tags it has now and whether they changed.
    static func apply(_ request: TagRequest, to path: FilePath) throws(TagError) -> (tags: [String], changed: Bool) {
        let facts: FileFacts
        do { facts = try FileFacts.read(path) } catch { throw .missing(error) }
        if facts.type == .symlink { throw .symlink }
        let name = ExtendedAttributeMetadata.tagsName
        let read = ExtendedAttributes.read(path, names: [name])
        if let problem = read.problems.first { throw .attribute(problem) }
        let tags = ExtendedAttributeMetadata.parseTags(String(decoding: read.values[name] ?? [], as: UTF8.self))
        guard request.isEdit else { return (tags, false) }
        let edited = ExtendedAttributeMetadata.edit(tags, adding: request.add, removing: request.remove)
        guard edited != tags || (read.values[name] != nil && edited.isEmpty) else { return (tags, false) }
        do throws(ExtendedAttributeError) {
            if edited.isEmpty {
                try ExtendedAttributes.remove(path, name: name)
            } else {
                try ExtendedAttributes.write(path, name: name, value: Array(ExtendedAttributeMetadata.formatTags(edited).utf8))
            }
        } catch {
            throw .attribute(error)
        }
        return (edited, true)
    }
}

/// Why `fsindex tag` could not do what it was asked, with what to do about it.
enum TagError: Error {
    case noPath
    case emptyTag(String)
    case comma(String)
    case notUTF8(String)
    case missing(Errno)
    case symlink
    case attribute(ExtendedAttributeError)

    /// The message for `path` (nil for errors of the request itself).
    func message(_ path: String?) -> String {
        let p = path ?? "?"
        return switch self {
        case .noPath: "name at least one file: fsindex tag PATH... [+TAG] [-TAG]"
        case .emptyTag(let item): "\"\(item)\" names no tag: write +work to add, -work to remove"
        case .notUTF8(let item): "\(item) holds bytes that are not UTF-8 text, which tags (user.xdg.tags) are; give the tag in UTF-8"
        case .comma(let tag): "the tag \"\(tag)\" holds a comma, which separates tags in user.xdg.tags; give each tag on its own: +a +b"
        case .missing(let e): "\(p): cannot read it (\(e.description))"
        case .symlink: "\(p) is a symbolic link: Linux keeps tags (extended attributes) only on files and folders; tag the file it points to"
        case .attribute(let e):
            switch e.errno?.rawValue {
            case ENOTSUP, EOPNOTSUPP: "the file system of \(p) does not store tags (extended attributes); keep the file on one that does (ext4, xfs, btrfs, tmpfs), or mount it with user_xattr"
            case EPERM, EACCES: "\(p): not allowed to change its tags (\(e.errno!.description)): only its owner or root may; check with ls -l"
            default: "\(p): \(e.description)"
            }
        }
    }
}

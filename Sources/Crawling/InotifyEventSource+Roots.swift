import SystemPackage

/// Roots that go away and come back: the watcher's side of `RootGuard`.
extension WatchState {
    /// A root went (its watch said so, or the guard found its path leads nowhere): its folders
    /// are no longer watched, the consumer is told, and the guard waits for it. It may be back
    /// already (`mv root x && mv x root` before the events were read), so the guard looks at once.
    mutating func rootGone(_ root: FilePath, recheck: Bool = true) {
        if let r = roots[root] { missing[root] = r }
        removeRoot(root, dropQueued: false)
        emit(.rootGone(root), wd: -1)
        rootGuard?.markMissing(root)
        if recheck { checkRoots() }
    }

    /// Asks the guard what changed for the roots and acts on it.
    mutating func checkRoots() {
        guard rootGuard != nil else { return }
        for finding in rootGuard!.check() {
            switch finding {
            case .gone(let root):
                if roots[root] != nil { rootGone(root, recheck: false) }
            case .back(let root):
                rootReturned(root)
            case .touched(let root):
                // A folder above it was renamed and back: events meanwhile named paths that did
                // not exist. Slow, never wrong.
                if roots[root] != nil { emit(.rescan(root, recursive: true), wd: -1) }
            }
        }
    }

    /// A missing root is a folder again: watch it (before the consumer compares it, so nothing
    /// created meanwhile is missed) and say so. One that cannot be watched stays awaited.
    mutating func rootReturned(_ root: FilePath) {
        guard let saved = missing[root] else { return }
        switch addRoot(root, options: saved.options) {
        case .success:
            emit(.rootReturned(root), wd: -1)
        case .failure:
            missing[root] = saved
            rootGuard?.markMissing(root)
        }
    }

    /// Stops watching and awaiting a root (removed from the configuration).
    mutating func dropRoot(_ root: FilePath) {
        if roots[root] != nil { removeRoot(root) }
        missing[root] = nil
        rootGuard?.forget(root)
    }
}

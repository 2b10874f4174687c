extension Array where Element == UInt8 {
    /// Whether this path (bytes) is strictly below `folder`, by whole components: `/a/b/c` is
    /// below `/a/b`, `/a/bc` is not, and every absolute path but `/` is below `/`. `folder` has
    /// no trailing slash unless it is `/`. One definition for every module that compares paths
    /// as bytes (the index, the watcher, the desktop's labels, the agent's scopes).
    package func isBelow(_ folder: [UInt8]) -> Bool {
        guard count > folder.count, starts(with: folder) else { return false }
        return folder.last == UInt8(ascii: "/") || self[folder.count] == UInt8(ascii: "/")
    }
}

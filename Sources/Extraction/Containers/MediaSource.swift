import ExtractionModel
/// Random access to a media file: the bytes already read, and the rest through the open file.
///
/// Every read is bounded (`maxRead`), so a header that claims a huge segment costs at most that.
package struct MediaSource {
    /// The first bytes of the file (`ExtractionInput.bytes`).
    let head: [UInt8]
    /// The size of the whole file.
    let size: Int
    let file: ExtractionFile?

    /// The most bytes one read returns (a metadata block larger than this is skipped).
    static let maxRead = 16 << 20

    package init(head: [UInt8], size: Int, file: ExtractionFile?) {
        self.head = head
        self.file = file
        self.size = file == nil ? head.count : max(size, head.count)
    }

    /// Up to `count` bytes at `offset`; fewer at the end of the file, none past it or when the
    /// file cannot be read.
    func bytes(_ offset: Int, _ count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let n = min(count, Self.maxRead, size - offset)
        if offset + n <= head.count { return Array(head[offset..<(offset + n)]) }
        guard let file else { return offset < head.count ? Array(head[offset...]) : [] }
        return (try? file.read(at: Int64(offset), count: n)) ?? []
    }
}

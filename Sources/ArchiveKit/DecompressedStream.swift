import CArchive
import Foundation

/// The zstd layer of an archive, read through libarchive's raw format and handed to the
/// tar reader block by block. libarchive's tar reader stops at the end-of-archive blocks
/// and never looks at what follows; reading the decompressed stream here lets the reader
/// see those bytes, without a second pass over the archive.
final class DecompressedStream {
    let archive: OpaquePointer
    /// Why the zstd layer could not be read, if it could not: the tar reader only sees -1.
    private(set) var failure: ArchiveError?
    /// Decompressed bytes handed to the tar reader so far.
    private(set) var delivered: Int64 = 0
    /// The last two blocks handed over, with where each starts in the stream: the tar
    /// reader may stop in the block before the last one.
    private var blocks: [(start: Int64, buffer: UnsafeMutableRawBufferPointer, count: Int)]
    private var nextBlock = 0
    private var isAtEnd = false

    init(archive: OpaquePointer, blockSize: Int = 1 << 20) {
        self.archive = archive
        blocks = (0..<2).map { _ in
            (0, UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16), 0)
        }
    }

    deinit {
        for block in blocks { block.buffer.deallocate() }
    }

    /// `archive_read_open` on `tar` with this stream as its only input.
    func open(_ tar: OpaquePointer) -> Int32 {
        let context = Unmanaged.passUnretained(self).toOpaque()
        return archive_read_open(tar, context, nil, { _, context, buffer in
            guard let context, let buffer else { return -1 }
            let stream = Unmanaged<DecompressedStream>.fromOpaque(context).takeUnretainedValue()
            guard let block = stream.nextBlockForTar() else { return -1 }
            buffer.pointee = UnsafeRawPointer(block.baseAddress)
            return block.count
        }, nil)
    }

    private func nextBlockForTar() -> UnsafeRawBufferPointer? {
        let index = nextBlock
        guard let count = read(into: blocks[index].buffer) else { return nil }
        blocks[index].start = delivered
        blocks[index].count = count
        delivered += Int64(count)
        nextBlock = 1 - index
        return UnsafeRawBufferPointer(rebasing: blocks[index].buffer[0..<count])
    }

    /// Fills `buffer` from the zstd layer; 0 at its end, nil on failure (kept in `failure`).
    private func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        if isAtEnd { return 0 }
        while true {
            let count = archive_read_data(archive, buffer.baseAddress, buffer.count)
            if count > 0 { return count }
            if count == 0 {
                isAtEnd = true
                return 0
            }
            if count == Int(ARCHIVE_RETRY) { continue }
            failure = ArchiveReader.readFailure(of: archive)
            return nil
        }
    }

    /// Checks what follows tar's end-of-archive blocks, which end at `position`: zero
    /// bytes up to the next 10240-byte record boundary at most, as tar writers pad, and
    /// nothing else. Reads no further than that boundary, so trailing data costs nothing.
    func checkTrailer(after position: Int64) throws {
        let record: Int64 = 10240
        let limit = (position + record - 1) / record * record
        var offset = position
        // What the tar reader was handed but did not consume.
        while offset < delivered {
            guard let block = blocks.first(where: { $0.start <= offset && offset < $0.start + Int64($0.count) }) else {
                throw ArchiveError.corrupt("the bytes after the end-of-archive blocks could not be checked")
            }
            let from = Int(offset - block.start)
            if let bad = block.buffer[from..<block.count].firstIndex(where: { $0 != 0 }) {
                throw trailingData(at: block.start + Int64(bad))
            }
            offset = block.start + Int64(block.count)
        }
        if offset > limit { throw trailingData(at: limit) }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(record), alignment: 16)
        defer { scratch.deallocate() }
        while true {
            let window = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<Int(min(record, limit - offset + 1))])
            guard let count = read(into: window) else { throw failure ?? ArchiveError.corrupt("unknown error") }
            if count == 0 { return }
            if let bad = window[0..<count].firstIndex(where: { $0 != 0 }) {
                throw trailingData(at: offset + Int64(bad))
            }
            offset += Int64(count)
            if offset > limit { throw trailingData(at: limit) }
        }
    }

    private func trailingData(at offset: Int64) -> ArchiveError {
        .corrupt("data after the end-of-archive blocks, at byte \(offset) of the tar stream")
    }
}

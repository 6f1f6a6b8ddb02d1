import ArchiveKit
import Foundation
import FileNames

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// Reads a file of this run (never the source database) from start to end in large
/// blocks, for hashing and for streaming into the bundle.
package enum FileStreaming {
    static let blockSize = 1 << 20

    /// Calls `body` with each block of the file in order; returns the number of bytes.
    /// Stops with `.interrupted` as soon as `isCancelled` says so.
    ///
    /// With `mark`, the file is still being written: each block is read only once the
    /// copy has got past it, and exactly `size` bytes are read (a longer copy is cut to
    /// that size after it is written). Throws `CopyWatermark.Abandoned` when the copy is
    /// abandoned. With `offset`, the file is read from there (and `size` counts from there).
    package static func forEachBlock(
        of path: String, from offset: Int64 = 0, size: Int64? = nil, following mark: CopyWatermark? = nil,
        isCancelled: () -> Bool, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int64 {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StewardError(.inputOutput, "cannot read \(path): \(SystemCall.message(errno))")
        }
        // Read-only: close() has nothing to report that matters here.
        defer { close(descriptor) }
        // Advice only; a kernel that ignores it reads the file just the same.
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
        if offset > 0, lseek(descriptor, off_t(offset), SEEK_SET) < 0 {
            throw StewardError(.inputOutput, "cannot read \(path): \(SystemCall.message(errno))")
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 4096)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            if isCancelled() { throw StewardError(.interrupted, "interrupted; no bundle was written") }
            var wanted = blockSize
            if let size {
                if total >= size { break }
                wanted = Int(min(Int64(blockSize), size - total))
            }
            if let mark, try !mark.wait(for: total + Int64(wanted), isStopped: isCancelled) {
                throw StewardError(.interrupted, "interrupted; no bundle was written")
            }
            let count = SystemCall.readSome(descriptor, UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted]))
            if count < 0 {
                throw StewardError(.inputOutput, "cannot read \(path): \(SystemCall.message(Int32(-count)))")
            }
            if count == 0 { break }
            total += Int64(count)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return total
    }

    /// The SHA-256 of the whole file, and the number of bytes read.
    package static func sha256(of path: String, isCancelled: () -> Bool = { false }) throws -> (sha256: String, size: Int64) {
        let hasher = try SHA256Hasher()
        let size = try forEachBlock(of: path, isCancelled: isCancelled) { hasher.update($0) }
        return (try hasher.finalize(), size)
    }
}

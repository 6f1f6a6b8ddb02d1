import ArchiveKit
import Foundation
import FileNames

#if canImport(Glibc)
import Glibc
#endif

/// Reads a file of this run (never the source database) from start to end in large
/// blocks, for hashing and for streaming into the bundle.
enum FileStreaming {
    static let blockSize = 1 << 20

    /// Calls `body` with each block of the file in order; returns the number of bytes.
    /// Stops with `.interrupted` as soon as `isCancelled` says so.
    static func forEachBlock(
        of path: String, isCancelled: () -> Bool, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> Int64 {
        let descriptor = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StewardError(.inputOutput, "cannot read \(path): \(SystemCall.message(errno))")
        }
        // Read-only: close() has nothing to report that matters here.
        defer { close(descriptor) }
        // Advice only; a kernel that ignores it reads the file just the same.
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 4096)
        defer { buffer.deallocate() }
        var total: Int64 = 0
        while true {
            if isCancelled() { throw StewardError(.interrupted, "interrupted; no bundle was written") }
            let count = SystemCall.readSome(descriptor, buffer)
            if count < 0 {
                throw StewardError(.inputOutput, "cannot read \(path): \(SystemCall.message(Int32(-count)))")
            }
            if count == 0 { break }
            total += Int64(count)
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return total
    }
}

/// The SHA-256 of a file, computed on a thread of its own (`BackgroundWork`) so that it
/// overlaps with the checks SQLite runs on the same file.
enum FileDigest {
    struct Digest: Sendable {
        let size: Int64
        let sha256: String
        /// The first 100 bytes: the database header as it will be bundled.
        let header: [UInt8]
    }

    /// Starts hashing `path`; stops early on `cancellation` or when the work is cancelled.
    static func start(path: String, cancellation: Cancellation) -> BackgroundWork<Digest> {
        BackgroundWork { stop in
            try compute(path: path) { cancellation.isCancelled || stop.isCancelled }
        }
    }

    static func compute(path: String, isCancelled: () -> Bool) throws -> Digest {
        let hasher = try SHA256Hasher()
        var header: [UInt8] = []
        let size = try FileStreaming.forEachBlock(of: path, isCancelled: isCancelled) { block in
            if header.count < 100 { header += block.prefix(100 - header.count) }
            hasher.update(block)
        }
        return Digest(size: size, sha256: try hasher.finalize(), header: header)
    }
}

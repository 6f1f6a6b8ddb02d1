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

/// The SHA-256 of a file, computed on a thread of its own so that it overlaps with the
/// checks SQLite runs on the same file.
final class BackgroundFileDigest: @unchecked Sendable {
    struct Digest {
        let size: Int64
        let sha256: String
        /// The first 100 bytes: the database header as it will be bundled.
        let header: [UInt8]
    }

    private let path: String
    private let cancellation: Cancellation
    private let stop = Cancellation()
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<Digest, Error>?
    private var isWaited = false

    init(path: String, cancellation: Cancellation) {
        self.path = path
        self.cancellation = cancellation
    }

    func start() {
        Thread.detachNewThread { [self] in
            outcome = Result { try compute() }
            done.signal()
        }
    }

    /// Asks the thread to stop early (its result is not needed any more).
    func cancel() {
        stop.cancel(reason: "not needed")
    }

    /// Waits for the thread and returns its result.
    func wait() throws -> Digest {
        if !isWaited {
            done.wait()
            isWaited = true
        }
        guard let outcome else { throw StewardError(.internal, "the hashing thread ended without a result") }
        return try outcome.get()
    }

    private func compute() throws -> Digest {
        let hasher = try SHA256Hasher()
        var header: [UInt8] = []
        let size = try FileStreaming.forEachBlock(of: path, isCancelled: { [cancellation, stop] in
            cancellation.isCancelled || stop.isCancelled
        }) { block in
            if header.count < 100 { header += block.prefix(100 - header.count) }
            hasher.update(block)
        }
        return Digest(size: size, sha256: try hasher.finalize(), header: header)
    }
}

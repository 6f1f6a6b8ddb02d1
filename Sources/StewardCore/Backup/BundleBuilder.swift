import ArchiveKit
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Writes a bundle (design.md, "Bundle format", version 1) into an open file: the
/// manifest, the checksum list, then the payload streamed from its file. The same
/// manifest and payload give the same bytes.
struct BundleBuilder {
    struct Output {
        let sizeBytes: Int64
        let sha256: String
    }

    let compressionLevel: Int
    let threads: Int
    let cancellation: Cancellation
    /// Test hook: the write that would go past this many bytes fails with ENOSPC.
    var failWritesAfterBytes: Int64? = nil

    /// Writes to `descriptor` (which stays the caller's: it syncs and closes it).
    /// `payloadPath` must hold exactly the size and SHA-256 the manifest's only file says.
    func write(
        manifest: BundleManifest, payloadPath: String, to descriptor: Int32, outputName: String,
        progress: (Int64, Int64) -> Void
    ) throws -> Output {
        guard let payload = manifest.files.first, manifest.files.count == 1 else {
            throw StewardError(.internal, "a version 1 bundle holds exactly one payload file")
        }
        let sink = try Sink(descriptor: descriptor, failAfter: failWritesAfterBytes, cancellation: cancellation)
        let modificationTime = Self.seconds(ofTimestamp: manifest.createdAt)
        do {
            let writer = try ArchiveWriter(
                options: .init(compressionLevel: compressionLevel, threads: threads, modificationTime: modificationTime)
            ) { try sink.write($0) }
            try writer.addFile(name: BundleManifest.manifestEntry, contents: try manifest.encoded())
            try writer.addFile(name: BundleManifest.checksumEntry, contents: manifest.checksumList())
            try writer.beginFile(name: payload.path, size: payload.size)
            var streamed: Int64 = 0
            let cancellation = self.cancellation
            _ = try FileStreaming.forEachBlock(of: payloadPath, isCancelled: { cancellation.isCancelled }) { block in
                try writer.write(block)
                streamed += Int64(block.count)
                progress(streamed, payload.size)
            }
            try writer.endFile()
            try writer.finish()
        } catch is Sink.Cancelled {
            throw StewardError(.interrupted, "interrupted by \(cancellation.reason ?? "a signal"); no bundle was written")
        } catch let failure as Sink.Failure {
            let kind: StewardError.Kind = failure.code == ENOSPC || failure.code == EDQUOT ? .inputOutput : SystemCall.outputKind(failure.code)
            throw StewardError(kind, "cannot write \(outputName): \(SystemCall.message(failure.code))")
        } catch let error as ArchiveError {
            if case .sizeMismatch = error {
                throw StewardError(.inputOutput, "the copy changed while it was bundled: \(error)")
            }
            throw StewardError(.inputOutput, "cannot write \(outputName): \(error)")
        } catch let error as StewardError where error.kind == .interrupted {
            throw StewardError(.interrupted, "interrupted by \(cancellation.reason ?? "a signal"); no bundle was written")
        }
        return Output(sizeBytes: sink.bytesWritten, sha256: try sink.hasher.finalize())
    }

    /// `2026-11-30T04:15:00Z` → seconds since 1970; 0 when it does not parse.
    static func seconds(ofTimestamp text: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970) } ?? 0
    }

    /// Where the compressed stream goes: the file, and a SHA-256 of the whole bundle.
    final class Sink {
        struct Failure: Error {
            let code: Int32
        }

        struct Cancelled: Error {}

        let descriptor: Int32
        let hasher: SHA256Hasher
        let failAfter: Int64?
        let cancellation: Cancellation
        private(set) var bytesWritten: Int64 = 0

        init(descriptor: Int32, failAfter: Int64?, cancellation: Cancellation) throws {
            self.descriptor = descriptor
            self.hasher = try SHA256Hasher()
            self.failAfter = failAfter
            self.cancellation = cancellation
        }

        func write(_ buffer: UnsafeRawBufferPointer) throws {
            // zstd keeps compressing what it was given after the last block was read (for
            // seconds at high levels); each piece of output it hands over is a chance to stop.
            if cancellation.isCancelled { throw Cancelled() }
            if let failAfter, bytesWritten + Int64(buffer.count) > failAfter {
                throw Failure(code: ENOSPC)
            }
            let code = SystemCall.writeAll(descriptor, buffer)
            guard code == 0 else { throw Failure(code: code) }
            hasher.update(buffer)
            bytesWritten += Int64(buffer.count)
        }
    }
}

import ArchiveKit
import Foundation

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// Writes a bundle (docs/design-notes.md, "Bundle format", version 1) as two zstd frames that hold
/// one pax tar stream:
///
/// 1. the head: the manifest and the checksum list, written last but placed first;
/// 2. the payload entry and the end of the archive, compressed on a thread of its own
///    while the copy is still being checked and hashed.
///
/// The manifest needs the payload's SHA-256 and the check results, and comes first; the
/// payload is most of the work. Splitting the stream at the entry boundary lets the two
/// overlap. The payload's frame goes either into a temporary file, copied after the head
/// at the end (`write`), or, for a large plain bundle written to a file, straight into
/// the bundle behind a reserved head, which `writeHead` fills with the head and a zstd
/// skippable frame (RFC 8878, 3.1.2): no second write and read of the frame. The same
/// snapshot (manifest, payload, time) and the same way give the same bytes.
package struct BundleBuilder {
    package struct Output {
        package let sizeBytes: Int64
        package let sha256: String

        package init(sizeBytes: Int64, sha256: String) {
            self.sizeBytes = sizeBytes
            self.sha256 = sha256
        }
    }

    let compressionLevel: Int
    let threads: Int
    let cancellation: Cancellation
    /// Test hook: the write that would take the bundle past this many bytes fails with ENOSPC.
    package var failWritesAfterBytes: Int64? = nil
    /// When set, the whole bundle stream is encrypted to these recipients (age) on its
    /// way to the file: the manifest as much as the payload.
    package var recipients: [AgeRecipient]? = nil

    /// Starts compressing the payload frame: `payloadPath` as the entry `entryName` of
    /// `size` bytes, into `descriptor` (which stays the caller's), on a background thread.
    /// With `mark`, the payload is the snapshot's copy while it is still being written.
    /// `behindHead` is the offset in the bundle at which `descriptor` (positioned there)
    /// writes, when the frame goes straight into the bundle: the test hook's limit counts
    /// from the bundle's start.
    package func startPayload(
        path payloadPath: String, entryName: String, size: Int64, modificationTime: Int64, following mark: CopyWatermark? = nil,
        into descriptor: Int32, behindHead: Int64? = nil, outputName: String, progress: @escaping @Sendable (Int64, Int64) -> Void
    ) -> PayloadCompression {
        PayloadCompression(
            payloadPath: payloadPath, entryName: entryName, size: size,
            options: .init(compressionLevel: compressionLevel, threads: threads, modificationTime: modificationTime),
            following: mark, descriptor: descriptor, behindHead: behindHead,
            failAfter: behindHead.flatMap { head in failWritesAfterBytes.map { $0 - head } },
            outputName: outputName, cancellation: cancellation, progress: progress)
    }

    /// The head's frame for `manifest`: its tar entries, without the end of the archive,
    /// which the payload's frame holds.
    private func head(manifest: BundleManifest, payload: PayloadCompression) throws -> [UInt8] {
        guard let file = manifest.files.first, manifest.files.count == 1 else {
            throw StewardError(.internal, "a version 1 bundle holds exactly one payload file")
        }
        guard file.path == payload.entryName, file.size == payload.size,
              manifest.createdAt == BackupNaming.isoTimestamp(payload.options.modificationTime)
        else {
            throw StewardError(.internal, "the manifest does not describe the compressed payload")
        }
        var bytes: [UInt8] = []
        var options = payload.options
        options.endsArchive = false
        let writer = try ArchiveWriter(options: options) { bytes.append(contentsOf: $0) }
        try writer.addFile(name: BundleManifest.manifestEntry, contents: try manifest.encoded())
        try writer.addFile(name: BundleManifest.checksumEntry, contents: manifest.checksumList())
        try writer.finish()
        return bytes
    }

    /// Fills the `reserved` bytes at the start of `descriptor`, whose payload frame
    /// follows them, with the head's frame and a skippable frame that pads it out.
    /// Returns false, having written nothing, when the head does not fit: the caller
    /// then writes the bundle anew (`write`, reading the frame from that offset).
    package func writeHead(manifest: BundleManifest, payload: PayloadCompression, reservedHead reserved: Int64, into descriptor: Int32,
                   outputName: String) throws -> Bool {
        var bytes = try head(manifest: manifest, payload: payload)
        guard let padding = Self.skippableFrame(filling: Int(reserved) - bytes.count) else { return false }
        bytes += padding
        if let failWritesAfterBytes, Int64(bytes.count) > failWritesAfterBytes {
            throw Self.explain(Sink.Failure(code: ENOSPC), outputName: outputName, cancellation: cancellation)
        }
        let code = bytes.withUnsafeBytes { SystemCall.writeAll(descriptor, $0, at: 0) }
        guard code == 0 else { throw Self.explain(Sink.Failure(code: code), outputName: outputName, cancellation: cancellation) }
        return true
    }

    /// A zstd skippable frame (RFC 8878, 3.1.2) of exactly `count` bytes, zeros after
    /// its 8-byte header, which every zstd reader passes over: empty for 0, nil when
    /// `count` is negative or too small for the header.
    static func skippableFrame(filling count: Int) -> [UInt8]? {
        if count == 0 { return [] }
        guard count >= 8, count - 8 <= Int(UInt32.max) else { return nil }
        var frame = [UInt8](repeating: 0, count: count)
        let magic: UInt32 = 0x184D_2A50, size = UInt32(count - 8)
        for index in 0..<4 {
            frame[index] = UInt8(truncatingIfNeeded: magic >> (8 * UInt32(index)))
            frame[4 + index] = UInt8(truncatingIfNeeded: size >> (8 * UInt32(index)))
        }
        return frame
    }

    /// Writes the head's frame for `manifest`, then the finished payload frame from
    /// `payloadFramePath` (from `frameOffset` on), into `descriptor` (which stays the
    /// caller's: it syncs and closes it).
    package func write(
        manifest: BundleManifest, payload: PayloadCompression, payloadFramePath: String, frameOffset: Int64 = 0,
        to descriptor: Int32, outputName: String
    ) throws -> Output {
        let head = try head(manifest: manifest, payload: payload)
        let sink = try Sink(descriptor: descriptor, failAfter: failWritesAfterBytes, cancellation: cancellation)
        do {
            let encryptor = try recipients.map { recipients in try AgeEncryptor(recipients: recipients) { try sink.write($0) } }
            let output: (UnsafeRawBufferPointer) throws -> Void = { buffer in
                if let encryptor { try encryptor.write(buffer) } else { try sink.write(buffer) }
            }
            try head.withUnsafeBytes { try output($0) }
            let cancellation = self.cancellation
            _ = try FileStreaming.forEachBlock(of: payloadFramePath, from: frameOffset, isCancelled: { cancellation.isCancelled }) { block in
                try output(block)
            }
            try encryptor?.finish()
        } catch {
            throw Self.explain(error, outputName: outputName, cancellation: cancellation)
        }
        return Output(sizeBytes: sink.bytesWritten, sha256: try sink.sha256())
    }

    /// Errors of the writers and sinks as Steward errors.
    static func explain(_ error: Error, outputName: String, cancellation: Cancellation) -> Error {
        switch error {
        case is Sink.Cancelled:
            return StewardError.interrupted(by: cancellation, "; no bundle was written")
        case let failure as Sink.Failure:
            if failure.code == EPIPE {
                return StewardError(.inputOutput, "cannot write \(outputName): the reader went away (broken pipe) before the bundle was complete; "
                                    + "what it received is not a bundle")
            }
            let kind: StewardError.Kind = failure.code == ENOSPC || failure.code == EDQUOT ? .inputOutput : SystemCall.outputKind(failure.code)
            return StewardError(kind, "cannot write \(outputName): \(SystemCall.message(failure.code))")
        case let error as ArchiveError:
            if case .sizeMismatch = error {
                return StewardError(.inputOutput, "the copy changed while it was bundled: \(error)")
            }
            return StewardError(.inputOutput, "cannot write \(outputName): \(error)")
        case let error as StewardError where error.kind == .interrupted:
            return StewardError.interrupted(by: cancellation, "; no bundle was written")
        default:
            return error
        }
    }

    /// Where compressed bytes go: a file, with a count, a SHA-256 of everything written
    /// (when `hashing`), and a chance to stop at every piece zstd hands over (it keeps
    /// compressing what it was given after the last block was read: for seconds at high
    /// levels). Made with `writingBackFrom` (the offset it writes at), the file is the
    /// bundle itself, whose write-back to disk starts as it is written (`WriteBack`).
    final class Sink {
        struct Failure: Error {
            let code: Int32
        }

        struct Cancelled: Error {}

        let descriptor: Int32
        /// nil for the payload's frame: nothing reads its hash (the bundle's own hash is
        /// computed as the frame is copied into the bundle), and hashing it cost about
        /// 0.17 s of CPU per GiB of database (design notes, "Performance (issue 14)").
        let hasher: SHA256Hasher?
        let failAfter: Int64?
        let cancellation: Cancellation
        private(set) var bytesWritten: Int64 = 0
        /// Where in the file the first byte goes, for the write-back's ranges.
        private let offset: Int64
        private var writeBack: WriteBack?

        init(descriptor: Int32, failAfter: Int64?, cancellation: Cancellation, hashing: Bool = true,
             writingBackFrom offset: Int64? = nil) throws {
            self.descriptor = descriptor
            self.hasher = hashing ? try SHA256Hasher() : nil
            self.failAfter = failAfter
            self.cancellation = cancellation
            self.offset = offset ?? 0
            self.writeBack = offset.map { WriteBack(from: $0) }
        }

        /// Everything is written: the write-back of the rest starts.
        func finish() throws {
            if let code = writeBack?.advance(descriptor, to: offset + bytesWritten, final: true) { throw Failure(code: code) }
        }

        /// The SHA-256 of everything written; the sink cannot hash any more afterwards.
        func sha256() throws -> String {
            guard let hasher else { throw StewardError(.internal, "a sink made without hashing has no SHA-256") }
            return try hasher.finalize()
        }

        func write(_ buffer: UnsafeRawBufferPointer) throws {
            if cancellation.isCancelled { throw Cancelled() }
            if let failAfter, bytesWritten + Int64(buffer.count) > failAfter {
                throw Failure(code: ENOSPC)
            }
            let code = SystemCall.writeAll(descriptor, buffer)
            guard code == 0 else { throw Failure(code: code) }
            hasher?.update(buffer)
            bytesWritten += Int64(buffer.count)
            if let code = writeBack?.advance(descriptor, to: offset + bytesWritten) { throw Failure(code: code) }
        }
    }

    package init(compressionLevel: Int, threads: Int, cancellation: Cancellation, failWritesAfterBytes: Int64? = nil, recipients: [AgeRecipient]? = nil) {
        self.compressionLevel = compressionLevel
        self.threads = threads
        self.cancellation = cancellation
        self.failWritesAfterBytes = failWritesAfterBytes
        self.recipients = recipients
    }
}

/// The payload frame being compressed on a thread of its own (`BackgroundWork`), started
/// when it is made, at a lower priority than the checks (`BackgroundPriority`). The same
/// thread computes the payload's SHA-256 from the blocks it reads: one read of the copy
/// feeds both (design notes, "Performance").
package struct PayloadCompression: Sendable {
    let payloadPath: String
    let entryName: String
    let size: Int64
    let options: ArchiveWriter.Options
    private let work: BackgroundWork<Output>

    /// The payload as read for the frame.
    package struct Digest: Sendable {
        package let size: Int64
        package let sha256: String
    }

    private struct Output: Sendable {
        let frameSize: Int64
        let digest: Digest
    }

    /// `behindHead`: the frame is written into the bundle itself from that offset, and its
    /// write-back starts as it goes. `failAfter`: the test hook's limit on the bytes the
    /// frame may take (ENOSPC past it).
    init(payloadPath: String, entryName: String, size: Int64, options: ArchiveWriter.Options, following mark: CopyWatermark?,
         descriptor: Int32, behindHead: Int64? = nil, failAfter: Int64? = nil, outputName: String, cancellation: Cancellation,
         progress: @escaping @Sendable (Int64, Int64) -> Void) {
        self.payloadPath = payloadPath
        self.entryName = entryName
        self.size = size
        self.options = options
        work = BackgroundWork { stop in
            BackgroundPriority.lowerForCompression()
            return try Self.compress(
                payloadPath: payloadPath, entryName: entryName, size: size, options: options, following: mark, descriptor: descriptor,
                behindHead: behindHead, failAfter: failAfter, outputName: outputName, cancellation: cancellation, stop: stop,
                progress: progress)
        }
    }

    /// Asks the thread to stop early: the bundle will not be written.
    package func cancel() {
        work.cancel()
    }

    /// Waits for the thread; returns the size of the frame.
    package func wait() throws -> Int64 {
        try work.wait().frameSize
    }

    /// Waits for the thread; returns the payload's size and SHA-256.
    package func payloadDigest() throws -> Digest {
        try work.wait().digest
    }

    private static func compress(
        payloadPath: String, entryName: String, size: Int64, options: ArchiveWriter.Options, following mark: CopyWatermark?,
        descriptor: Int32, behindHead: Int64?, failAfter: Int64?, outputName: String, cancellation: Cancellation, stop: Cancellation,
        progress: (Int64, Int64) -> Void
    ) throws -> Output {
        // Either flag stops it: a signal, or checks that failed.
        let combined = Cancellation()
        let isStopped = { [cancellation, stop] in cancellation.isCancelled || stop.isCancelled }
        let sink = try BundleBuilder.Sink(
            descriptor: descriptor, failAfter: failAfter, cancellation: combined, hashing: false, writingBackFrom: behindHead)
        let hasher = try SHA256Hasher()
        do {
            let writer = try ArchiveWriter(options: options) { buffer in
                if isStopped() { combined.cancel(reason: "stopped") }
                try sink.write(buffer)
            }
            try writer.beginFile(name: entryName, size: size)
            var read: Int64 = 0
            // Behind a copy still being written, exactly the entry's bytes are read: the
            // copy may run past its pages until it is cut.
            _ = try FileStreaming.forEachBlock(
                of: payloadPath, size: mark == nil ? nil : size, following: mark, isCancelled: isStopped
            ) { block in
                hasher.update(block)
                try writer.write(block)
                read += Int64(block.count)
                progress(read, size)
            }
            try writer.endFile()
            try writer.finish()
            try sink.finish()
            mark?.finishReading()
            return Output(frameSize: sink.bytesWritten, digest: .init(size: read, sha256: try hasher.finalize()))
        } catch {
            throw BundleBuilder.explain(error, outputName: outputName, cancellation: cancellation)
        }
    }
}

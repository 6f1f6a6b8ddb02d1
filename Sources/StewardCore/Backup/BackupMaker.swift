import Foundation
import FileNames
import SQLiteKit
import Synchronization

import BundleFormat
import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// `steward backup`: a consistent online snapshot of a live database, checked, hashed and
/// streamed into a tar+zstd bundle that appears under its final name only when complete
/// (docs/design-notes.md, "Bundle format"; the online backup API:
/// https://www.sqlite.org/backup.html).
///
/// The phases, in order:
/// 1. snapshot: a read transaction pins the source; the kernel (a rollback-journal
///    source) or the online backup API (a WAL one) copies it into a temporary file in the
///    output directory; the source is released. Behind a kernel copy, the payload's zstd
///    frame is already being compressed and hashed (`CopyWatermark`);
/// 2. checks on the copy, with its SHA-256 computed and the payload's zstd frame
///    compressed alongside (or going on), each on a thread of its own;
/// 3. bundle: the frame of the manifest and checksum list, then the payload's frame, into
///    a temporary `.partial` file, synced, renamed into place without replacing anything,
///    directory synced.
/// Whatever fails, and on SIGINT or SIGTERM, every temporary file is removed.
public struct BackupMaker {
    public struct Options: Sendable {
        public var databasePath: String
        public var outputDirectory: String
        /// The bundle's file name; nil for `<db>-v<user_version>-<UTC time>.tar.zst`.
        public var bundleName: String?
        /// Put between the stem and the version of the default name (fleet runs: the
        /// database's `PathTag`, since many databases share a file name).
        public var nameTag: String?
        /// The version the default name carries instead of `user_version`: `migrate
        /// --backup-dir` names the newest applied migration as its runner writes it.
        public var nameVersion: String?
        public var compressionLevel = BackupMaker.defaultCompressionLevel
        /// How long, in all, to wait for other connections' locks.
        public var timeout = LockWait.defaultSeconds
        public var pagesPerStep: Int32 = BackupMaker.defaultPagesPerStep
        /// SQLite extensions loaded into every connection to the source and its snapshot
        /// (the copy, the checks, the digests), for schemas that use them; those
        /// connections trust only innocuous functions then. A bundle is restored with the
        /// same extensions.
        public var extensions: [String] = []
        /// Which check proves FTS5 tables in the snapshot (`--fts-check`), and on how many
        /// workers (`--fts-workers`; nil: the number of cores).
        public var ftsCheck: FTS5CheckKind = .parallel
        public var ftsWorkers: Int?
        /// zstd worker threads; the bundle's bytes do not depend on it.
        public var threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
        /// Whether this backup first removes the temporaries of killed runs from the
        /// output directory. A fleet run does that once for the whole run: done for
        /// every database, it lists a directory that fills with bundles each time.
        public var removesStaleTemporaries = true
        /// Recipients or a passphrase: the whole bundle is then encrypted (age).
        public var keys = BundleKeys()
        /// `--out -`: the bundle is written to standard output once the snapshot has
        /// passed its checks; the temporaries go into a private workspace under TMPDIR,
        /// and `outputDirectory` is not used.
        public var toStandardOutput = false
        /// `--as-is`: a copy that fails integrity or foreign-key checks is bundled anyway,
        /// its failures recorded in the manifest and its name marked `-as-is`.
        /// `.foreignKeys` (for `migrate --backup-dir`) accepts only foreign-key
        /// violations, and records them only when there are some.
        public var asIs: AsIs = .off
        /// Given when another connection of this process holds locks on the source (a
        /// migration's write transaction, `migrate --backup-dir`): the descriptor the
        /// kernel copy reads is handed to it, for the caller to close once that
        /// connection is closed, instead of being closed at the end of the snapshot,
        /// which would drop that connection's locks.
        var heldDescriptors: HeldDescriptors?

        public init(databasePath: String, outputDirectory: String) {
            self.databasePath = databasePath
            self.outputDirectory = outputDirectory
        }
    }

    public enum AsIs: Sendable, Equatable {
        case off
        case foreignKeys
        case integrityAndForeignKeys
    }

    public static let asIsMarker = BackupNaming.asIsMarker
    public static let defaultCompressionLevel = 1
    public static let defaultPagesPerStep: Int32 = 4096

    /// What the run is doing, for progress output.
    public enum Event: Sendable {
        /// About every 0.1 s while pages are copied, and once at the end.
        case copying(pages: Int, totalPages: Int, bytesPerSecond: Double)
        case copied(pages: Int, seconds: Double, heldSeconds: Double)
        /// The checks start; the hash and the compression of the copy start too, or go on
        /// (behind a kernel copy they started with it).
        case checking
        /// About every 0.1 s while the copy is compressed, and once at the end: bytes of
        /// the copy read so far. Sent from the compressing thread.
        case bundling(bytes: Int64, totalBytes: Int64, bytesPerSecond: Double)
        case published(path: String)
    }

    public let setup: OperationSetup<Options, Event>

    public init(setup: OperationSetup<Options, Event>) {
        self.setup = setup
    }

    public func run() throws -> BackupReport {
        try ExtensionLoading.requireLoadable(options.extensions)
        let total = Stopwatch()
        if let name = options.bundleName, let problem = BackupNaming.problem(withBundleName: name, encrypted: options.keys.encrypts) {
            throw StewardError(.cannotCreate, "cannot use '\(name)' as the bundle name: \(problem.message)", remedy: problem.remedy)
        }
        // Read before the source is touched: a missing key file costs nothing.
        let recipients = options.keys.encrypts ? try options.keys.recipientsForEncryption() : nil
        let streams = options.toStandardOutput
        let directory = try OutputDirectory(path: streams ? FileManager.default.temporaryDirectory.path : options.outputDirectory)
        let sourceFile = try Self.checkSource(options.databasePath)
        if let name = options.bundleName, !streams { try Self.refuseExisting(directory.file(name)) }
        // An encrypted bundle's plaintext temporaries stay out of the output directory.
        if recipients != nil { directory.keepPlaintext(besides: options.databasePath) }

        var stale: [String] = []
        if options.removesStaleTemporaries {
            stale = streams ? TemporaryWorkspace.removeStaleInTemporaryDirectory() : directory.removeStaleTemporaries()
        }
        // Every run that may put plaintext beside the source or under TMPDIR clears what
        // killed runs left there (fleet runs too: each source has its own directory).
        stale += directory.removeStalePlaintext()
        defer { directory.removeTemporaries() }
        // Files dropped off the critical path, gone before the workspace goes.
        var removals: [BackgroundRemoval] = []
        defer { removals.forEach { $0.wait() } }

        // Made before the source is opened, so an unwritable directory costs nothing.
        let copy = try directory.createTemporary(suffix: ".sqlite", permissions: 0o600, plaintext: true)
        // SQLite opens the file itself; this descriptor only claimed the name.
        guard close(copy.descriptor) == 0 else {
            throw StewardError(.inputOutput, "cannot create files in \(Paths.directoryOrCurrent(of: copy.path)): \(SystemCall.message(errno))")
        }

        var builder = BundleBuilder(compressionLevel: options.compressionLevel, threads: options.threads, cancellation: cancellation)
        builder.failWritesAfterBytes = TestHooks.bundleWriteFailureAfterBytes
        builder.recipients = recipients
        let payloadName = BundleManifest.payloadEntry(forDatabase: options.databasePath)
        // A large plain bundle written to a file gets the payload's frame straight into
        // the bundle, behind room for its head; otherwise the frame goes into a file of
        // its own and is copied after the head at the end.
        let reservedHead = Self.reservedHead(sourceBytes: Int64(sourceFile.st_size), streams: streams, encrypts: recipients != nil)
        let frame = reservedHead == nil
            ? try directory.createTemporary(suffix: ".payload.zst", permissions: 0o600, plaintext: true)
            : try directory.createTemporary(suffix: ".tar.zst.partial", permissions: sourceFile.st_mode & 0o666)
        if let reservedHead, lseek(frame.descriptor, off_t(reservedHead), SEEK_SET) != off_t(reservedHead) {
            let code = errno
            close(frame.descriptor)
            throw StewardError(.inputOutput, "cannot write in \(options.outputDirectory): \(SystemCall.message(code))")
        }

        // 1. Snapshot; the payload's compression starts behind a kernel copy.
        var bundleName = options.bundleName ?? ""
        let mark = CopyWatermark()
        // Behind the copy, the compression's progress waits for the checks' line.
        let bundlingProgress = Throttle(held: true)
        var early: PayloadCompression?
        let snapshot: SourceSnapshot.Result
        do {
            var source = SourceSnapshot(
                databasePath: options.databasePath, sourceFile: sourceFile, copyPath: copy.path, pagesPerStep: options.pagesPerStep,
                waits: LockWaits(timeout: options.timeout, cancellation: cancellation, database: options.databasePath),
                cancellation: cancellation, progress: progress)
            source.mark = mark
            source.holder = options.heldDescriptors
            source.extensions = options.extensions
            snapshot = try source.take { source, pinnedAt in
                if options.bundleName == nil {
                    // The name carries the user_version of the snapshot itself.
                    bundleName = BackupNaming.defaultBundleName(
                        database: options.databasePath, tag: options.nameTag, userVersion: source.userVersion,
                        version: options.nameVersion, at: pinnedAt,
                        encrypted: recipients != nil, asIs: options.asIs == .integrityAndForeignKeys)
                    if !streams { try Self.refuseExisting(directory.file(bundleName)) }
                }
                // A kernel copy is the source's pages as they are: their size is the entry's.
                guard SourceSnapshot.copiesInKernel(source, path: options.databasePath) else { return }
                early = builder.startPayload(
                    path: copy.path, entryName: payloadName, size: Int64(source.pageSize) * Int64(source.pageCount),
                    modificationTime: pinnedAt, following: mark, into: frame.descriptor, behindHead: reservedHead,
                    outputName: streams ? Self.standardOutputName : directory.file(bundleName),
                    progress: Self.throttled(progress, by: bundlingProgress))
            }
            try checkCancellation()
            if let started = early, !mark.isComplete {
                // The copy was made by the online backup API after all: compressed anew.
                started.cancel()
                _ = try? started.wait()
                early = nil
                let start = off_t(reservedHead ?? 0)
                guard ftruncate(frame.descriptor, 0) == 0, lseek(frame.descriptor, start, SEEK_SET) == start else {
                    throw StewardError(.inputOutput, "cannot write in \(options.outputDirectory): \(SystemCall.message(errno))")
                }
            }
        } catch {
            // The compressing thread is done with the files before they go.
            mark.abandon()
            early?.cancel()
            _ = try? early?.wait()
            close(frame.descriptor)
            throw error
        }

        // 2. Checks and the SHA-256 of the copy, while its zstd frame is compressed.
        let bundleWatch = Stopwatch()
        let finalPath = streams ? Self.standardOutputName : directory.file(bundleName)
        let (verified, compression, framePath, digests) = try checkAndCompress(
            copyPath: copy.path, snapshot: snapshot, payloadName: payloadName, builder: builder, frame: frame,
            reservedHead: reservedHead, compressing: early, shown: bundlingProgress, finalPath: finalPath)
        let payloadDigest = try compression.payloadDigest()
        // Checked, hashed and compressed: the copy's space comes back before the bundle
        // takes its own, or while the bundle is written when there is room for the bundle
        // twice over (or the copy is not in the output directory: an encrypted bundle's).
        // Should this fail, the clean-up at the end tries again.
        if try directory.keepsPlaintextApart || BackupMaker.hasRoom(for: compression.wait(), in: directory.path) {
            removals.append(BackgroundRemoval(copy.path))
        } else {
            unlink(FileName.cString(copy.path))
        }

        // 3. Bundle: the manifest's frame, then the payload's, synced and published.
        let manifest = BundleManifest(
            stewardVersion: StewardVersion.current, sqliteVersion: SQLiteLibrary.version,
            createdAt: BackupNaming.isoTimestamp(snapshot.pinnedAt), source: snapshot.source,
            snapshot: snapshot.snapshot, checks: verified.checks,
            files: [.init(path: payloadName, size: payloadDigest.size, sha256: payloadDigest.sha256)],
            contentDigests: digests, recordedFailures: verified.recorded)
        let written = streams
            ? try writeToStandardOutput(manifest: manifest, compression: compression, framePath: framePath, builder: builder)
            : try writeAndPublish(
            manifest: manifest, compression: compression, framePath: framePath, reservedHead: reservedHead, builder: builder,
            directory: directory, bundleName: bundleName, permissions: sourceFile.st_mode & 0o666)
        progress(.published(path: finalPath))

        var report = BackupReport(
            stewardVersion: StewardVersion.current, sqliteVersion: SQLiteLibrary.version,
            database: DatabaseReference(path: options.databasePath), manifest: manifest, checks: verified.results,
            failedChecks: verified.results.filter { $0.status == .fail }.map(\.name.rawValue),
            bundle: .init(
                path: streams ? "-" : finalPath, sizeBytes: written.sizeBytes, sha256: written.sha256,
                compressionLevel: options.compressionLevel, threads: options.threads,
                durationSeconds: bundleWatch.roundedSeconds),
            staleTemporariesRemoved: stale, totalSeconds: total.roundedSeconds)
        report.encryption = recipients.map { BundleEncryption(recipients: $0) }
        return report
    }

    /// Runs the checks on this thread while another compresses and hashes the payload's
    /// frame into `frame` (one read of the copy for both; `compressing` when it started
    /// behind the copy) and a third computes the content digests. Returns when all of them
    /// are done; `frame`'s descriptor is closed.
    private func checkAndCompress(
        copyPath: String, snapshot: SourceSnapshot.Result, payloadName: String, builder: BundleBuilder,
        frame: (path: String, descriptor: Int32), reservedHead: Int64?, compressing: PayloadCompression?, shown: Throttle,
        finalPath: String
    ) throws -> (SnapshotVerification.Result, PayloadCompression, String, ContentDigests) {
        TestHooks.pause(at: .backupChecks)
        progress(.checking)
        shown.release()
        let compression: PayloadCompression
        let verified: SnapshotVerification.Result
        let digests: ContentDigests
        // Beside the checks, the hash and the compression, which read the same finished
        // file (design notes, "Performance": run one after the other, the digests were a third of a backup).
        let extensions = options.extensions
        let cancellation = self.cancellation
        let digesting = BackgroundWork { stop in
            try Self.contentDigests(of: copyPath, extensions: extensions, cancellation: cancellation, stop: stop)
        }
        // Whatever is thrown, the thread is done with the copy before the copy goes.
        defer {
            digesting.cancel()
            _ = try? digesting.wait()
        }
        (compression, verified, digests) = try SystemCall.closing(frame.descriptor, failure: "cannot write in \(options.outputDirectory)") {
            let compression = try compressing ?? builder.startPayload(
                path: copyPath, entryName: payloadName, size: try Self.size(of: copyPath),
                modificationTime: snapshot.pinnedAt, into: frame.descriptor, behindHead: reservedHead, outputName: finalPath,
                progress: Self.throttled(progress))
            do {
                let verified = try SnapshotVerification(
                    copyPath: copyPath, source: snapshot.source, cancellation: cancellation, asIs: options.asIs,
                    extensions: options.extensions, ftsCheck: options.ftsCheck, ftsWorkers: options.ftsWorkers,
                    digested: Self.rowCounts(of: digesting)
                ).run()
                _ = try compression.wait()
                return (compression, verified, try digesting.wait())
            } catch {
                // The frame is of no use any more; its thread must stop before its file goes.
                compression.cancel()
                _ = try? compression.wait()
                throw error
            }
        }
        try checkCancellation()
        return (verified, compression, frame.path, digests)
    }

    /// The logical digests of the finished copy, read-only and without locks (nothing
    /// writes the file any more). `stop` ends the work early, as a signal does.
    static func contentDigests(
        of path: String, extensions: [String] = [], cancellation: Cancellation, stop: Cancellation? = nil
    ) throws -> ContentDigests {
        let mapping = SQLiteErrorMapping(
            path: path, role: .checkedCopy(refusal: "the copy's content digests cannot be computed"),
            cancellation: cancellation, interruptedDetail: "; no bundle was written")
        return try mapping.run {
            // Only this thread uses the connection; the digests read every value through it.
            let connection = try DatabaseFile.open(path: path, .readOnly, parameters: "&nolock=1", oneThread: true)
            try connection.harden(loadingExtensions: extensions)
            connection.setProgressHandler(instructions: 100_000) { !(cancellation.isCancelled || stop?.isCancelled == true) }
            return try ContentDigests.compute(connection, cancellation: cancellation)
        }
    }

    /// The row counts of the tables `digesting` read in full, once it is done; none when
    /// it failed (the backup then fails with its error, after the checks).
    private static func rowCounts(of digesting: BackgroundWork<ContentDigests>) -> () -> [String: Int64] {
        {
            guard let digests = try? digesting.wait() else { return [:] }
            return Dictionary(digests.tables.map { ($0.name, $0.rows) }, uniquingKeysWith: { first, _ in first })
        }
    }

    static let standardOutputName = "standard output"

    /// Writes the checked bundle to standard output. Nothing can be taken back from a
    /// pipe: only a bundle whose snapshot passed every check starts to flow, and a reader
    /// that goes away (EPIPE; SIGPIPE is ignored by the CLI) is 74.
    private func writeToStandardOutput(
        manifest: BundleManifest, compression: PayloadCompression, framePath: String, builder: BundleBuilder
    ) throws -> BundleBuilder.Output {
        try checkCancellation()
        let written = try builder.write(
            manifest: manifest, payload: compression, payloadFramePath: framePath, to: STDOUT_FILENO,
            outputName: Self.standardOutputName)
        unlink(FileName.cString(framePath))
        return written
    }

    /// Writes the bundle into a `.partial` temporary, syncs it and gives it its name. With
    /// `reservedHead`, `framePath` is that temporary already, its payload frame behind the
    /// reserved bytes: only the head is written, unless it does not fit, when the bundle
    /// is written anew into another temporary.
    private func writeAndPublish(
        manifest: BundleManifest, compression: PayloadCompression, framePath: String, reservedHead: Int64?, builder: BundleBuilder,
        directory: OutputDirectory, bundleName: String, permissions: mode_t
    ) throws -> BundleBuilder.Output {
        if let reservedHead, let written = try publishInPlace(
            manifest: manifest, compression: compression, partialPath: framePath, reservedHead: reservedHead, builder: builder,
            directory: directory, bundleName: bundleName) {
            return written
        }
        let finalPath = directory.file(bundleName)
        let partial = try directory.createTemporary(
            suffix: reservedHead == nil ? ".tar.zst.partial" : ".rewritten.tar.zst.partial", permissions: permissions)
        // The frame is in the bundle: dropped while the bundle is synced.
        var removal: BackgroundRemoval?
        defer { removal?.wait() }
        let written = try SystemCall.closing(partial.descriptor, failure: "cannot write \(finalPath)") {
            let written = try builder.write(
                manifest: manifest, payload: compression, payloadFramePath: framePath, frameOffset: reservedHead ?? 0,
                to: partial.descriptor, outputName: finalPath)
            removal = BackgroundRemoval(framePath)
            let code = SystemCall.sync(partial.descriptor)
            guard code == 0 else {
                throw StewardError(.inputOutput, "cannot sync \(finalPath): \(SystemCall.message(code))")
            }
            return written
        }
        try checkCancellation()
        try directory.publish(partial.path, as: bundleName)
        try directory.sync()
        return written
    }

    /// Writes the head into the bundle that holds the payload's frame behind
    /// `reservedHead` bytes, syncs it while its SHA-256 is read back (the head comes first
    /// and is written last: the bundle's hash cannot be taken while it is written), and
    /// gives it its name. nil, having written nothing, when the head does not fit.
    private func publishInPlace(
        manifest: BundleManifest, compression: PayloadCompression, partialPath: String, reservedHead: Int64,
        builder: BundleBuilder, directory: OutputDirectory, bundleName: String
    ) throws -> BundleBuilder.Output? {
        let finalPath = directory.file(bundleName)
        let expectedSize = reservedHead + (try compression.wait())
        let descriptor = open(FileName.cString(partialPath), O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw StewardError(.inputOutput, "cannot write \(finalPath): \(SystemCall.message(errno))")
        }
        let hashed: (sha256: String, size: Int64)
        do {
            guard try builder.writeHead(
                manifest: manifest, payload: compression, reservedHead: reservedHead, into: descriptor, outputName: finalPath)
            else {
                close(descriptor)
                return nil
            }
            // The disk's write-back and the read of the page cache for the hash overlap.
            let syncing = BackgroundWork { _ in SystemCall.sync(descriptor) }
            let cancellation = self.cancellation
            let reading = Result { try FileStreaming.sha256(of: partialPath, isCancelled: { cancellation.isCancelled }) }
            let code = try syncing.wait()
            guard code == 0 else {
                throw StewardError(.inputOutput, "cannot sync \(finalPath): \(SystemCall.message(code))")
            }
            hashed = try reading.get()
        } catch {
            close(descriptor)
            throw error
        }
        // Some file systems (NFS) report a failed write-back only here.
        guard close(descriptor) == 0 else {
            throw StewardError(.inputOutput, "cannot write \(finalPath): \(SystemCall.message(errno))")
        }
        guard hashed.size == expectedSize else {
            throw StewardError(.inputOutput, "the bundle \(finalPath) is \(hashed.size) bytes instead of the \(expectedSize) written")
        }
        try checkCancellation()
        try directory.publish(partialPath, as: bundleName)
        try directory.sync()
        return BundleBuilder.Output(sizeBytes: hashed.size, sha256: hashed.sha256)
    }

    /// The bytes kept for the head at the start of a bundle whose payload frame is written
    /// straight into it, or nil when the frame goes into a file of its own: always for a
    /// bundle streamed or encrypted (the head's bytes come first in the stream or the
    /// cipher), and for a source under `inPlaceFromBytes`, whose frame is copied in a
    /// moment and whose bundle the padding would make noticeably larger.
    static func reservedHead(sourceBytes: Int64, streams: Bool, encrypts: Bool) -> Int64? {
        guard !streams, !encrypts, sourceBytes >= TestHooks.bundleInPlaceFromBytes ?? inPlaceFromBytes else { return nil }
        return TestHooks.bundleReservedHeadBytes ?? reservedHeadBytes
    }

    /// Room for the head: a manifest of a few hundred tables, with the checksum list, in
    /// its frame; 0.03% of the bench's 256 MiB database's bundle.
    static let reservedHeadBytes: Int64 = 16 << 10
    /// The source size from which the payload's frame goes straight into the bundle.
    static let inPlaceFromBytes: Int64 = 64 << 20

    /// Bundling progress at most every 0.1 s (and at the end), from the compressing thread;
    /// none while `throttle` is held (behind a copy, until the checks' line is shown).
    static func throttled(
        _ progress: @escaping @Sendable (Event) -> Void, by throttle: Throttle = Throttle()
    ) -> @Sendable (Int64, Int64) -> Void {
        return { done, total in
            guard let seconds = throttle.due(final: done == total) else { return }
            progress(.bundling(bytes: done, totalBytes: total, bytesPerSecond: seconds > 0 ? Double(done) / seconds : 0))
        }
    }

    /// Room for a bundle of about `frameBytes` twice over, with 64 MiB to spare.
    static func hasRoom(for frameBytes: Int64, in directory: String) -> Bool {
        (FreeSpace.available(at: directory) ?? 0) >= 2 * frameBytes + (64 << 20)
    }

    static func size(of path: String) throws -> Int64 {
        var info = stat()
        guard stat(FileName.cString(path), &info) == 0 else {
            throw StewardError(.inputOutput, "cannot read \(path): \(SystemCall.message(errno))")
        }
        return Int64(info.st_size)
    }

    private func checkCancellation() throws {
        if cancellation.isCancelled {
            throw StewardError.interrupted(by: cancellation, "; no bundle was written")
        }
    }

    // MARK: - Inputs

    /// Why `name` cannot be a bundle name (for `--name`), or nil when it can.
    public static func problem(withBundleName name: String, encrypted: Bool = false) -> BundleNameProblem? {
        BackupNaming.problem(withBundleName: name, encrypted: encrypted)
    }

    /// Looks at the source with stat() only (opening it would be reading it as a plain
    /// file) and returns its permission bits, which the bundle takes over.
    /// The source's `stat`, once it is known to be a non-empty regular file.
    static func checkSource(_ path: String) throws -> stat {
        let info = try DatabaseFile.regularFile(path, missing: "no such database")
        guard info.st_size > 0 else {
            // SQLite would call an empty file an empty database; backing one up is almost
            // always a wrong path, and there is nothing to keep.
            throw StewardError(.badInput, "\(path) is empty (0 bytes): there is no database to back up")
        }
        return info
    }

    static func refuseExisting(_ path: String) throws {
        var info = stat()
        if lstat(FileName.cString(path), &info) == 0 {
            throw StewardError(.cannotCreate, "\(path) already exists; a backup never replaces a file")
        }
    }
}

extension BackupMaker: StewardOperation {}

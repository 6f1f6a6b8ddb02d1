import ArchiveKit
import Foundation
import FileNames
import SQLiteKit

import BundleFormat
import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// `steward restore`: unpacks a bundle into a fresh directory, proves the database works,
/// and only then publishes the directory (docs/design-notes.md, "Bundle format").
///
/// The phases, in order:
/// 1. extract: the bundle is read as hostile input (`BundleReader`) into a staging
///    directory beside the target; every payload file is hashed while it is written, and
///    a hash that differs from the manifest's ends the run (65);
/// 2. checks: the header before SQLite sees the file, and the payload's size against
///    the header's page count and the manifest (a file of any other size is refused
///    before SQLite opens it or anything copies it); a WAL database switched to
///    rollback-journal mode; then `RestoredDatabaseChecks`;
/// 3. publish: everything synced, the staging directory renamed to the target, the
///    parent synced.
/// Whatever fails, and on SIGINT or SIGTERM, the staging directory is removed; a failed
/// check returns a report with `published: false` (exit 1) and nothing is left either.
public struct Restorer: Sendable {
    public struct Options: Sendable {
        public var bundlePath: String
        /// The directory to create (or an empty one to fill).
        public var intoDirectory: String
        /// Whether FTS5's integrity-check runs on every FTS5 table (rank 1). On by
        /// default: damaged FTS5 pages pass `integrity_check`.
        public var checksFTS = true
        /// What opens an encrypted bundle.
        public var keys = BundleKeys()
        /// SQLite extensions loaded into every connection to the restored database, for
        /// schemas that use them; those connections trust only innocuous functions then.
        public var extensions: [String] = []
        /// Which check proves FTS5 tables (`--fts-check`), and on how many workers
        /// (`--fts-workers`; nil: the number of cores).
        public var ftsCheck: FTS5CheckKind = .parallel
        public var ftsWorkers: Int?
        /// Publish a bundle made with `backup --as-is` when the only failed checks are
        /// integrity, foreign-key and FTS5 checks, and every failure they find is one the
        /// manifest recorded.
        public var acceptsRecordedFailures = false
        /// A restore drill: everything a restore does, then the staging directory is
        /// removed and nothing is published. `intoDirectory` may then be empty: the
        /// staging directory goes into a private workspace under the temporary directory.
        public var checkOnly = false
        /// `--replace PATH`: after every check passed, the restored database takes the
        /// place of the database at PATH (`DatabaseReplacement`); `intoDirectory` is unused.
        public var replacePath: String?
        /// Where the replaced database is kept (default: beside PATH), unless
        /// `discardsReplaced`.
        public var keepReplacedDirectory: String?
        public var discardsReplaced = false
        /// How long `--replace` waits, in all, for other connections' locks on PATH.
        public var timeout = LockWait.defaultSeconds

        public init(bundlePath: String, intoDirectory: String) {
            self.bundlePath = bundlePath
            self.intoDirectory = intoDirectory
        }
    }

    /// What the run is doing, for progress output.
    public enum Event: Sendable {
        /// About every 0.1 s while the payload is extracted, and once at the end.
        case extracting(bytes: Int64, totalBytes: Int64, bytesPerSecond: Double)
        /// The checks of the database start.
        case checking
        /// A check ended (from the thread that ran it).
        case checked(CheckResult)
        case published(path: String)
    }

    public let setup: OperationSetup<Options, Event>

    public init(setup: OperationSetup<Options, Event>) {
        self.setup = setup
    }

    /// The bundle path that means standard input.
    public static let standardInput = "-"

    public func run() throws -> RestoreReport {
        try ExtensionLoading.requireLoadable(options.extensions)
        // What killed drills and spools left under TMPDIR (a decrypted database, a
        // spooled bundle): removed by the next restore, whatever it restores, and named.
        let stale = TemporaryWorkspace.removeStaleInTemporaryDirectory()
        guard options.bundlePath == Self.standardInput else {
            var report = try restoreOrReplace()
            report.staleTemporariesRemoved = stale
            return report
        }
        // A pipe cannot be read twice or looked into first: the stream is spooled into a
        // private workspace (0700) under TMPDIR, then restored like a file, with the same
        // checks, staging and publish. The spooled copy goes with the workspace.
        let workspace = try TemporaryWorkspace(
            in: FileManager.default.temporaryDirectory.path, prefix: TemporaryWorkspace.standardInputPrefix)
        defer { workspace.remove() }
        let spooled = workspace.file("bundle")
        try Self.spool(STDIN_FILENO, to: spooled, cancellation: cancellation)
        TestHooks.pause(at: .restoreSpooled)
        var options = self.options
        options.bundlePath = spooled
        do {
            var report = try Restorer(options: options, cancellation: cancellation, progress: progress).restoreOrReplace()
            report.bundle = BundleReference(path: Self.standardInput, sizeBytes: report.bundle.sizeBytes)
            report.staleTemporariesRemoved = stale
            return report
        } catch let error as StewardError {
            throw StewardError(error.kind, error.message.replacingOccurrences(of: spooled, with: "from standard input"), remedy: error.remedy)
        }
    }

    /// Copies standard input to a new file; a read error is 74, an empty input 65.
    static func spool(_ input: Int32, to path: String, cancellation: Cancellation) throws {
        let output = open(FileName.cString(path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else {
            let code = errno
            throw StewardError(SystemCall.outputKind(code), "cannot spool standard input under TMPDIR: \(SystemCall.message(code))")
        }
        defer { close(output) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var total = 0
        while true {
            if cancellation.isCancelled {
                throw StewardError.interrupted(by: cancellation, "; nothing was restored")
            }
            let count = buffer.withUnsafeMutableBytes { raw in
                let result = read(input, raw.baseAddress, raw.count)
                return result < 0 ? -Int(errno) : result
            }
            if count == -Int(EINTR) { continue }
            guard count >= 0 else {
                throw StewardError(.inputOutput, "cannot read the bundle from standard input: \(SystemCall.message(Int32(-count)))")
            }
            if count == 0 { break }
            total += count
            let code = buffer.withUnsafeBytes { SystemCall.writeAll(output, UnsafeRawBufferPointer(rebasing: $0[..<count])) }
            guard code == 0 else {
                throw StewardError(.inputOutput, "cannot spool standard input under TMPDIR: \(SystemCall.message(code))")
            }
        }
        guard total > 0 else {
            throw StewardError(.badInput, "standard input was empty: no bundle to restore")
        }
    }

    private func restoreOrReplace() throws -> RestoreReport {
        guard let path = options.replacePath else { return try restore() }
        let kept = DatabaseReplacement.keptPath(
            for: path, keepDirectory: options.keepReplacedDirectory, discard: options.discardsReplaced,
            at: Int64(Date().timeIntervalSince1970))
        try DatabaseReplacement.checkTarget(path, keptPath: kept)
        try DatabaseReplacement.checkOwnership(of: path)
        // The restore is staged beside PATH, on its file system, so that the swap is one
        // rename; a killed run's workspace is removed by the next run in that directory.
        let parent = Paths.directoryOrCurrent(of: path)
        _ = TemporaryWorkspace.removeStale(in: parent, prefix: ".") { $0.contains(DatabaseReplacement.workspaceMarker) }
        var visible = ""
        for character in Paths.fileName(of: path) {
            guard visible.utf8.count + character.utf8.count <= 64 else { break }
            visible.append(character)
        }
        let workspace = try TemporaryWorkspace(in: parent, prefix: ".\(visible)\(DatabaseReplacement.workspaceMarker)")
        defer { workspace.remove() }
        var options = self.options
        options.replacePath = nil
        options.intoDirectory = workspace.file("restored")
        var report = try Restorer(options: options, cancellation: cancellation, progress: progress).restore()
        let restored = report.database.path
        report.into = ""
        report.database = DatabaseReference(path: path, sha256: report.database.sha256)
        guard report.published else { return report }
        var replacement = DatabaseReplacement(path: path, keptPath: kept, timeout: self.options.timeout, cancellation: cancellation)
        replacement.extensions = self.options.extensions
        let outcome = try replacement.run(newDatabase: restored)
        report.replacement = RestoreReport.Replacement(
            path: path, replacedKeptAs: kept, journalModeBefore: outcome.journalModeBefore,
            sideFilesResolved: outcome.resolved, lockWaitSeconds: outcome.lockWaitSeconds)
        progress(.published(path: path))
        return report
    }

    private func restore() throws -> RestoreReport {
        let total = Stopwatch()
        let bundleSize = try BundleReader.checkBundle(options.bundlePath)
        // An encrypted bundle's key and header first: without them, nothing is created.
        let opened = try bundleReader().open()
        var drillWorkspace: TemporaryWorkspace?
        defer { drillWorkspace?.remove() }
        let target: RestoreTarget
        if options.checkOnly && options.intoDirectory.isEmpty {
            let workspace = try TemporaryWorkspace(in: FileManager.default.temporaryDirectory.path, prefix: TemporaryWorkspace.checkOnlyPrefix)
            drillWorkspace = workspace
            target = try RestoreTarget(path: workspace.file("restored"))
        } else {
            target = try RestoreTarget(path: options.intoDirectory)
        }
        let stale = target.removeStaleStaging()
        let staging = try target.createStaging()
        defer { staging.removeUnlessPublished() }
        try checkCancellation()

        // 1. Extract.
        let extractWatch = Stopwatch()
        let (outcome, payload) = try extract(opened, into: staging)
        defer { payload.close() }
        let file = outcome.files[0]
        for file in outcome.files where !file.matches {
            throw StewardError(.badInput, "the bundle is damaged or was altered: \(options.bundlePath): \(file.path) has SHA-256 \(file.sha256), \(BundleManifest.manifestEntry) lists \(file.expectedSHA256)")
        }
        try staging.writeFile(BundleManifest.manifestEntry, contents: outcome.manifestBytes)
        try staging.writeFile(BundleManifest.checksumEntry, contents: outcome.checksumListBytes)
        let extractSeconds = extractWatch.roundedSeconds
        TestHooks.pause(at: .restoreChecks)
        try checkCancellation()

        // 2. Checks.
        let checkWatch = Stopwatch()
        progress(.checking)
        let databasePath = staging.file(file.path)
        var checks: [CheckResult] = [
            .init(name: .sha256, status: .pass, summary: "\(file.path) matches the manifest", durationSeconds: extractSeconds),
        ]
        let header = try checkHeader(payload.header, entry: file.path)
        checks.append(header.check)
        let size = payloadSize(file.size, header: header.header, source: outcome.manifest.source)
        checks.append(size)
        guard size.status == .pass else {
            // Refused before SQLite opens the file and before anything copies it.
            for check in checks { progress(.checked(check)) }
            return report(outcome: outcome, bundleSize: bundleSize, stale: stale, checks: checks, walConverted: false,
                          databaseSHA256: file.sha256, tables: [], extractSeconds: extractSeconds,
                          checkSeconds: checkWatch.roundedSeconds, totalSeconds: total.roundedSeconds)
        }
        let journal = try switchToRollbackJournal(databasePath, header: header.header, entry: file.path)
        checks.append(journal.check)
        for check in checks { progress(.checked(check)) }
        // A switch from WAL rewrote the file after it was hashed; the probe must leave it
        // as the checks saw it.
        let databaseSHA256 = journal.converted ? try FileStreaming.sha256(of: databasePath).sha256 : file.sha256
        let progress = self.progress
        let recordedDigests = outcome.manifest.contentDigests
        let results = try RestoredDatabaseChecks(
            databasePath: databasePath, manifest: outcome.manifest, staging: staging, cancellation: cancellation,
            checksFTS: options.checksFTS, extensions: options.extensions, ftsCheck: options.ftsCheck, ftsWorkers: options.ftsWorkers,
            databaseSHA256: databaseSHA256,
            digest: { contentDigestCheck(databasePath, recorded: recordedDigests) },
            recordsFailures: options.acceptsRecordedFailures && outcome.manifest.recordedFailures != nil
        ) { progress(.checked($0)) }.run()
        checks += results.checks
        if let recorded = outcome.manifest.recordedFailures {
            checks = acceptRecordedFailures(checks, recorded: recorded, found: results.found)
        }
        let refusedBy = checks.filter { $0.status == .fail }.map(\.name.rawValue)
        checks.append(refusedBy.isEmpty
            ? results.contentDigest
            : .init(name: .contentDigest, status: .skipped, summary: "not run: \(refusedBy.joined(separator: ", ")) failed", durationSeconds: 0))
        progress(.checked(checks[checks.count - 1]))
        checks.append(sideFiles(staging, payload: file.path))
        progress(.checked(checks[checks.count - 1]))
        try checkCancellation()

        let published = !checks.contains { $0.status == .fail }
        if published && !options.checkOnly {
            // Its write-back started while it was extracted and went on during the checks
            // (design notes, "Performance": an fsync at the end of the extraction held the checks back).
            try payload.sync()
            try staging.sync()
            try checkCancellation()
            try target.publish(staging)
            progress(.published(path: options.intoDirectory))
        }
        return report(outcome: outcome, bundleSize: bundleSize, stale: stale, checks: checks, walConverted: journal.converted,
                      databaseSHA256: databaseSHA256, tables: results.tables, extractSeconds: extractSeconds,
                      checkSeconds: checkWatch.roundedSeconds, totalSeconds: total.roundedSeconds)
    }

    private func report(
        outcome: BundleReader.Outcome, bundleSize: Int64, stale: [String], checks: [CheckResult], walConverted: Bool,
        databaseSHA256: String, tables: [RestoreReport.Table], extractSeconds: Double, checkSeconds: Double, totalSeconds: Double
    ) -> RestoreReport {
        let failed = checks.filter { $0.status == .fail }.map(\.name.rawValue)
        var report = RestoreReport(
            stewardVersion: StewardVersion.current, sqliteVersion: SQLiteLibrary.version,
            bundle: BundleReference(path: options.bundlePath, sizeBytes: bundleSize), into: options.intoDirectory,
            database: DatabaseReference(path: Paths.join(options.intoDirectory, outcome.files[0].path), sha256: databaseSHA256),
            published: failed.isEmpty && !options.checkOnly,
            manifest: outcome.manifest, files: outcome.files, walConverted: walConverted,
            checks: checks, failedChecks: failed, fts5CheckSkipped: !options.checksFTS,
            tables: tables, staleStagingRemoved: stale, extractSeconds: extractSeconds, checkSeconds: checkSeconds,
            totalSeconds: totalSeconds)
        report.encryption = outcome.encryption
        if options.checkOnly { report.checkOnly = true }
        return report
    }

    /// A database file is exactly its pages (`PayloadSizeCheck`, which backup runs on its
    /// copy too): refused before SQLite opens the file and before the checks read it.
    private func payloadSize(_ size: Int64, header: DatabaseHeader, source: BundleManifest.Source) -> CheckResult {
        let watch = Stopwatch()
        let check = PayloadSizeCheck.check(size: size, header: header, source: source)
        return .init(name: check.name, status: check.status, summary: check.summary, durationSeconds: watch.roundedSeconds)
    }

    // MARK: - Phases

    private func bundleReader() -> BundleReader {
        var reader = BundleReader(path: options.bundlePath, cancellation: cancellation)
        reader.keys = options.keys
        return reader
    }

    private func extract(_ opened: BundleReader.Opened, into staging: StagingDirectory) throws -> (BundleReader.Outcome, PayloadFile) {
        var reader = bundleReader()
        let throttle = Throttle()
        let progress = self.progress
        reader.progress = { done, total in
            guard let seconds = throttle.due(final: done == total) else { return }
            progress(.extracting(bytes: done, totalBytes: total, bytesPerSecond: seconds > 0 ? Double(done) / seconds : 0))
        }
        var payload: PayloadFile?
        do {
            let outcome = try reader.read(opened: opened) { file in
                let descriptor = try staging.createFile(file.path)
                let sink = PayloadFile(descriptor: descriptor, name: file.path, directory: staging.path)
                payload = sink
                return sink
            }
            guard let payload, outcome.files.count == 1 else {
                throw StewardError(.internal, "a version 1 bundle holds exactly one payload file")
            }
            return (outcome, payload)
        } catch {
            payload?.close()
            throw error
        }
    }

    /// The magic string and the header's fields, before SQLite opens the file.
    private func checkHeader(_ bytes: [UInt8], entry: String) throws -> (check: CheckResult, header: DatabaseHeader) {
        let watch = Stopwatch()
        do {
            let header = try DatabaseHeader(bytes: bytes)
            let summary = "SQLite format 3, page size \(header.pageSize), \(header.textEncodingName), journal \(header.journalName)"
            return (.init(name: .header, status: .pass, summary: summary, durationSeconds: watch.roundedSeconds), header)
        } catch let problem as DatabaseHeader.Problem {
            throw StewardError(.badInput, "refusing the bundle \(options.bundlePath): its payload \(entry) is not a SQLite database (\(problem))")
        }
    }

    /// A database whose header says WAL would need a `-wal` the bundle does not have, and
    /// would make `-wal` and `-shm` files wherever it is opened: switched to rollback
    /// journal here, in the staging directory, so that the result never needs them.
    private func switchToRollbackJournal(_ path: String, header: DatabaseHeader, entry: String) throws -> (check: CheckResult, converted: Bool) {
        let watch = Stopwatch()
        guard header.isWAL else {
            return (.init(name: .journalMode, status: .pass,
                          summary: "rollback journal (header bytes 18-19 = \(header.writeVersion), \(header.readVersion)); needs no -wal or -shm",
                          durationSeconds: watch.roundedSeconds), false)
        }
        do {
            let connection = try DatabaseFile.open(path: path, .readWrite)
            try connection.harden(loadingExtensions: options.extensions)
            let cancellation = self.cancellation
            connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
            let mode = try connection.setJournalMode("delete")
            guard mode == "delete" else {
                return (.init(name: .journalMode, status: .fail, summary: "WAL in the header; switching to rollback journal left journal mode \(mode)",
                              durationSeconds: watch.roundedSeconds), true)
            }
        } catch let error as SQLiteError {
            return (.init(name: .journalMode, status: .fail,
                          summary: "WAL in the header; cannot switch to rollback journal: \(try RestoredDatabaseChecks.failure(error, cancellation))",
                          durationSeconds: watch.roundedSeconds), true)
        }
        // The last connection has closed: SQLite removed the -wal; an -shm it may leave is
        // only an index of a WAL that no longer exists.
        unlink(FileName.cString(path + "-shm"))
        let bytes = (try? DatabaseFile(path: path).headerBytes) ?? []
        guard let after = try? DatabaseHeader(bytes: bytes), after.writeVersion == 1, after.readVersion == 1 else {
            return (.init(name: .journalMode, status: .fail, summary: "WAL in the header, and still after switching to rollback journal",
                          durationSeconds: watch.roundedSeconds), true)
        }
        return (.init(name: .journalMode, status: .pass,
                      summary: "WAL in the header of \(entry); switched to rollback journal (header bytes 18-19 = 1, 1)",
                      durationSeconds: watch.roundedSeconds), true)
    }

    static let acceptableChecks: Set<CheckName> = [.integrity, .foreignKeys, .ftsSync]

    /// For a bundle with recorded failures: its failed integrity, foreign-key and FTS5
    /// checks become `accepted` when `--accept-recorded-failures` was given, no other
    /// check failed, and what the database shows now is covered by what was recorded.
    /// What it shows is what the checks found (`RestoredDatabaseChecks.Result.found`: nil
    /// when one could not run), not a second run of them.
    private func acceptRecordedFailures(_ checks: [CheckResult], recorded: RecordedFailures, found: RecordedFailures?) -> [CheckResult] {
        let failing = Set(checks.filter { $0.status == .fail }.map(\.name))
        guard options.acceptsRecordedFailures, !failing.isEmpty, failing.isSubset(of: Self.acceptableChecks),
              let found else { return checks }
        var fts5: Set<String> = []
        if let check = checks.first(where: { $0.name == .ftsSync && $0.status == .fail }) {
            // Names only from the details; a detail naming no recorded table counts as another one.
            for detail in check.details {
                fts5.insert(recorded.fts5Tables.first { detail.contains($0) } ?? "(an FTS5 table not recorded)")
            }
        }
        let foundWithFTS5 = RecordedFailures(integrity: found.integrity, foreignKeyViolations: found.foreignKeyViolations,
                                             fts5Tables: fts5.sorted())
        guard recorded.covers(foundWithFTS5) else { return checks }
        return checks.map { check in
            guard check.status == .fail else { return check }
            return .init(name: check.name, status: .accepted,
                         summary: "failed as the manifest recorded, accepted as recorded failures were allowed: \(check.summary)",
                         durationSeconds: check.durationSeconds, details: check.details)
        }
    }

    /// The restored database's content digests against the manifest's: the same data,
    /// table by table. Differences are named by table, never by row. Returns what was
    /// computed too: its row counts serve the table check.
    private func contentDigestCheck(_ path: String, recorded: ContentDigests?) -> (check: CheckResult, found: ContentDigests?) {
        let watch = Stopwatch()
        guard let recorded else {
            return (.init(name: .contentDigest, status: .skipped,
                          summary: "the manifest records no content digests (a bundle made before Steward recorded them)",
                          durationSeconds: watch.roundedSeconds), nil)
        }
        // A bundle is compared by the rule it was made with (v1 bundles keep restoring).
        guard ContentDigests.knownAlgorithms.contains(recorded.algorithm) else {
            return (.init(name: .contentDigest, status: .skipped,
                          summary: "the manifest's digests use an algorithm this Steward does not know",
                          durationSeconds: watch.roundedSeconds, details: [recorded.algorithm]), nil)
        }
        do {
            // Only this thread uses the connection; the digests read every value through it.
            let connection = try DatabaseFile.open(path: path, .readOnly, parameters: "&immutable=1", oneThread: true)
            try connection.harden(loadingExtensions: options.extensions)
            let cancellation = self.cancellation
            connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
            let found = try ContentDigests.compute(connection, algorithm: recorded.algorithm, cancellation: cancellation)
            let differences = found.differences(from: recorded)
            guard differences.isEmpty else {
                return (.init(name: .contentDigest, status: .fail,
                              summary: "\(differences.count) digest\(differences.count == 1 ? "" : "s") differ from the manifest's",
                              durationSeconds: watch.roundedSeconds, details: differences), found)
            }
            return (.init(name: .contentDigest, status: .pass,
                          summary: "schema and \(found.tables.count) table\(found.tables.count == 1 ? "" : "s") match the manifest's digests",
                          durationSeconds: watch.roundedSeconds), found)
        } catch {
            return (.init(name: .contentDigest, status: .fail, summary: "cannot compute the digests: \(SQLiteMessage.text(of: error))",
                          durationSeconds: watch.roundedSeconds), nil)
        }
    }

    /// The staging directory holds the manifest, the checksum list and the database, and
    /// nothing else: no `-wal`, `-shm` or `-journal`, no probe copy.
    private func sideFiles(_ staging: StagingDirectory, payload: String) -> CheckResult {
        let watch = Stopwatch()
        let expected = [BundleManifest.manifestEntry, BundleManifest.checksumEntry, BundleManifest.dataDirectory, payload].sorted()
        let found = staging.contents()
        let extra = found.filter { !expected.contains($0) }
        guard extra.isEmpty, found.count == expected.count else {
            return .init(name: .sideFiles, status: .fail, summary: "unexpected files beside the database: \(extra.joined(separator: ", "))",
                         durationSeconds: watch.roundedSeconds)
        }
        return .init(name: .sideFiles, status: .pass, summary: "no -wal, -shm or -journal beside the database", durationSeconds: watch.roundedSeconds)
    }

    private func checkCancellation() throws {
        if cancellation.isCancelled { throw BundleReader.interrupted(cancellation) }
    }

    // MARK: - Inputs

}

/// The payload file being written in the staging directory: its first 100 bytes are kept
/// for the header check, and it is written back to disk while it is written.
///
/// Nothing past the pages its header declares is written (the reader still hashes it):
/// such a payload fails `payload_size` anyway, and a small database followed by
/// gigabytes of zeros must not take that room on disk.
///
/// Every few MiB, `sync_file_range` starts the write-back of what came before, so that
/// the disk works while the bundle is still being decompressed and checked, and the
/// fsync before publishing has little left to do (`WriteBack`).
final class PayloadFile: BundleReader.Sink {

    let name: String
    private let directory: String
    private var descriptor: Int32
    private(set) var header: [UInt8] = []
    private var written: Int64 = 0
    /// Page size x page count from the header, once it is read and its page count valid.
    private var declaredSize: Int64?
    private var writeBack = WriteBack()

    init(descriptor: Int32, name: String, directory: String) {
        self.descriptor = descriptor
        self.name = name
        self.directory = directory
    }

    func write(_ block: UnsafeRawBufferPointer) throws {
        if header.count < DatabaseHeader.size {
            header += block.prefix(DatabaseHeader.size - header.count)
            if header.count == DatabaseHeader.size, let parsed = try? DatabaseHeader(bytes: header), parsed.isPageCountValid {
                declaredSize = Int64(parsed.pageSize) * Int64(parsed.pageCount)
            }
        }
        var data = block
        if let declaredSize {
            let room = max(0, declaredSize - written)
            if room < Int64(block.count) { data = UnsafeRawBufferPointer(rebasing: block.prefix(Int(room))) }
        }
        guard !data.isEmpty else { return }
        let code = SystemCall.writeAll(descriptor, data)
        guard code == 0 else { throw failure(code) }
        written += Int64(data.count)
        if let code = writeBack.advance(descriptor, to: written) { throw failure(code) }
    }

    /// The data is complete: the write-back of the rest starts, and goes on while the
    /// checks read the file; the fsync comes before publishing, when little is left.
    func finish() throws {
        if let code = writeBack.advance(descriptor, to: written, final: true) { throw failure(code) }
    }

    func sync() throws {
        let code = SystemCall.sync(descriptor)
        guard code == 0 else { throw failure(code) }
    }

    func close() {
        guard descriptor >= 0 else { return }
        // Durability comes from the fsync before publishing; a failure here, on a path
        // that is not publishing or after that fsync, changes nothing.
        _ = Glibc.close(descriptor)
        descriptor = -1
    }

    private func failure(_ code: Int32) -> StewardError {
        if code == ENOSPC || code == EDQUOT {
            return StewardError(.inputOutput, "no space left in \(directory) for \(name) (\(SystemCall.message(code)))")
        }
        return StewardError(.inputOutput, "cannot write \(name) in \(directory): \(SystemCall.message(code))")
    }
}

extension Restorer: StewardOperation {}

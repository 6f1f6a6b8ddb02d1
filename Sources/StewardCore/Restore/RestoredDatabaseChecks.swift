import Foundation
import SQLiteKit

import BundleFormat
import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// The checks on a database unpacked into the staging directory, before
/// it may be published. Every connection is hardened (defensive mode, no extension
/// loading, cell size checks, no memory mapping): the file came from elsewhere.
///
/// On a thread of its own, FTS5's own integrity-check (`FTS5IntegrityCheck`, inside
/// `BEGIN … ROLLBACK`), the longest. Meanwhile on this thread, `integrity_check` on a
/// read-write, query-only connection (`IntegrityCheck`: a read-only one would not check
/// CHECK constraints), then, read-only on the file opened `immutable` so that
/// nothing is created beside it: `foreign_key_check`, `user_version`, `application_id`
/// and the page count against the manifest, the content digests (`digest`, reported by
/// the caller), a count of every table (`TableReadsCheck`, as backup's; the digested ones
/// counted by the digests' pass; views are prepared by `schema-objects`, never run).
/// None of them writes the file, so they can share it. Only when all of those on this
/// thread pass and have closed their connections, the read-write probe (`ReadWriteProbe`), in
/// a rolled-back transaction on the file itself, which it proves unchanged afterwards,
/// while FTS5's check (which takes no lock) may still run.
struct RestoredDatabaseChecks {
    let databasePath: String
    let manifest: BundleManifest
    let staging: StagingDirectory
    let cancellation: Cancellation
    /// Whether FTS5's integrity-check runs (it is `skipped` otherwise).
    var checksFTS = true
    /// Loaded into every connection (`harden(loadingExtensions:)`).
    var extensions: [String] = []
    /// Which check proves FTS5 tables, and on how many workers (nil: the cores).
    var ftsCheck: FTS5CheckKind = .parallel
    var ftsWorkers: Int?
    /// The SHA-256 of the staged file, which the read-write probe must leave unchanged.
    var databaseSHA256: String
    /// The content digests' check and what it found, computed on this thread while the
    /// FTS5 check runs on another; its result is the caller's to report.
    var digest: @Sendable () -> (check: CheckResult, found: ContentDigests?) = {
        (.init(name: .contentDigest, status: .skipped, summary: "not computed", durationSeconds: 0), nil)
    }
    /// Whether the manifest's recorded failures may be accepted: `integrity_check` then
    /// runs to `RecordedFailures.integrityLimit`, and what it and the foreign-key check
    /// found comes back as `Result.found`, so that neither runs a second time.
    var recordsFailures = false
    /// Called as each check ends, from the thread that ran it.
    let finished: @Sendable (CheckResult) -> Void

    struct Result {
        let checks: [CheckResult]
        let tables: [RestoreReport.Table]
        let contentDigest: CheckResult
        /// With `recordsFailures`: the integrity and foreign-key failures found, in the
        /// manifest's terms (no FTS5 tables); nil when either check could not run.
        let found: RecordedFailures?
    }

    func run() throws -> Result {
        // Whatever this thread throws, the FTS5 check is stopped and waited for before the
        // staging directory (and the file it reads) can go.
        let fts = BackgroundWork { [self] stop in try fts5Check(stop: stop) }
        defer {
            fts.cancel()
            _ = try? fts.wait()
        }

        // FTS5's check is the longest: it keeps one core to itself, while this thread
        // runs everything else, one after another, on the other (design notes, "Performance": three threads
        // sharing two cores held the FTS5 check back by a third).
        let (integrity, integrityFound) = try integrityCheck()
        var checks: [CheckResult] = [integrity]
        let (readOnly, tables, contentDigest, foreignKeyPairs) = try readOnlyChecks()
        checks += readOnly

        // The probe writes (and rolls back) the file: never one that a check here refused.
        // FTS5's check takes no lock (`fts5Check`), so the probe and its SHA-256 read run
        // while it does (design notes, "Performance": after it, they added 1 s per GiB to
        // each restore).
        let probed = try probe(after: checks)
        checks.append(try fts.wait())
        checks.append(probed)
        var found: RecordedFailures?
        if let integrityFound, let foreignKeyPairs {
            found = RecordedFailures(integrity: integrityFound, foreignKeyViolations: foreignKeyPairs,
                                     fts5Tables: [])
        }
        return Result(checks: checks, tables: tables, contentDigest: contentDigest, found: found)
    }

    /// The read-write probe (`ReadWriteProbe`), or skipped when one of `checks` failed.
    private func probe(after checks: [CheckResult]) throws -> CheckResult {
        let refusedBy = checks.filter { $0.status == .fail }.map(\.name.rawValue)
        let probed: CheckResult
        if refusedBy.isEmpty {
            probed = try ReadWriteProbe(databasePath: databasePath, directory: staging.path, cancellation: cancellation,
                                        extensions: extensions, expectedSHA256: databaseSHA256).run()
        } else {
            probed = .init(name: .readWriteProbe, status: .skipped,
                           summary: "not run: \(refusedBy.joined(separator: ", ")) failed, and the file is not written for it", durationSeconds: 0)
        }
        finished(probed)
        return probed
    }

    // MARK: - FTS5

    /// FTS5's check on a read-write connection that takes no lock (`nolock=1`): its
    /// statement is an INSERT, whose write transaction would hold the lock the read-write
    /// probe needs for as long as the check runs. It writes nothing (measured: no journal
    /// is made, the file is unchanged), so it has nothing to lock against the probe, whose
    /// spilling is off (it never writes the file, only its journal, which SQLite does not
    /// take for a hot one: its header stays zero until a sync). Nothing else opens the
    /// staged file but these checks, and the probe's SHA-256 read proves the file unchanged
    /// afterwards. Without locks, the close of a descriptor to the file by another check
    /// (which drops every POSIX lock of the process) takes nothing from it either.
    private func fts5Check(stop: Cancellation) throws -> CheckResult {
        let watch = Stopwatch()
        let check: CheckResult
        if !checksFTS {
            check = .init(name: .ftsSync, status: .skipped, summary: "skipped on request: full-text indexes were not checked",
                          durationSeconds: 0)
        } else {
            do {
                let connection = try Self.openForFTS5Check(databasePath, extensions: extensions)
                let cancellation = self.cancellation
                connection.setProgressHandler(instructions: 100_000) { !(cancellation.isCancelled || stop.isCancelled) }
                let method = FTS5CheckMethod.file(databasePath, kind: ftsCheck, workers: ftsWorkers, extensions: extensions, cancellation: cancellation)
                check = .init(try DatabaseChecks.fullTextIntegrity(on: connection, method: method), durationSeconds: watch.roundedSeconds,
                              versionsFrom: Self.versionsFrom)
            } catch let error as SQLiteError {
                check = .init(name: .ftsSync, status: .fail, summary: try Self.failure(error, cancellation),
                              durationSeconds: watch.roundedSeconds)
            }
        }
        finished(check)
        return check
    }

    /// The hardened read-write connection, without locks, that FTS5's check runs on.
    static func openForFTS5Check(_ path: String, extensions: [String] = []) throws -> Connection {
        let connection = try DatabaseFile.open(path: path, .readWrite, parameters: "&nolock=1", oneThread: true)
        try connection.harden(loadingExtensions: extensions)
        return connection
    }

    // MARK: - integrity_check

    /// The check, and with `recordsFailures` what it found in the manifest's terms.
    private func integrityCheck() throws -> (CheckResult, RecordedFailures.Integrity?) {
        let watch = Stopwatch()
        let check: CheckResult
        var recorded: RecordedFailures.Integrity?
        do {
            let cancellation = self.cancellation
            let connection = try IntegrityCheck.open(path: databasePath, loadingExtensions: extensions) { cancellation.isCancelled }
            let whole = try DatabaseChecks.integrity(
                on: connection, maximumErrors: recordsFailures ? RecordedFailures.integrityLimit : 10)
            // The names failing to read leave the record out (nothing is accepted), not the check.
            if recordsFailures { recorded = try? whole.recordedIntegrity(tablesIn: connection) }
            check = .init(DatabaseChecks.integrity(whole, limitedTo: 10), durationSeconds: watch.roundedSeconds,
                          versionsFrom: Self.versionsFrom)
        } catch let error as SQLiteError {
            check = .init(name: .integrity, status: .fail, summary: try Self.failure(error, cancellation),
                          durationSeconds: watch.roundedSeconds)
        } catch is IntegrityCheck.NotWritable {
            check = .init(name: .integrity, status: .fail,
                          summary: "SQLite opened the staged file read-only, which would leave CHECK constraints unchecked",
                          durationSeconds: watch.roundedSeconds)
        }
        finished(check)
        return (check, recorded)
    }

    // MARK: - Read-only checks

    /// The checks, the tables counted, the content digests' check, and with
    /// `recordsFailures` the foreign-key pairs counted (nil when the check could not run).
    private func readOnlyChecks() throws -> ([CheckResult], [RestoreReport.Table], CheckResult, [DatabaseChecks.ForeignKeyCount]?) {
        let connection: Connection
        do {
            let cancellation = self.cancellation
            connection = try Self.openReadOnly(databasePath, extensions: extensions) { cancellation.isCancelled }
        } catch let error as SQLiteError {
            let summary = try Self.failure(error, cancellation)
            let names: [CheckName] = [.foreignKeys, .version, .applicationID, .pageCount, .tables, .schemaObjects]
            let failed = names.map { CheckResult(name: $0, status: .fail, summary: summary, durationSeconds: 0) }
            failed.forEach(finished)
            return (failed, [], digest().check, nil)
        }
        var checks: [CheckResult] = []
        func report(_ name: CheckName, _ body: () throws -> Check) throws {
            try run(name) {
                let result = CheckResult(try body(), durationSeconds: 0, versionsFrom: Self.versionsFrom)
                return (result.status, result.summary, result.details)
            }
        }
        func run(_ name: CheckName, _ body: () throws -> (CheckResult.Status, String, [String])) throws {
            let watch = Stopwatch()
            let check: CheckResult
            do {
                let (status, summary, details) = try body()
                check = .init(name: name, status: status, summary: summary, durationSeconds: watch.roundedSeconds, details: details)
            } catch let error as SQLiteError {
                check = .init(name: name, status: .fail, summary: try Self.failure(error, cancellation), durationSeconds: watch.roundedSeconds)
            }
            finished(check)
            checks.append(check)
        }

        var foreignKeyPairs: [DatabaseChecks.ForeignKeyCount]?
        try report(.foreignKeys) {
            let pairs = try DatabaseChecks.foreignKeyCounts(on: connection)
            if recordsFailures { foreignKeyPairs = pairs }
            return DatabaseChecks.foreignKeys(counted: pairs)
        }
        let source = manifest.source
        try report(.version) { try DatabaseChecks.userVersion(on: connection, expected: source.userVersion) }
        try run(.applicationID) {
            let value = Int32(truncatingIfNeeded: try connection.integer(sql: "PRAGMA application_id"))
            return value == source.applicationID
                ? (.pass, "\(value), as in the manifest", [])
                : (.fail, "\(value), the manifest says \(source.applicationID)", [])
        }
        try run(.pageCount) {
            let count = Int(try connection.integer(sql: "PRAGMA page_count"))
            let size = Int(try connection.integer(sql: "PRAGMA page_size"))
            guard count == source.pageCount, size == source.pageSize else {
                return (.fail, "\(Counted.phrase(count, "page")) of \(size) bytes, the manifest says \(source.pageCount) of \(source.pageSize)", [])
            }
            return (.pass, "\(Counted.phrase(count, "page")) of \(size) bytes, as in the manifest", [])
        }
        // The digests read every row of every ordinary and FTS5 table: their row counts
        // are the table check's, so that no table is read twice (design notes, "Performance").
        let contentDigest = digest()
        var digested: [String: Int64] = [:]
        for table in contentDigest.found?.tables ?? [] { digested[table.name] = table.rows }
        var tables: [RestoreReport.Table] = []
        // Every table reads: the one check backup runs on its copy too (views are prepared, not run).
        try report(.tables) {
            let outcome = try TableReadsCheck.run(on: connection, counted: digested) { try Self.failure($0, cancellation) }
            tables = outcome.tables.map { .init(name: $0.name, type: $0.type, rowCount: $0.rowCount, error: $0.error) }
            return outcome.check
        }
        // Views, triggers and virtual tables prepare: the one check verify and backup run too.
        try run(.schemaObjects) {
            let result = CheckResult(try DatabaseChecks.schemaObjects(on: connection), durationSeconds: 0, versionsFrom: Self.versionsFrom)
            return (result.status, result.summary, result.details)
        }
        return (checks, tables, contentDigest.check, foreignKeyPairs)
    }

    // MARK: - Connections and errors

    /// Where the expected `user_version` comes from, as the version check's summary says.
    static let versionsFrom = "the manifest"

    /// The restored file, read-only and immutable: no locks, nothing created beside it,
    /// hardened before the schema is read.
    static func openReadOnly(_ path: String, extensions: [String] = [], isCancelled: @escaping () -> Bool) throws -> Connection {
        let connection = try DatabaseFile.open(path: path, .readOnly, parameters: "&immutable=1")
        try connection.harden(loadingExtensions: extensions)
        connection.setProgressHandler(instructions: 100_000) { !isCancelled() }
        _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
        return connection
    }

    /// What a failed statement means: the check failed (returned as the summary), or the
    /// whole restore ends (thrown): a signal, or a file that is no database at all.
    ///
    /// - Throws: `StewardError` (`.interrupted`, or `.badInput` for a payload that is no database).
    static func failure(_ error: SQLiteError, _ cancellation: Cancellation) throws -> String {
        try SQLiteErrorMapping(path: "", role: .restoredDatabase, cancellation: cancellation).checkSummary(for: error)
    }
}

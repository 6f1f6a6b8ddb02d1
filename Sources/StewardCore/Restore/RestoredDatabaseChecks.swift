import Foundation
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

/// The checks on a database unpacked into the staging directory (field notes §4), before
/// it may be published. Every connection is hardened (defensive mode, no extension
/// loading, cell size checks, no memory mapping): the file came from elsewhere.
///
/// On a thread of its own, `integrity_check` on a read-write, query-only connection
/// (`IntegrityCheck`: a read-only one would not check CHECK constraints); on another,
/// FTS5's own integrity-check (`FTS5IntegrityCheck`, inside `BEGIN … ROLLBACK`), the
/// longest. Meanwhile on this thread, read-only on the file opened `immutable` so that
/// nothing is created beside it: `foreign_key_check`, `user_version`, `application_id`
/// and the page count against the manifest, and a count of every table. None of them
/// writes the file, so they can share it. Only when all of them pass, the
/// read-write probe, on a disposable copy (`ReadWriteProbe`): a file the checks refused
/// is never copied. The restored file is never written by any of them.
struct RestoredDatabaseChecks {
    let databasePath: String
    let manifest: BundleManifest
    let staging: StagingDirectory
    let cancellation: Cancellation
    /// Whether FTS5's integrity-check runs (it is `skipped` otherwise).
    var checksFTS = true
    /// Loaded into every connection (`harden(loadingExtensions:)`).
    var extensions: [String] = []
    /// Called as each check ends, from the thread that ran it.
    let finished: @Sendable (RestoreReport.Check) -> Void

    struct Result {
        let checks: [RestoreReport.Check]
        let tables: [RestoreReport.Table]
    }

    func run() throws -> Result {
        // Whatever this thread throws, the others are stopped and waited for before the
        // staging directory (and the file they read) can go.
        let stop = Cancellation()
        let integrity = BackgroundCheck { [self] in try integrityCheck(stop: stop) }
        let fts = BackgroundCheck { [self] in try fts5Check(stop: stop) }
        integrity.start()
        fts.start()
        defer {
            stop.cancel(reason: "not needed")
            _ = try? integrity.wait()
            _ = try? fts.wait()
        }

        var checks: [RestoreReport.Check] = []
        let (readOnly, tables) = try readOnlyChecks()
        checks += readOnly
        checks.append(try fts.wait())
        checks.insert(try integrity.wait(), at: 0)

        // The probe needs a full copy of the file: made only of a file every other check
        // accepted, so that a refused one never takes twice its size.
        let refusedBy = checks.filter { $0.status == .fail }.map(\.name)
        let probed: RestoreReport.Check
        if refusedBy.isEmpty {
            let probe = ReadWriteProbe(databasePath: databasePath, staging: staging, cancellation: cancellation, extensions: extensions)
            defer { probe.discard() }
            try probe.prepare()
            probed = try probe.run()
        } else {
            probed = .init(name: "read_write_probe", status: .skipped,
                           summary: "not run: \(refusedBy.joined(separator: ", ")) failed, and the file is not copied for it", durationSeconds: 0)
        }
        finished(probed)
        checks.append(probed)
        return Result(checks: checks, tables: tables)
    }

    // MARK: - FTS5

    private func fts5Check(stop: Cancellation) throws -> RestoreReport.Check {
        let watch = Stopwatch()
        let check: RestoreReport.Check
        if !checksFTS {
            check = .init(name: CheckName.ftsSync.bundleName, status: .skipped, summary: "skipped on request: FTS5 indexes were not checked",
                          durationSeconds: 0)
        } else {
            do {
                let connection = try DatabaseFile.open(path: databasePath, .readWrite)
                try connection.harden(loadingExtensions: extensions)
                let cancellation = self.cancellation
                connection.setProgressHandler(instructions: 100_000) { !(cancellation.isCancelled || stop.isCancelled) }
                let found = try DatabaseChecks.fts5Integrity(on: connection)
                check = .init(name: CheckName.ftsSync.bundleName, status: found.passed ? .pass : .fail,
                              summary: found.detail, durationSeconds: watch.roundedSeconds, details: found.problems)
            } catch let error as SQLiteError {
                check = .init(name: CheckName.ftsSync.bundleName, status: .fail, summary: try Self.failure(error, cancellation),
                              durationSeconds: watch.roundedSeconds)
            }
        }
        finished(check)
        return check
    }

    // MARK: - integrity_check

    private func integrityCheck(stop: Cancellation) throws -> RestoreReport.Check {
        let watch = Stopwatch()
        let check: RestoreReport.Check
        do {
            let cancellation = self.cancellation
            let connection = try IntegrityCheck.open(path: databasePath) { cancellation.isCancelled || stop.isCancelled }
            let found = try DatabaseChecks.integrity(on: connection, maximumErrors: 10)
            let problems = found.problems
            check = found.passed
                ? .init(name: CheckName.integrity.bundleName, status: .pass, summary: "ok", durationSeconds: watch.roundedSeconds)
                : .init(name: CheckName.integrity.bundleName, status: .fail, summary: "\(problems.count) problem\(problems.count == 1 ? "" : "s") found",
                        durationSeconds: watch.roundedSeconds, details: problems)
        } catch let error as SQLiteError {
            check = .init(name: CheckName.integrity.bundleName, status: .fail, summary: try Self.failure(error, cancellation),
                          durationSeconds: watch.roundedSeconds)
        } catch is IntegrityCheck.NotWritable {
            check = .init(name: CheckName.integrity.bundleName, status: .fail,
                          summary: "SQLite opened the staged file read-only, which would leave CHECK constraints unchecked",
                          durationSeconds: watch.roundedSeconds)
        }
        finished(check)
        return check
    }

    // MARK: - Read-only checks

    private func readOnlyChecks() throws -> ([RestoreReport.Check], [RestoreReport.Table]) {
        let connection: Connection
        do {
            let cancellation = self.cancellation
            connection = try Self.openReadOnly(databasePath, extensions: extensions) { cancellation.isCancelled }
        } catch let error as SQLiteError {
            let summary = try Self.failure(error, cancellation)
            let names = [CheckName.foreignKeys.bundleName, CheckName.version.bundleName, "application_id", "page_count", "tables"]
            let failed = names.map { RestoreReport.Check(name: $0, status: .fail, summary: summary, durationSeconds: 0) }
            failed.forEach(finished)
            return (failed, [])
        }
        var checks: [RestoreReport.Check] = []
        func run(_ name: String, _ body: () throws -> (RestoreReport.Check.Status, String, [String])) throws {
            let watch = Stopwatch()
            let check: RestoreReport.Check
            do {
                let (status, summary, details) = try body()
                check = .init(name: name, status: status, summary: summary, durationSeconds: watch.roundedSeconds, details: details)
            } catch let error as SQLiteError {
                check = .init(name: name, status: .fail, summary: try Self.failure(error, cancellation), durationSeconds: watch.roundedSeconds)
            }
            finished(check)
            checks.append(check)
        }

        try run(CheckName.foreignKeys.bundleName) {
            let found = try DatabaseChecks.foreignKeys(on: connection)
            guard !found.passed else { return (.pass, "no violations", []) }
            return (.fail, "\(found.total) violation\(found.total == 1 ? "" : "s"): \(found.countsSummary)", [])
        }
        let source = manifest.source
        try run(CheckName.version.bundleName) {
            let found = try DatabaseChecks.userVersion(on: connection, expected: source.userVersion)
            let value = found.counts["user_version"] ?? 0
            return found.passed
                ? (.pass, "\(value), as in the manifest", [])
                : (.fail, "\(value), the manifest says \(source.userVersion)", [])
        }
        try run("application_id") {
            let value = Int32(truncatingIfNeeded: try connection.integer(sql: "PRAGMA application_id"))
            return value == source.applicationID
                ? (.pass, "\(value), as in the manifest", [])
                : (.fail, "\(value), the manifest says \(source.applicationID)", [])
        }
        try run("page_count") {
            let count = Int(try connection.integer(sql: "PRAGMA page_count"))
            let size = Int(try connection.integer(sql: "PRAGMA page_size"))
            guard count == source.pageCount, size == source.pageSize else {
                return (.fail, "\(count) pages of \(size) bytes, the manifest says \(source.pageCount) of \(source.pageSize)", [])
            }
            return (.pass, "\(count) pages of \(size) bytes, as in the manifest", [])
        }
        var tables: [RestoreReport.Table] = []
        try run("tables") {
            let (counted, failures) = try countTables(connection)
            tables = counted
            let rows = counted.compactMap(\.rowCount).reduce(0, +)
            guard failures.isEmpty else {
                return (.fail, "\(failures.count) of \(counted.count) table\(counted.count == 1 ? "" : "s") cannot be read", failures)
            }
            return (.pass, "\(counted.count) table\(counted.count == 1 ? "" : "s") read (\(rows) row\(rows == 1 ? "" : "s") counted)", [])
        }
        return (checks, tables)
    }

    /// Counts every table, shadow and virtual ones included: each must be readable. Only
    /// the counts are kept, never a row.
    private func countTables(_ connection: Connection) throws -> ([RestoreReport.Table], [String]) {
        var listed: [(String, String)] = []
        try connection.forEachRow(sql: "SELECT name, type FROM pragma_table_list WHERE schema = 'main' AND name <> 'sqlite_schema' ORDER BY name") { row in
            listed.append((row.text(at: 0) ?? "", row.text(at: 1) ?? ""))
        }
        var tables: [RestoreReport.Table] = []
        var failures: [String] = []
        for (name, type) in listed {
            do {
                let count = try connection.integer(sql: "SELECT count(*) FROM main.\(Connection.quote(identifier: name))")
                tables.append(.init(name: name, type: type, rowCount: count, error: nil))
            } catch let error as SQLiteError {
                let message = try Self.failure(error, cancellation)
                tables.append(.init(name: name, type: type, rowCount: nil, error: message))
                failures.append("\(name): \(message)")
            }
        }
        return (tables, failures)
    }

    // MARK: - Connections and errors

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
    static func failure(_ error: SQLiteError, _ cancellation: Cancellation) throws -> String {
        if error.isInterrupt || cancellation.isCancelled {
            throw BundleReader.interrupted(cancellation)
        }
        if error.isNotADatabase {
            throw StewardError(.badInput, "the payload is not a SQLite database (\(error.message))")
        }
        return "\(error.message) (SQLite error \(error.extendedCode))"
    }
}

/// A check run on a thread of its own.
final class BackgroundCheck: @unchecked Sendable {
    private let body: () throws -> RestoreReport.Check
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<RestoreReport.Check, Error>?
    private var isWaited = false

    init(_ body: @escaping () throws -> RestoreReport.Check) {
        self.body = body
    }

    func start() {
        Thread.detachNewThread { [self] in
            outcome = Result { try body() }
            done.signal()
        }
    }

    func wait() throws -> RestoreReport.Check {
        if !isWaited {
            done.wait()
            isWaited = true
        }
        guard let outcome else { throw StewardError(.internal, "a checking thread ended without a result") }
        return try outcome.get()
    }
}

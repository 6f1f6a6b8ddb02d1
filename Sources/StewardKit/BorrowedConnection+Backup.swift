import Foundation
import SQLiteKit
import StewardBase
import StewardChecks

extension BorrowedConnection {
    /// How the proof opens the copy for its FTS5 check when the app's tables need the
    /// app's own tokenizers: the app opens the file at the path its own way (its
    /// tokenizers registered), hands the connection to the check, and closes it after.
    ///
    /// ```swift
    /// try steward.proveBackup { path, check in
    ///     let copy = try DatabaseQueue(path: path, configuration: appConfiguration)
    ///     try copy.inDatabase { db in try check(db.sqliteConnection!) }
    /// }
    /// ```
    public typealias CopyOpener = (_ path: String, _ check: (OpaquePointer) throws -> Void) throws -> Void

    /// Proves a backup of the app's database: `sqlite3_backup` of `main` into a file in a
    /// new private temporary directory, at one moment (a read transaction on the app's
    /// connection, in which the live tables' digests are read too); the copy reopened on
    /// its own, without `-wal` or `-shm`, switched to a rollback journal; then
    /// `integrity_check`, `foreign_key_check`, FTS5's integrity-check (rank 1) and every
    /// table's digest (`TableDigest`) compared with the live database's. The directory is
    /// removed after. `opener`: how to open the copy for the FTS5 check when the app's
    /// tokenizers are needed (nil: Steward opens it, with SQLite's own tokenizers).
    public func proveBackup(openingCopyWith opener: CopyOpener? = nil) throws -> StewardKitReport {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("steward-kit-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("backup.sqlite").path

        var start = DispatchTime.now()
        let live = try borrowed {
            // The read transaction starts at the first read: the copy and the digests are
            // of the same moment.
            let digests = try TableDigest.compute(on: connection)
            let destination = try Connection(path: path)
            try connection.backup(to: destination)
            return digests
        }
        var checks: [CheckResult] = []
        let sideFiles = ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
        checks.append(CheckResult(
            name: .sideFiles, status: sideFiles.isEmpty ? .pass : .fail,
            summary: sideFiles.isEmpty ? "the copy opens on its own: no -wal, -shm or -journal beside it"
                : "the copy has files beside it: \(sideFiles.joined(separator: ", "))",
            durationSeconds: Self.seconds(since: start)))

        let copy = try Connection(path: path, mode: [.readWrite])
        _ = try copy.setJournalMode("delete")

        start = DispatchTime.now()
        let problems = try copy.integrityCheck(maximumErrors: 20)
        let lines = problems == ["ok"] ? [] : IntegrityMessages.lines(problems)
        checks.append(CheckResult(
            name: .integrity, status: lines.isEmpty ? .pass : .fail,
            summary: lines.isEmpty ? "ok" : "\(lines.count) problem\(lines.count == 1 ? "" : "s") found",
            durationSeconds: Self.seconds(since: start), details: lines))

        start = DispatchTime.now()
        var violations: [String: Int] = [:]
        for violation in try copy.foreignKeyViolations() {
            violations["\(violation.table) → \(violation.parent)", default: 0] += 1
        }
        let total = violations.values.reduce(0, +)
        checks.append(CheckResult(
            name: .foreignKeys, status: total == 0 ? .pass : .fail,
            summary: total == 0 ? "no violations"
                : "\(total) violation\(total == 1 ? "" : "s"): "
                    + violations.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "),
            durationSeconds: Self.seconds(since: start)))

        start = DispatchTime.now()
        if let opener {
            var report: StewardKitReport?
            try opener(path) { handle in
                report = try BorrowedConnection(sqliteConnection: handle).fullTextIntegrity()
            }
            if let check = report?.checks.first {
                checks.append(check)
            }
        } else {
            checks.append(try fullTextIntegrity(of: copy, start: start))
        }

        start = DispatchTime.now()
        let copied = try copy.transaction(.deferred) { try TableDigest.compute(on: copy) }
        let liveByName = Dictionary(live.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let copiedByName = Dictionary(copied.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let differing = Set(liveByName.keys).union(copiedByName.keys).filter { liveByName[$0] != copiedByName[$0] }.sorted()
        checks.append(CheckResult(
            name: .contentDigest, status: differing.isEmpty ? .pass : .fail,
            summary: differing.isEmpty
                ? "\(live.count) table\(live.count == 1 ? "" : "s") of the copy equal the live database's"
                : "\(differing.count) of \(live.count) tables differ from the live database: \(differing.joined(separator: ", "))",
            durationSeconds: Self.seconds(since: start)))
        return StewardKitReport(sqliteVersion: sqliteVersion, checks: checks, tableDigests: copied)
    }

    /// FTS5's integrity-check of every FTS5 table, as `fts-sync`.
    func fullTextIntegrity() throws -> StewardKitReport {
        let start = DispatchTime.now()
        let check = try borrowed { try fullTextIntegrity(of: connection, start: start) }
        return StewardKitReport(sqliteVersion: sqliteVersion, checks: [check])
    }

    func fullTextIntegrity(of connection: Connection, start: DispatchTime) throws -> CheckResult {
        let integrity = try FTS5IntegrityCheck(connection: connection).run()
        let check = Check(
            name: .ftsSync, status: integrity.problems.isEmpty ? .ok : .failed,
            detail: FTS5IntegrityCheck.summary(of: integrity), problems: integrity.problems,
            fts5Tables: integrity.tables, failedFTS5Tables: integrity.failedTables)
        return CheckResult(check, durationSeconds: Self.seconds(since: start), versionsFrom: "")
    }
}

extension BorrowedConnection {
    /// Every table's digest (`TableDigest`) of the app's database as it is now, read in one
    /// transaction that is rolled back.
    public func tableDigests() throws -> [TableDigest] {
        try borrowed { try TableDigest.compute(on: connection) }
    }
}

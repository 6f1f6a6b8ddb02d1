import Foundation
import SQLiteKit
import StewardBase

/// The report of a run, and the two runs that answer without writing: `--status`, and a
/// database that is already current.
extension Migrator {
    /// - Parameters:
    ///   - appliedBefore: what the plan says was applied before the run, in the set's order.
    ///   - appliedAfter: what is applied after it (would be, for a dry run; the same for
    ///     `--status`).
    func report(
        source: Source, mode: MigrateReport.Mode, created: Bool, from: Int32, to: Int32,
        appliedBefore: [DialectMigration], appliedAfter: [DialectMigration],
        applied: [MigrateReport.AppliedMigration], pending: [DialectMigration], ledger: MigrateReport.Ledger?,
        fts: [MigrateReport.FTSRebuild], foreignKeys: MigrateReport.ForeignKeys?, notes: [String], stopwatch: Stopwatch
    ) -> MigrateReport {
        var report = MigrateReport(
            stewardVersion: StewardVersion.current, sqliteVersion: SQLiteLibrary.version,
            database: DatabaseReference(path: options.databasePath), migrations: source.set.directory, mode: mode, created: created,
            dialect: source.set.dialect, dialectReason: source.detection.reason,
            userVersionRule: LedgerPlan.rule(for: source.set.migrations), ledger: ledger,
            fromVersion: from, toVersion: to, newestVersion: source.newestUserVersion,
            fromVersionText: appliedBefore.last?.ledgerVersion, toVersionText: appliedAfter.last?.ledgerVersion,
            newestVersionText: source.set.migrations.last?.ledgerVersion ?? "",
            appliedCountBefore: appliedBefore.count, appliedCountAfter: appliedAfter.count,
            migrationCount: source.set.migrations.count, applied: applied,
            pending: pending.map { .init(version: $0.version.integer, versionText: $0.ledgerVersion, file: $0.fileName) },
            ignoredFiles: source.set.ignoredFiles, ftsRebuilt: fts, foreignKeys: foreignKeys, notes: notes,
            totalSeconds: stopwatch.roundedSeconds)
        if options.down {
            report.direction = .down
            report.undone = []
            // Files an upgrade ignores are a down run's down parts: not ignored here.
            let downParts = Set(source.set.migrations.compactMap { $0.down?.fileName })
            report.ignoredFiles = report.ignoredFiles.filter { !downParts.contains($0) }
        }
        return report
    }

    /// `migrations` in the set's order (out-of-order ones where they belong).
    static func inSetOrder(_ migrations: [DialectMigration], of source: Source) -> [DialectMigration] {
        let keys = Set(migrations.map(\.version))
        return source.set.migrations.filter { keys.contains($0.version) }
    }

    /// Notes for the report about what the plan accepted.
    static func notes(for plan: LedgerPlan) -> [String] {
        var notes: [String] = []
        for change in plan.changed {
            notes.append("\(change.file) changed since it was applied\(change.lineEndingsOnly ? " (line endings only)" : ""); accepted, as changed files were allowed")
        }
        for migration in plan.outOfOrder {
            notes.append("\(migration.fileName) is older than the newest applied migration; applied out of order, as allowed")
        }
        return notes
    }

    /// The note of a run on a database whose `user_version` disagrees with the runner's
    /// ledger (`LedgerPlan.mirrorOutOfLine`): the ledger was followed, and `user_version`
    /// was rewritten to `rewrittenTo` by this run, or is left to the next run that writes.
    static func mirrorNote(_ plan: LedgerPlan, ledger: (any MigrationLedger)?, rewrittenTo: Int32?) -> String? {
        guard plan.mirrorOutOfLine else { return nil }
        let table = ledger?.table ?? "the ledger"
        let count = plan.applied.count
        let direction = plan.userVersion > plan.recordedUserVersion
            ? "ahead of \(table), which records \(count) applied migration\(count == 1 ? "" : "s") (its runner took migrations back since)"
            : "behind \(table), which records \(count) applied migration\(count == 1 ? "" : "s") (its runner applied migrations since)"
        let action = rewrittenTo.map { "this run rewrote it: it is now \($0), in line with \(table)" }
            ?? "the next run that writes rewrites it"
        return "user_version is \(plan.userVersion), \(direction): \(table) is the record and Steward follows it; user_version is Steward's mirror of it, and \(action)"
    }

    /// The note of a run whose `user_version` counts applied migrations.
    static func appliedCountNote(_ version: Int32, ledger: (any MigrationLedger)?) -> String {
        "user_version counts applied migrations (\(version)): the versions do not all fit user_version, so \(ledger?.table ?? "the ledger") says which are applied"
    }

    // MARK: - Runs that only read

    /// Whether a run with `plan` writes anything besides golang-migrate's rewrite of its
    /// one row: a migration, a ledger row to backfill, the ledger table, `user_version`
    /// where it is the record (no runner's ledger), a baseline. The one answer to "is there
    /// work" for the current-database report and for what runs before the first write (the
    /// drift check, the rollback backup). Where the runner's ledger is the record,
    /// `user_version` is only Steward's mirror of it: out of line, it is rewritten by the
    /// next run that writes, and is no work by itself (a database the runner migrated is
    /// current).
    static func writes(plan: LedgerPlan, source: Source, ledgerExisted: Bool, userVersion: Int32) -> Bool {
        !plan.pending.isEmpty || !plan.undo.isEmpty || !plan.unrecorded.isEmpty || (source.ledger != nil && !ledgerExisted)
            || (!plan.followsLedger && plan.recordedUserVersion != userVersion)
    }

    /// The report of a run on a database that is already current, read inside the run's
    /// read transaction (`readTransaction(on:_:)`); nil when the run has anything to write
    /// (a pending migration, a ledger row to backfill or a ledger to create, a
    /// `user_version` to set, a baseline to adopt), which the full run then does under its
    /// write lock.
    ///
    /// It is the report the full run gives such a database, proved the same way: the plan
    /// read from `user_version` and the ledger, the foreign-key violations (all existing,
    /// so none new) and `PRAGMA quick_check`. What it skips only matters when a migration
    /// runs: the write lock, the set's check on an empty database, the FTS5 rebuilds, and
    /// the drift check (design notes, "Performance": start-up plus a no-op `migrate`).
    func reportIfCurrent(source: Source, on connection: Connection, stopwatch: Stopwatch) throws -> MigrateReport? {
        guard options.baseline == nil else { return nil }
        installHandlers(on: connection)
        defer {
            connection.setProgressHandler(instructions: 0, nil)
            connection.setBusyHandler(nil)
        }
        do {
            let enforced = try connection.integer(sql: "PRAGMA foreign_keys") == 1
            let current = try connection.userVersion()
            let (plan, ledgerExisted, rowsBefore) = try self.plan(for: source, on: connection)
            guard !plan.applied.isEmpty,
                  !Self.writes(plan: plan, source: source, ledgerExisted: ledgerExisted, userVersion: current)
            else { return nil }
            let violations = try ForeignKeySnapshot(of: connection)
            let foreignKeys = ForeignKeySnapshot.compare(before: violations, after: violations, enforced: enforced)
            try quickCheck(connection)
            if cancellation.isCancelled {
                throw StewardError.interrupted(by: cancellation, "; nothing changed")
            }
            var notes = Self.notes(for: plan)
            if let mirror = Self.mirrorNote(plan, ledger: source.ledger, rewrittenTo: nil) { notes.append(mirror) }
            if plan.rule == .appliedCount {
                notes.append(Self.appliedCountNote(current, ledger: source.ledger))
            }
            let ledger = source.ledger.map {
                MigrateReport.Ledger(table: $0.table, existed: true, rowsBefore: rowsBefore, recorded: 0, backfilled: [])
            }
            return report(source: source, mode: .apply, created: false, from: current, to: current,
                          appliedBefore: plan.applied, appliedAfter: plan.applied, applied: [],
                          pending: [], ledger: ledger, fts: [], foreignKeys: foreignKeys, notes: notes,
                          stopwatch: stopwatch)
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: true)
        }
    }

    func status(source: Source, on connection: Connection, stopwatch: Stopwatch) throws -> MigrateReport {
        let current: Int32
        let plan: LedgerPlan
        let ledger: MigrateReport.Ledger?
        let writes: Bool
        do {
            current = try connection.userVersion()
            let (found, existed, rows) = try self.plan(for: source, on: connection)
            plan = found
            // The decision the run makes before it writes, so that "current" here means a
            // run leaves the database as it is.
            writes = Self.writes(plan: found, source: source, ledgerExisted: existed, userVersion: current)
            ledger = source.ledger.map {
                .init(table: $0.table, existed: existed, rowsBefore: rows, recorded: 0, backfilled: [])
            }
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        var notes = Self.notes(for: plan)
        if let mirror = Self.mirrorNote(plan, ledger: source.ledger, rewrittenTo: nil) { notes.append(mirror) }
        var report = report(source: source, mode: .status, created: false, from: current, to: current,
                            appliedBefore: plan.applied, appliedAfter: plan.applied, applied: [],
                            pending: plan.pending, ledger: ledger, fts: [], foreignKeys: nil, notes: notes,
                            stopwatch: stopwatch)
        report.recordsPending = plan.pending.isEmpty && writes
        if options.down {
            report.undone = nil
            report.toUndo = plan.undo.map {
                .init(version: $0.version.integer, versionText: $0.ledgerVersion, file: $0.fileName,
                      downFile: $0.down.map(\.fileName))
            }
        }
        if current == 0, plan.applied.isEmpty {
            report.schemaMatches = matchingVersion(of: source, on: connection)
        }
        return report
    }

    /// For `--status` on a database at version 0 with tables and no ledger: the newest
    /// version whose schema the database has, if any.
    func matchingVersion(of source: Source, on connection: Connection) -> String? {
        guard let actual = try? SchemaFingerprint(reading: connection), !actual.isEmpty,
              let prefixes = try? expectedSchema(of: source, through: nil)
        else { return nil }
        return prefixes.last { actual.differences(from: $0.1).isEmpty }?.0.ledgerVersion
    }
}

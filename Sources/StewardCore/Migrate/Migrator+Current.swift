import SQLiteKit

extension Migrator {
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

    /// Whether a run with `plan` writes anything besides golang-migrate's rewrite of its
    /// one row: a migration, a ledger row to backfill, the ledger table, `user_version`
    /// where it is the record (no runner's ledger), a baseline. The one answer to "is there
    /// work" for the current-database report and for what runs before the first write (the
    /// drift check, the rollback backup). Where the runner's ledger is the record,
    /// `user_version` is only Steward's mirror of it: out of line, it is rewritten by the
    /// next run that writes, and is no work by itself (a database the runner migrated is
    /// current).
    static func writes(plan: LedgerPlan, source: Source, ledgerExisted: Bool, userVersion: Int32) -> Bool {
        !plan.pending.isEmpty || !plan.unrecorded.isEmpty || (source.ledger != nil && !ledgerExisted)
            || (!plan.followsLedger && plan.recordedUserVersion != userVersion)
    }

    /// `body` inside one read transaction on `connection`, ended (nothing was written)
    /// however `body` ends.
    func readTransaction<T>(on connection: Connection, _ body: () throws -> T) throws -> T {
        do {
            try connection.execute(sql: "BEGIN")
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        defer { connection.rollbackIfNeeded() }
        return try body()
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
}

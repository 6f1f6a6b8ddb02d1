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
            if plan.rule == .appliedCount {
                notes.append(Self.appliedCountNote(current, ledger: source.ledger))
            }
            let ledger = source.ledger.map {
                MigrateReport.Ledger(table: $0.table, existed: true, rowsBefore: rowsBefore, recorded: 0, backfilled: [])
            }
            return report(source: source, mode: .apply, created: false, from: current, to: current, applied: [],
                          pending: [], ledger: ledger, fts: [], foreignKeys: foreignKeys, notes: notes,
                          stopwatch: stopwatch)
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: true)
        }
    }

    /// Whether a run with `plan` writes anything besides golang-migrate's rewrite of its
    /// one row: a migration, a ledger row to backfill, the ledger table, `user_version`,
    /// a baseline. The one answer to "is there work" for the current-database report and
    /// for what runs before the first write (the drift check, the rollback backup).
    static func writes(plan: LedgerPlan, source: Source, ledgerExisted: Bool, userVersion: Int32) -> Bool {
        !plan.pending.isEmpty || !plan.unrecorded.isEmpty || (source.ledger != nil && !ledgerExisted)
            || LedgerPlan.userVersion(for: plan.applied, rule: plan.rule) != userVersion
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

    /// The note of a run whose `user_version` counts applied migrations.
    static func appliedCountNote(_ version: Int32, ledger: (any MigrationLedger)?) -> String {
        "user_version counts applied migrations (\(version)): the versions do not all fit user_version, so \(ledger?.table ?? "the ledger") says which are applied"
    }
}

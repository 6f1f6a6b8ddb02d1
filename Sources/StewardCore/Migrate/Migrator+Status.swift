import Foundation
import SQLiteKit

extension Migrator {
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
        if current == 0, plan.applied.isEmpty {
            report.schemaMatches = matchingVersion(of: source, on: connection)
        }
        return report
    }
}

import Foundation
import SQLiteKit

extension Migrator {
    func status(source: Source, on connection: Connection, stopwatch: Stopwatch) throws -> MigrateReport {
        let current: Int32
        let plan: LedgerPlan
        let ledger: MigrateReport.Ledger?
        do {
            current = try connection.userVersion()
            let (found, existed, rows) = try self.plan(for: source, on: connection)
            plan = found
            ledger = source.ledger.map {
                .init(table: $0.table, existed: existed, rowsBefore: rows, recorded: 0, backfilled: [])
            }
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        var report = report(source: source, mode: .status, created: false, from: current, to: current, applied: [],
                            pending: plan.pending, ledger: ledger, fts: [], foreignKeys: nil, notes: Self.notes(for: plan),
                            stopwatch: stopwatch)
        if current == 0, plan.applied.isEmpty {
            report.schemaMatches = matchingVersion(of: source, on: connection)
        }
        return report
    }
}

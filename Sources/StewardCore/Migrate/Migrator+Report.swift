import Foundation
import SQLiteKit

extension Migrator {
    func report(
        source: Source, mode: MigrateReport.Mode, created: Bool, from: Int32, to: Int32,
        applied: [MigrateReport.AppliedMigration], pending: [DialectMigration], ledger: MigrateReport.Ledger?,
        fts: [MigrateReport.FTSRebuild], foreignKeys: MigrateReport.ForeignKeys?, notes: [String], stopwatch: Stopwatch
    ) -> MigrateReport {
        MigrateReport(
            stewardVersion: StewardVersion.current, sqliteVersion: SQLiteLibrary.version,
            database: DatabaseReference(path: options.databasePath), migrations: source.set.directory, mode: mode, created: created,
            dialect: source.set.dialect.rawValue, dialectReason: source.detection.reason,
            userVersionRule: LedgerPlan.rule(for: source.set.migrations).rawValue, ledger: ledger,
            fromVersion: from, toVersion: to, newestVersion: source.newestUserVersion, applied: applied,
            pending: pending.map { .init(version: $0.version.integer, versionText: $0.ledgerVersion, file: $0.fileName) },
            ignoredFiles: source.set.ignoredFiles, ftsRebuilt: fts, foreignKeys: foreignKeys, notes: notes,
            totalSeconds: stopwatch.roundedSeconds)
    }
}

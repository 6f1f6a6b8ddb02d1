import Foundation
import SQLiteKit

extension Migrator {
    /// `migrations` in the set's order (out-of-order ones where they belong).
    static func inSetOrder(_ migrations: [DialectMigration], of source: Source) -> [DialectMigration] {
        let keys = Set(migrations.map(\.version))
        return source.set.migrations.filter { keys.contains($0.version) }
    }

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
        MigrateReport(
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
    }
}

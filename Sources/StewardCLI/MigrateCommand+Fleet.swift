import Foundation
import StewardCore

/// `migrate` over many databases.
extension MigrateCommand {
    /// The options of a fleet run, prepared once for all its databases.
    func fleetOptions() throws -> Migrator.Options {
        var options = self.options
        // Read and checked once for the whole run, by whichever job needs it first.
        options.setCache = MigrationSetCache()
        options.backupThreads = (fleet?.jobs ?? 1) > 1 ? 1 : max(1, ProcessInfo.processInfo.activeProcessorCount)
        // Once for the run, not once per database (the directory fills with bundles).
        if let directory = options.backupDirectory {
            _ = Migrator.removeStaleTemporaries(in: directory)
            options.backupDirectorySwept = true
        }
        return options
    }

    static func options(_ options: Migrator.Options, for path: String) -> Migrator.Options {
        var options = options
        options.databasePath = path
        return options
    }

    static func outcome(of result: Migrator.Report) -> String {
        result.outcome.rawValue
    }

    /// The line names the versions, the guard's counts and the bundle.
    static func fleetDetail(_ result: Migrator.Report) -> String {
        let report = result.migration
        var text: String
        let from = shownVersion(report.fromVersionText, report)
        switch result.outcome {
        case .current: text = "version \(from)"
        case .pending where report.pending.isEmpty: text = "version \(from), \(MigrateWording.recordsPending)"
        case .pending: text = "version \(from), \(report.pending.count) pending"
        case .migrated, .created, .wouldMigrate: text = "\(from) → \(shownVersion(report.toVersionText, report)) in \(ReportOutput.seconds(report.totalSeconds))"
        }
        if let accounting = report.accounting, !accounting.tables.isEmpty {
            // The guard's counts, one table each: `rows ticket 3 → 3, tag 5 → 4 (allowed)`.
            text += ", rows " + accounting.tables.map { table in
                "\(ReportOutput.escaped(table.table)) \(table.rowsBefore) → \(table.rowsAfter.map(String.init) ?? "dropped")"
                    + (table.allowedBy == nil ? "" : " (allowed)")
            }.joined(separator: ", ")
        }
        if let bundle = result.bundle {
            text += ", backup \(bundle.path)"
            if let recorded = bundle.recordedFailures { text += " (records \(recorded.summary))" }
            text += ", rollback: \(ReportOutput.command(bundle.rollbackCommand))"
        }
        if let schema = result.schema, schema.status != .match {
            text += schema.status == .drift
                ? ", schema drift allowed: \(schema.differences.joined(separator: "; "))"
                : ", drift check skipped: \(schema.reason ?? "")"
        }
        return text
    }
}

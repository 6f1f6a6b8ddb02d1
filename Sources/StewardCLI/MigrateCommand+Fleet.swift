import Foundation
import StewardCore

/// `migrate` over many databases.
extension MigrateCommand {
    /// One database of a fleet run: progress stays quiet (many databases would interleave
    /// it); the line names the versions and the bundle.
    func fleetItem() throws -> FleetRun.Work {
        var options = self.options
        // Read and checked once for the whole run, by whichever job needs it first.
        options.setCache = MigrationSetCache()
        let backupDirectory = self.backupDirectory
        let allowDrift = self.allowDrift
        let drift = FleetMigration.driftCheck(options)
        let threads = (fleet?.jobs ?? 1) > 1 ? 1 : max(1, ProcessInfo.processInfo.activeProcessorCount)
        // Once for the run, not once per database (the directory fills with bundles).
        let swept = backupDirectory.map { _ = FleetMigration.removeStaleTemporaries(in: $0); return true } ?? false
        return { [options] path, cancellation in
            var options = options
            options.databasePath = path
            var migration = FleetMigration(
                options: options, backupDirectory: backupDirectory, backupThreads: threads, drift: drift,
                allowDrift: allowDrift, cancellation: cancellation)
            migration.backupDirectorySwept = swept
            let result = try migration.run()
            let envelope = FleetEnvelope(
                report: MigrateOutput(report: result.report, bundle: result.bundle, schema: result.schema),
                command: "migrate", exitCode: ExitCode.success, outcome: result.outcome)
            return FleetRun.Item(outcome: result.outcome, exitCode: 0, json: try envelope.line(),
                                 detail: Self.fleetDetail(result), message: nil)
        }
    }

    static func fleetDetail(_ result: FleetMigration.Result) -> String {
        let report = result.report
        var text: String
        let from = shownVersion(report.fromVersionText, report)
        switch result.outcome {
        case "current": text = "version \(from)"
        case "pending" where report.pending.isEmpty: text = "version \(from), \(MigrateWording.recordsPending)"
        case "pending": text = "version \(from), \(report.pending.count) pending"
        default: text = "\(from) → \(shownVersion(report.toVersionText, report)) in \(ReportOutput.seconds(report.totalSeconds))"
        }
        if let bundle = result.bundle {
            text += ", backup \(bundle.path)"
            if let recorded = bundle.recordedFailures { text += " (records \(recorded.summary))" }
            text += ", rollback: \(ReportOutput.command(bundle.rollbackCommand))"
        }
        if let schema = result.schema, schema.status != "match" {
            text += schema.status == "drift"
                ? ", schema drift allowed: \(schema.differences.joined(separator: "; "))"
                : ", drift check skipped: \(schema.reason ?? "")"
        }
        return text
    }
}

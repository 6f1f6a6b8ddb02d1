import Foundation
import StewardCore

/// `migrate` over many databases, and `--backup-dir`.
extension MigrateCommand {
    /// One database of a fleet run: progress stays quiet (many databases would interleave
    /// it); the line names the versions and the bundle.
    func fleetItem() throws -> @Sendable (String, Cancellation) throws -> FleetRun.Item {
        let options = self.options
        let backupDirectory = self.backupDirectory
        let allowDrift = self.allowDrift
        let drift = try driftCheck()
        let threads = (fleet?.jobs ?? 1) > 1 ? 1 : max(1, ProcessInfo.processInfo.activeProcessorCount)
        return { path, cancellation in
            var options = options
            options.databasePath = path
            let result = try FleetMigration(
                options: options, backupDirectory: backupDirectory, backupThreads: threads, drift: drift,
                allowDrift: allowDrift, cancellation: cancellation
            ).run()
            let envelope = FleetEnvelope(report: result.report, path: path, status: "ok", outcome: result.outcome, exitCode: 0,
                                         bundle: result.bundle, schema: result.schema)
            return FleetRun.Item(outcome: result.outcome, exitCode: 0, json: try envelope.line(),
                                 detail: Self.fleetDetail(result), message: nil)
        }
    }

    static func fleetDetail(_ result: FleetMigration.Result) -> String {
        let report = result.report
        var text: String
        switch result.outcome {
        case "current": text = "version \(report.fromVersion)"
        case "pending": text = "version \(report.fromVersion), \(report.pending.count) pending"
        default: text = "\(report.fromVersion) → \(report.toVersion) in \(ReportOutput.seconds(report.totalSeconds))"
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

    /// The drift check, for runs that apply migrations (not --status or --dry-run), shared
    /// by every database of the run.
    func driftCheck() throws -> SchemaDriftCheck? {
        FleetMigration.driftCheck(options)
    }

    /// One database with `--backup-dir`: the usual report, plus the bundle.
    func runWithBackup(on terminal: Terminal) throws -> Int32 {
        let options = self.options
        let backupDirectory = self.backupDirectory
        let allowDrift = self.allowDrift
        let drift = try driftCheck()
        let result = try SignalTrap.run(clearingProgressOn: nil) { cancellation in
            try FleetMigration(
                options: options, backupDirectory: backupDirectory,
                backupThreads: max(1, ProcessInfo.processInfo.activeProcessorCount), drift: drift, allowDrift: allowDrift,
                cancellation: cancellation
            ).run()
        }
        if json {
            terminal.print(try ReportOutput.json(
                WithBackup(report: result.report, backup: result.bundle, schema: result.schema),
                command: "migrate", exitCode: ExitCode.success))
        } else {
            var text = Self.render(result.report)
            if let bundle = result.bundle {
                text += "\nBackup      \(ReportOutput.escaped(bundle.path)) (user_version \(bundle.userVersion), sha256 \(bundle.sha256))"
                if let recorded = bundle.recordedFailures {
                    text += "\n            records what was already there: \(recorded.summary)"
                }
                text += "\nRollback    \(ReportOutput.command(bundle.rollbackCommand))"
            } else {
                text += "\nBackup      none: nothing was changed"
            }
            if let schema = result.schema {
                text += "\nSchema      \(schema.status)"
                    + (schema.differences.isEmpty ? "" : ": \(schema.differences.joined(separator: "; "))")
                    + (schema.reason.map { ": \($0)" } ?? "")
            }
            terminal.print(text)
        }
        return ExitCode.success
    }

    /// The single-database report with `schema` added when the drift check ran.
    struct WithSchema: Encodable {
        let report: MigrateReport
        let schema: SchemaDriftCheck.Comparison?

        private enum Keys: String, CodingKey { case schema }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encodeIfPresent(schema, forKey: .schema)
        }
    }

    /// The single-database report with `backup` added (null when no bundle was needed).
    struct WithBackup: Encodable {
        let report: MigrateReport
        let backup: FleetMigration.Bundle?
        let schema: SchemaDriftCheck.Comparison?

        private enum Keys: String, CodingKey { case backup, schema }

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(backup, forKey: .backup)
            try container.encodeIfPresent(schema, forKey: .schema)
        }
    }
}

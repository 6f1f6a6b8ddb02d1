import ArgumentKit
import Foundation
import StewardCore

/// `steward migrate`: versioned SQL, all or nothing.
struct MigrateCommand: StewardCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Apply versioned SQL migrations, bumping user_version in the same transaction.",
        discussion: """
            Applies NNNN_name.sql files (or N_name.up.sql) in version order inside one BEGIN IMMEDIATE \
            transaction, setting PRAGMA user_version to each version as it goes. Sets laid out for \
            golang-migrate, sqlx, goose, dbmate, diesel, drizzle or Flyway are read in that runner's \
            layout (detected, or named by --dialect), only their up parts run, and the runner's ledger \
            table gets the rows the runner would write, in the same transaction. FTS5 tables created or \
            redefined by the run, and those named by '-- steward: rebuild-fts NAME', are rebuilt and \
            checked before the commit. Any failure rolls everything back.
            """,
        options: [
            .option("db", value: "path", help: "The database to migrate; repeat it for several (see --dbs-from).", repeating: true),
            .option("migrations", value: "dir", help: "The migration directory.", default: "migrations"),
            .option("to", value: "version", help: "Stop at this version instead of the newest."),
            .option("dialect", value: "name", help: "Read the set in this runner's layout and keep its ledger: \(Dialect.names.joined(separator: ", ")) (default: detected)."),
            .option("baseline", value: "version", help: "Adopt a database that has this version's schema but no record of it: compared, then recorded as applied."),
            .option("load-extension", value: "path", help: "Load this SQLite extension into every connection of the run, for sets whose schema uses it (may be repeated).", repeating: true),
            .flag("allow-changed", help: "Accept applied migrations whose file changed since (recorded in the report)."),
            .flag("allow-out-of-order", help: "Apply migrations older than the newest applied one (not with golang-migrate or drizzle)."),
            .flag("dry-run", help: "Apply the plan to a private in-memory copy of the whole database (it needs that much memory); the file is untouched."),
            .flag("status", help: "Show the current version and the pending migrations; change nothing."),
            .flag("create", help: "Create the database when it does not exist."),
            .option("timeout", value: "seconds", help: "How long to wait for another connection's lock.", default: "30"),
            .option("backup-dir", value: "dir", help: "Before a database's first change, write a verified bundle of it (as 'steward backup' does) into this directory; a database whose backup fails is not migrated. Foreign-key violations already there are recorded in the bundle, not refused; the report prints the command that rolls each database back (restore --replace)."),
            .flag("allow-drift", help: "Migrate a database whose schema differs from what its applied migrations make (checked before every migration, in every layout, except with --baseline), and report the difference."),
            CommonOptions.quiet,
            CommonOptions.json,
        ] + FleetOptions.definitions)

    let options: Migrator.Options
    let json: Bool
    let quiet: Bool
    let fleet: FleetOptions?
    let backupDirectory: String?
    let allowDrift: Bool

    init(_ values: ParsedValues) throws(CommandLineError) {
        let fleet = try FleetOptions.parse(values)
        var options = Migrator.Options(
            databasePath: fleet == nil ? try values.required("db") : "",
            migrationsDirectory: try values.required("migrations"))
        if fleet == nil && options.databasePath.isEmpty { throw values.error("The value '' is invalid for '--db <path>'") }
        if let target = values.value("to") {
            guard let version = VersionKey(target, dotted: true) else {
                throw values.error("The value '\(target)' is invalid for '--to <version>': expected a version such as 3, 20240101120000 or 1.1")
            }
            options.targetVersion = version
        }
        if let name = values.value("dialect") {
            guard let dialect = Dialect(rawValue: name) else {
                throw values.error("The value '\(name)' is invalid for '--dialect <name>': expected one of \(Dialect.names.joined(separator: ", "))")
            }
            options.dialect = dialect
        }
        if let baseline = values.value("baseline") {
            guard let version = VersionKey(baseline, dotted: true) else {
                throw values.error("The value '\(baseline)' is invalid for '--baseline <version>': expected a version such as 3, 20240101120000 or 1.1")
            }
            options.baseline = version
        }
        options.extensions = values.values("load-extension")
        options.allowChanged = values.flag("allow-changed")
        options.allowOutOfOrder = values.flag("allow-out-of-order")
        options.dryRun = values.flag("dry-run")
        options.statusOnly = values.flag("status")
        options.create = values.flag("create")
        options.timeout = try values.seconds("timeout", in: 0...86_400) ?? 30
        if options.dryRun && options.statusOnly {
            throw values.error("'--dry-run' and '--status' cannot be used together")
        }
        if options.create && (options.dryRun || options.statusOnly) {
            throw values.error("'--create' cannot be used with '--dry-run' or '--status'")
        }
        let backupDirectory = values.value("backup-dir")
        if backupDirectory == "" { throw values.error("The value '' is invalid for '--backup-dir <dir>'") }
        if backupDirectory != nil && (options.dryRun || options.statusOnly) {
            throw values.error("'--backup-dir' cannot be used with '--dry-run' or '--status'")
        }
        self.options = options
        self.json = values.flag("json")
        self.quiet = values.flag("quiet")
        self.fleet = fleet
        self.backupDirectory = backupDirectory
        self.allowDrift = values.flag("allow-drift")
    }

    func run(on terminal: Terminal) throws -> Int32 {
        if let fleet { return try FleetRun(command: "migrate", fleet: fleet, json: json, quiet: quiet).run(on: terminal, try fleetItem()) }
        if backupDirectory != nil { return try runWithBackup(on: terminal) }
        let live = terminal.isErrorInteractive && !quiet
        let quiet = self.quiet
        let progress: @Sendable (Migrator.Event) -> Void = { event in
            guard !quiet else { return }
            switch event {
            case .applying:
                break
            case .applied(let file, let version, let statements, let seconds):
                terminal.diagnose("applied \(ReportOutput.escaped(file)) (version \(version), \(statements) statements) in \(ReportOutput.seconds(seconds))")
            case .rebuildingFTS(let table):
                if live { terminal.progress("rebuilding \(ReportOutput.escaped(table)) ...") }
            case .working(let phase, let table, let seconds):
                if live { terminal.progress("\r\u{1B}[2K\(phase) \(ReportOutput.escaped(table)) ... \(String(format: "%.1f", seconds)) s") }
            case .rebuiltFTS(let table, let rebuiltBy, let seconds, let checkSeconds):
                if live { terminal.progress("\r\u{1B}[2K") }
                let check = "integrity-check passed in \(ReportOutput.seconds(checkSeconds))"
                switch rebuiltBy {
                case "steward": terminal.diagnose("rebuilt \(ReportOutput.escaped(table)) in \(ReportOutput.seconds(seconds)), \(check)")
                case "migration": terminal.diagnose("checked \(ReportOutput.escaped(table)) (rebuilt by the migration), \(check)")
                default: terminal.diagnose("checked \(ReportOutput.escaped(table)) (contentless, not rebuilt), \(check)")
                }
            }
        }
        let options = self.options
        let allowDrift = self.allowDrift
        let drift = FleetMigration.driftCheck(options)
        let (report, schema) = try SignalTrap.run(clearingProgressOn: live ? terminal : nil) { cancellation in
            // Drift is refused before anything is changed, as in runs over many databases.
            let schema = try FleetMigration(
                options: options, backupDirectory: nil, backupThreads: 1, drift: drift, allowDrift: allowDrift,
                cancellation: cancellation
            ).driftBeforeMigrating()
            return (try Migrator(options: options, cancellation: cancellation, progress: progress).run(), schema)
        }
        if json {
            terminal.print(try ReportOutput.json(WithSchema(report: report, schema: schema), command: "migrate", exitCode: ExitCode.success))
        } else {
            var text = Self.render(report)
            // A match is the normal case and stays quiet; a drift allowed or a check skipped is said.
            if let schema, schema.status != "match" {
                var line = "\nSchema      \(schema.status)"
                if !schema.differences.isEmpty { line += ": " + schema.differences.joined(separator: "; ") }
                if let reason = schema.reason { line += ": " + reason }
                text += line
            }
            terminal.print(text)
        }
        return ExitCode.success
    }

    static func rebuildText(_ rebuild: MigrateReport.FTSRebuild) -> String {
        switch rebuild.rebuiltBy {
        case "migration": return "rebuilt by the migration"
        case "none": return "not rebuilt (contentless)"
        default: return "rebuild \(ReportOutput.seconds(rebuild.rebuildSeconds))"
        }
    }


    static func render(_ report: MigrateReport) -> String {
        var lines: [String] = []
        switch report.mode {
        case "status":
            lines.append("Database    \(ReportOutput.escaped(report.database))")
            lines.append("Version     \(report.fromVersion) (newest migration: \(report.newestVersion))")
            if let match = report.schemaMatches {
                lines.append("Schema      matches version \(match) of the set (adopt it with --baseline \(match))")
            }
            if report.pending.isEmpty {
                lines.append("Pending     none: the database is up to date")
            } else {
                lines.append("Pending     \(report.pending.count)")
                lines.append(ReportOutput.table(report.pending.map { [$0.versionText, $0.file] }, indent: 4))
            }
        default:
            let verb = report.mode == "dry-run" ? "would migrate" : "migrated"
            lines.append("Database    \(ReportOutput.escaped(report.database))\(report.created ? " (created)" : "")")
            if report.applied.isEmpty {
                lines.append("Version     \(report.fromVersion): nothing to do (newest migration: \(report.newestVersion))")
            } else {
                lines.append("Version     \(verb) from \(report.fromVersion) to \(report.toVersion) (newest migration: \(report.newestVersion))")
                lines.append("Applied     \(report.applied.count) migration\(report.applied.count == 1 ? "" : "s")")
                lines.append(ReportOutput.table(report.applied.map {
                    [$0.versionText, $0.file, "\($0.statements) statements", ReportOutput.seconds($0.durationSeconds)]
                }, indent: 4))
            }
            if !report.ftsRebuilt.isEmpty {
                lines.append("FTS5        rebuilt and checked")
                lines.append(ReportOutput.table(report.ftsRebuilt.map {
                    [$0.table, $0.reason, Self.rebuildText($0),
                     "integrity-check \(ReportOutput.seconds($0.checkSeconds))"]
                }, indent: 4))
            }
            if let keys = report.foreignKeys {
                if keys.violationsAfter == 0 {
                    lines.append("Foreign keys no violations")
                } else {
                    let existing = keys.existingViolations.map { "\(ReportOutput.escaped($0.table)) → \(ReportOutput.escaped($0.parent)): \($0.count)" }.joined(separator: ", ")
                    lines.append("Foreign keys \(keys.violationsAfter) violations, none new (before the run: \(keys.violationsBefore): \(existing))")
                }
                for table in keys.comparedByCount {
                    lines.append("             \(ReportOutput.escaped(table.table)) compared by count only: \(table.reason)")
                }
            }
            if report.mode == "dry-run" {
                lines.append("Dry run     nothing was written to \(ReportOutput.escaped(report.database))")
            }
        }
        if report.dialect != "steward" {
            lines.append("Layout      \(report.dialect) (\(report.dialectReason))")
        }
        if let ledger = report.ledger {
            let state = ledger.existed ? "\(ledger.rowsBefore) rows before the run" : "created by this run"
            lines.append("Ledger      \(ledger.table): \(state)\(ledger.recorded > 0 ? ", \(ledger.recorded) recorded" : "")")
        }
        for note in report.notes {
            lines.append("Note        \(note)")
        }
        if !report.ignoredFiles.isEmpty {
            lines.append("Ignored     \(report.ignoredFiles.map(ReportOutput.escaped).joined(separator: ", "))")
        }
        lines.append("Time        \(ReportOutput.seconds(report.totalSeconds))")
        return lines.joined(separator: "\n")
    }
}

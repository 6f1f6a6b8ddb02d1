import ArgumentKit
import Foundation
import StewardCore
import StewardBase

/// `steward migrate`: versioned SQL, all or nothing.
struct MigrateCommand: OperationCommand, FleetCommand {
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
            checked before the commit. Before the commit, the guard refuses a run that loses what its \
            migrations do not name (indexes, triggers and views that went with a dropped table, rows, \
            search sync, STRICT, WITHOUT ROWID, AUTOINCREMENT and its counter, foreign-key targets, views \
            and triggers that no longer compile); a migration allows a loss with '-- steward: allow KIND \
            NAME'. Any failure rolls everything back. With --down --to VERSION, the applied migrations \
            above VERSION are taken back with their down parts (NNNN_name.down.sql beside \
            NNNN_name.sql in Steward's own layout; the runner's down part in the others), newest first, \
            in one transaction with the same checks, and the runner's ledger is written as its own down \
            command writes it; a migration without a down part refuses the whole run.
            """,
        options: [
            Opt.db, Opt.migrations, Opt.to, Opt.down, Opt.dialect, Opt.baseline, Opt.placeholder, Opt.loadExtension, Opt.allowChanged, Opt.allowOutOfOrder,
            Opt.dryRun, Opt.status, Opt.create, CommonOptions.timeout, Opt.backupDir, Opt.allowDrift, Opt.allow, Opt.ftsDeferred, Opt.plans,
            Opt.ftsCheck,
        ] + CommonOptions.output + Handover.options + FleetOptions.options)

    enum Opt {
        /// migrate's FTS5 check runs on the upgrade's own connection (no other sees its
        /// changes before COMMIT): the parallel check there has one worker.
        static let ftsCheck = Option<FTS5CheckKind>(
            "fts-check", value: "how",
            help: "How an FTS5 index the run rebuilt, or whose content it changed, is proved before COMMIT: parallel (default), Steward's check of the index against its content, on the upgrade's own connection (one thread: no other connection sees the run's changes); or sqlite, FTS5's own integrity-check. Tables the parallel check cannot prove get FTS5's own check.",
            expected: "parallel or sqlite", convert: { FTS5CheckKind(rawValue: $0) })
        static let db = FleetOptions.database(help: "The database to migrate; repeat it for several (see --dbs-from).")
        static let migrations = Option<String>("migrations", value: "dir", help: "The migration directory.", default: "migrations")
        static let to = version("to", help: "Stop at this version instead of the newest; with --down, the version to go back to (0: before the first).")
        static let down = Flag("down", help: "Take back the applied migrations above --to with their down parts, newest first, in one transaction (not with drizzle or Flyway); a database at or below that version is left alone.")
        static let dialect = Option<Dialect>(
            "dialect", value: "name", help: "Read the set in this runner's layout and keep its ledger: \(Dialect.names.joined(separator: ", ")) (default: detected).",
            expected: "one of \(Dialect.names.joined(separator: ", "))", convert: { Dialect(rawValue: $0) })
        static let baseline = version("baseline", help: "Adopt a database that has this version's schema but no record of it: compared, then recorded as applied.")
        static let placeholder = CommonOptions.placeholder
        static let loadExtension = CommonOptions.loadExtension(help: "Load this SQLite extension into every connection of the run, for sets whose schema uses it (may be repeated).")
        static let allowChanged = Flag("allow-changed", help: "Accept applied migrations whose file changed since (recorded in the report).")
        static let allowOutOfOrder = Flag("allow-out-of-order", help: "Apply migrations older than the newest applied one (not with golang-migrate or drizzle).")
        static let dryRun = Flag("dry-run", help: "Apply the plan to a private in-memory copy of the whole database (it needs that much memory); the file is untouched.")
        static let status = Flag("status", help: "Show the current version and the pending migrations; change nothing.")
        static let create = Flag("create", help: "Create the database when it does not exist.")
        static let backupDir = Option<String>("backup-dir", value: "dir", help: "Before a database's first change, write a verified bundle of it (as 'steward backup' does) into this directory; a database whose backup fails is not migrated. Foreign-key violations already there are recorded in the bundle, not refused; the report prints the command that rolls each database back (restore --replace).")
        static let allow = RepeatedOption<MigrationAllowance>(
            "allow", value: "kind:name",
            help: "Let the guard accept this loss in every migration of the run, as '-- steward: allow KIND NAME' in a file does, for sets you cannot edit; KIND is one of \(MigrationAllowance.Kind.allCases.map(\.rawValue).joined(separator: ", ")) (may be repeated; recorded in the report).",
            expected: "KIND:NAME with KIND one of \(MigrationAllowance.Kind.allCases.map(\.rawValue).joined(separator: ", "))",
            convert: { try? MigrationAllowance.parse(callerValue: $0).get() })
        static let ftsDeferred = RepeatedOption<String>("fts-deferred", value: "table", help: "An FTS5 table the application indexes in the background: the guard reports its lost sync triggers and drift instead of refusing them (may be repeated).")
        static let plans = Option<String>("plans", value: "file.json", help: "A query-plan contract: before COMMIT, each of its hot queries is planned on the migrated schema; one that no longer uses its index, or scans a whole table, refuses the run (65).")
        static let allowDrift = Flag("allow-drift", help: "Migrate a database whose schema differs from what its applied migrations make (checked before every migration, in every layout, except with --baseline), and report the difference.")

        /// The version as `--status` shows it: the runner's (a timestamp, Flyway's `1.1`,
        /// drizzle's tag).
        static func version(_ name: String, help: String) -> Option<RequestedVersion> {
            Option(name, value: "version", help: help, expected: "a version such as 3, 20240101120000, 1.1 or 0003_name",
                   convert: { RequestedVersion($0) })
        }
    }

    let invocation: Invocation<Migrator>

    init(_ values: ParsedValues) throws(CommandLineError) {
        let fleet = try FleetOptions.parse(values, databases: Opt.db)
        var options = Migrator.Options(
            databasePath: fleet == nil ? try FleetOptions.singleDatabase(values, Opt.db) : "",
            migrationsDirectory: try values.required(Opt.migrations))
        options.targetVersion = values[Opt.to]
        options.down = values[Opt.down]
        if options.down && options.targetVersion == nil {
            throw values.error("'--down' needs '--to VERSION', the version to go back to (0 takes back every migration)")
        }
        if options.down && (values[Opt.baseline] != nil || values[Opt.create]) {
            throw values.error("'--down' cannot be used with '--baseline' or '--create'")
        }
        options.dialect = values[Opt.dialect]
        options.baseline = values[Opt.baseline]
        options.extensions = values[Opt.loadExtension]
        options.ftsCheck = values[Opt.ftsCheck] ?? .parallel
        for placeholder in values[Opt.placeholder] { options.placeholders[placeholder.name] = placeholder.value }
        options.allowChanged = values[Opt.allowChanged]
        options.allowOutOfOrder = values[Opt.allowOutOfOrder]
        options.dryRun = values[Opt.dryRun]
        options.statusOnly = values[Opt.status]
        options.create = values[Opt.create]
        options.timeout = try values.required(CommonOptions.timeout)
        if options.dryRun && options.statusOnly {
            throw values.error("'--dry-run' and '--status' cannot be used together")
        }
        if options.create && (options.dryRun || options.statusOnly) {
            throw values.error("'--create' cannot be used with '--dry-run' or '--status'")
        }
        let backupDirectory = values[Opt.backupDir]
        if backupDirectory != nil && (options.dryRun || options.statusOnly) {
            throw values.error("'--backup-dir' cannot be used with '--dry-run' or '--status'")
        }
        options.backupDirectory = backupDirectory
        options.allowDrift = values[Opt.allowDrift]
        options.allowances = values[Opt.allow]
        options.ftsDeferred = Set(values[Opt.ftsDeferred].map { $0.lowercased() })
        options.planContractPath = values[Opt.plans]
        // Asked only when there is a backup to compress: it reads /sys and the cgroup files.
        if backupDirectory != nil { options.backupThreads = max(1, ProcessInfo.processInfo.activeProcessorCount) }
        invocation = Invocation(options: options, fleet: fleet, output: OutputOptions(values),
                                handover: try Handover(values, inputs: Self.inputs(of: options)))
    }

    static var drawsLiveProgress: Bool { true }

    func progress(on terminal: Terminal, live: Bool) -> @Sendable (Migrator.Event) -> Void {
        { event in
            switch event {
            case .applying, .undoing:
                break
            case .undone(let file, let version, let statements, let seconds):
                terminal.diagnose("took back version \(version) with \(ReportOutput.escaped(file)) (\(Counted.phrase(statements, "statement"))) in \(ReportOutput.seconds(seconds))")
            case .applied(let file, let version, let statements, let seconds):
                terminal.diagnose("applied \(ReportOutput.escaped(file)) (version \(version), \(Counted.phrase(statements, "statement"))) in \(ReportOutput.seconds(seconds))")
            case .rebuildingFTS(let table):
                if live { terminal.progress("rebuilding \(ReportOutput.escaped(table)) ...") }
            case .working(let phase, let table, let seconds):
                if live { terminal.progress("\r\u{1B}[2K\(phase.rawValue) \(ReportOutput.escaped(table)) ... \(String(format: "%.1f", seconds)) s") }
            case .rebuiltFTS(let table, let rebuiltBy, let seconds, let checkSeconds):
                if live { terminal.progress("\r\u{1B}[2K") }
                let check = "integrity-check passed in \(ReportOutput.seconds(checkSeconds))"
                switch rebuiltBy {
                case .steward: terminal.diagnose("rebuilt \(ReportOutput.escaped(table)) in \(ReportOutput.seconds(seconds)), \(check)")
                case .migration: terminal.diagnose("checked \(ReportOutput.escaped(table)) (rebuilt by the migration), \(check)")
                case .none: terminal.diagnose("checked \(ReportOutput.escaped(table)) (contentless, not rebuilt), \(check)")
                }
            }
        }
    }

    /// The JSON of a single run is the fleet line's (`Migrator.Report`): `outcome`, and
    /// `bundle` and `schema` when they apply; the layout's reason names `--dialect`.
    static func worded(_ run: Migrator.Report) -> Migrator.Report {
        MigrateWording.worded(run)
    }

    /// What the run reads or writes into: no handover file may be one of them.
    static func inputs(of options: Migrator.Options) -> [ReportFile.Input] {
        var inputs: [ReportFile.Input] = [.init("the migration directory \(options.migrationsDirectory)", path: options.migrationsDirectory, kind: .directory)]
        if !options.databasePath.isEmpty { inputs.append(.init("the database \(options.databasePath)", path: options.databasePath, kind: .database)) }
        if let directory = options.backupDirectory { inputs.append(.init("the backup directory \(directory)", path: directory, kind: .directory)) }
        if let plans = options.planContractPath { inputs.append(.init("the plan contract \(plans)", path: plans)) }
        return inputs
    }

    static func subject(of options: Migrator.Options) -> String { options.databasePath }

    static func seconds(of run: Migrator.Report) -> Double { run.migration.totalSeconds }

    /// A case per migration applied (or that a dry run would apply), then the drift check
    /// and the guard's row accounting.
    static func handoverCases(_ run: Migrator.Report) -> [JUnit.Case] {
        let report = run.migration
        var cases = report.applied.map { migration in
            JUnit.Case(name: "migration \(migration.file)", seconds: migration.durationSeconds, result: .passed)
        }
        // A down run: a case per migration taken back.
        cases += (report.undone ?? []).map { migration in
            JUnit.Case(name: "undo \(migration.file)", seconds: migration.durationSeconds, result: .passed)
        }
        if cases.isEmpty {
            cases.append(JUnit.Case(name: "migrate", seconds: report.totalSeconds, result: .passed))
        }
        if let schema = run.schema {
            let result: JUnit.Case.Result = switch schema.status {
            case .match: .passed
            // The run went on as asked: not a failure, but not a pass to let by unread.
            case .drift: .skipped("schema drift allowed by --allow-drift: \(schema.differences.joined(separator: "; "))")
            case .skipped: .skipped(schema.reason ?? "skipped")
            }
            cases.append(JUnit.Case(name: "schema", seconds: 0, result: result))
        }
        return cases
    }

    static func handoverSummary(_ run: Migrator.Report) -> [String] {
        let report = run.migration
        var lines = ["- Migrations: `\(Markdown.code(report.migrations))` (\(report.dialect.rawValue)), version \(shownVersion(report.fromVersionText, report)) → \(shownVersion(report.toVersionText, report))"]
        for migration in report.applied {
            lines.append("- Applied `\(Markdown.code(migration.file))`: \(Counted.phrase(migration.statements, "statement")), \(ReportOutput.seconds(migration.durationSeconds))")
        }
        for migration in report.undone ?? [] {
            lines.append("- Taken back `\(Markdown.code(migration.file))`: \(Counted.phrase(migration.statements, "statement")), \(ReportOutput.seconds(migration.durationSeconds))")
        }
        for table in report.accounting?.tables ?? [] {
            lines.append("- Rows of `\(Markdown.code(table.table))`: \(table.rowsBefore) → \(table.rowsAfter.map(String.init) ?? "dropped")\(table.allowedBy == nil ? "" : " (allowed)")")
        }
        if let bundle = run.bundle {
            lines.append("- Rollback bundle: `\(Markdown.code(bundle.path))`, SHA-256 `\(bundle.sha256)`")
        }
        return lines
    }

    static func render(_ run: Migrator.Report) -> String {
        var text = Self.render(run.migration)
        guard run.backupRequested else {
            // A match is the normal case and stays quiet; a drift allowed or a check skipped is said.
            if let schema = run.schema, schema.status != .match {
                var line = "\nSchema      \(schema.status.rawValue)"
                if !schema.differences.isEmpty { line += ": " + schema.differences.joined(separator: "; ") }
                if let reason = schema.reason { line += ": " + reason }
                text += line
            }
            return text
        }
        if let bundle = run.bundle {
            text += "\nBackup      \(ReportOutput.escaped(bundle.path)) (user_version \(bundle.userVersion), sha256 \(bundle.sha256))"
            if let recorded = bundle.recordedFailures {
                text += "\n            records what was already there: \(recorded.summary)"
            }
            text += "\nRollback    \(ReportOutput.command(bundle.rollbackCommand))"
        } else {
            text += "\nBackup      none: nothing was changed"
        }
        if let schema = run.schema {
            text += "\nSchema      \(schema.status.rawValue)"
                + (schema.differences.isEmpty ? "" : ": \(schema.differences.joined(separator: "; "))")
                + (schema.reason.map { ": \($0)" } ?? "")
        }
        return text
    }

    /// The guard's lines: the tables it counted, what was dropped by name, what was
    /// allowed; names and counts only.
    static func render(_ accounting: MigrateReport.Accounting) -> [String] {
        var lines = ["Guard       nothing lost that the migrations do not name"]
        let rows = accounting.tables.map { table -> [String] in
            let after: String
            if let rowsAfter = table.rowsAfter {
                after = "\(Counted.phrase(table.rowsBefore, "row")) → \(rowsAfter)"
                    + (table.renamedTo.map { " (renamed to \(ReportOutput.escaped($0)))" } ?? "")
            } else {
                after = "dropped (\(Counted.phrase(table.rowsBefore, "row")) before)"
            }
            let why = table.allowedBy.map { "row loss allowed by \(Self.allowedBy($0))" }
                ?? (table.deleted && (table.rowsAfter ?? 0) < table.rowsBefore ? "deleted by the migration" : "")
            return [ReportOutput.escaped(table.table), after, why]
        }
        if !rows.isEmpty { lines.append(ReportOutput.table(rows, indent: 4)) }
        for migration in accounting.migrations {
            let dropped = migration.droppedExplicitly.map { "\($0.type.rawValue) \(ReportOutput.escaped($0.name))" }
            if !dropped.isEmpty {
                lines.append("            \(ReportOutput.escaped(migration.file)) dropped \(dropped.joined(separator: ", "))")
            }
            for lost in migration.lost {
                lines.append("            \(ReportOutput.escaped(migration.file)) lost \(lost.object.type.rawValue) \(ReportOutput.escaped(lost.object.name)) with \(ReportOutput.escaped(lost.droppedWith)), allowed by \(Self.allowedBy(lost.allowedBy ?? MigrationAllowance.givenByCaller))")
            }
        }
        if !accounting.searchChecked.isEmpty {
            lines.append("            search checked (content changed): \(accounting.searchChecked.map(ReportOutput.escaped).joined(separator: ", "))")
        }
        for allowance in accounting.allowances where !allowance.used {
            lines.append("            allowance \(allowance.kind.rawValue) \(ReportOutput.escaped(allowance.name)) (\(Self.allowedBy(allowance.givenAt ?? MigrationAllowance.givenByCaller))) was not needed")
        }
        return lines
    }

    /// Where an allowance came from, as the user gave it.
    static func allowedBy(_ location: String) -> String {
        location == MigrationAllowance.givenByCaller ? "--allow" : ReportOutput.escaped(location)
    }

    static func rebuildText(_ rebuild: MigrateReport.FTSRebuild) -> String {
        switch rebuild.rebuiltBy {
        case .migration: return "rebuilt by the migration"
        case .none: return "not rebuilt (contentless)"
        case .steward: return "rebuild \(ReportOutput.seconds(rebuild.rebuildSeconds))"
        }
    }


    /// A version as the set's runner shows it; "0" in Steward's own layout when nothing is
    /// applied (its `user_version`), "none" in the others.
    static func shownVersion(_ text: String?, _ report: MigrateReport) -> String {
        text.map(ReportOutput.escaped) ?? (report.dialect == .steward ? "0" : "none")
    }

    /// `(2 of 3 migrations applied; newest migration: 20240212141500)`.
    static func counts(_ report: MigrateReport, _ applied: Int) -> String {
        "(\(applied) of \(report.migrationCount) migration\(report.migrationCount == 1 ? "" : "s") applied; newest migration: \(ReportOutput.escaped(report.newestVersionText)))"
    }

    static func render(_ report: MigrateReport) -> String {
        var lines: [String] = []
        switch report.mode {
        case .status:
            lines.append("Database    \(ReportOutput.escaped(report.database.path))")
            lines.append("Version     \(shownVersion(report.fromVersionText, report)) \(counts(report, report.appliedCountBefore))")
            if let match = report.schemaMatches {
                lines.append("Schema      matches version \(match) of the set (adopt it with --baseline \(match))")
            }
            if let toUndo = report.toUndo {
                if toUndo.isEmpty {
                    lines.append("Take back   none: the database is at or below the version asked")
                } else {
                    lines.append("Take back   \(toUndo.count), newest first")
                    lines.append(ReportOutput.table(toUndo.map {
                        [$0.versionText, $0.file, $0.downFile.map { "down part in \(ReportOutput.escaped($0))" } ?? "no down part"]
                    }, indent: 4))
                }
            } else if report.pending.isEmpty, report.recordsPending == true {
                lines.append("Pending     \(MigrateWording.recordsPending)")
            } else if report.pending.isEmpty {
                lines.append("Pending     none: the database is up to date")
            } else {
                lines.append("Pending     \(report.pending.count)")
                lines.append(ReportOutput.table(report.pending.map { [$0.versionText, $0.file] }, indent: 4))
            }
        case .apply, .dryRun:
            let verb = report.mode == .dryRun ? "would migrate" : "migrated"
            lines.append("Database    \(ReportOutput.escaped(report.database.path))\(report.created ? " (created)" : "")")
            if let undone = report.undone, !undone.isEmpty {
                let verb = report.mode == .dryRun ? "would take back" : "took back"
                lines.append("Version     \(verb) from \(shownVersion(report.fromVersionText, report)) to \(shownVersion(report.toVersionText, report)) \(counts(report, report.appliedCountAfter))")
                lines.append("Taken back  \(undone.count) migration\(undone.count == 1 ? "" : "s"), newest first")
                lines.append(ReportOutput.table(undone.map {
                    [$0.versionText, $0.file, Counted.phrase($0.statements, "statement"), ReportOutput.seconds($0.durationSeconds)]
                }, indent: 4))
            } else if report.applied.isEmpty, report.outcome == .migrated || report.outcome == .wouldMigrate {
                // Nothing applied, but the ledger or user_version written: not "nothing to do".
                let from = shownVersion(report.fromVersionText, report), to = shownVersion(report.toVersionText, report)
                let versions = from == to ? from : "\(from) → \(to)"
                let dry = report.mode == .dryRun
                // Only the ledger's table made (nothing applied yet to record in it).
                let what = from == to && report.ledger.map { !$0.existed && $0.recorded == 0 } == true
                    ? "the ledger table \(report.ledger?.table ?? "") \(dry ? "would be created" : "is now created")"
                    : "what was applied \(dry ? "would be recorded" : "is now recorded")"
                lines.append("Version     \(versions): no migration to apply; \(what) \(counts(report, report.appliedCountAfter))")
            } else if report.applied.isEmpty {
                lines.append("Version     \(shownVersion(report.fromVersionText, report)): nothing to do \(counts(report, report.appliedCountAfter))")
            } else {
                lines.append("Version     \(verb) from \(shownVersion(report.fromVersionText, report)) to \(shownVersion(report.toVersionText, report)) \(counts(report, report.appliedCountAfter))")
                lines.append("Applied     \(report.applied.count) migration\(report.applied.count == 1 ? "" : "s")")
                lines.append(ReportOutput.table(report.applied.map {
                    [$0.versionText, $0.file, Counted.phrase($0.statements, "statement"), ReportOutput.seconds($0.durationSeconds)]
                }, indent: 4))
            }
            if let accounting = report.accounting {
                lines += Self.render(accounting)
            }
            if !report.ftsRebuilt.isEmpty {
                lines.append("FTS5        rebuilt and checked")
                lines.append(ReportOutput.table(report.ftsRebuilt.map {
                    [$0.table, $0.reason.rawValue, Self.rebuildText($0),
                     "integrity-check \(ReportOutput.seconds($0.checkSeconds))"]
                }, indent: 4))
            }
            if let keys = report.foreignKeys {
                if keys.violationsAfter == 0 {
                    lines.append("Foreign keys no violations")
                } else {
                    let existing = keys.existingViolations.map { "\(ReportOutput.escaped($0.table)) → \(ReportOutput.escaped($0.parent)): \($0.count)" }.joined(separator: ", ")
                    lines.append("Foreign keys \(Counted.phrase(keys.violationsAfter, "violation")), none new (before the run: \(keys.violationsBefore): \(existing))")
                }
                for table in keys.comparedByCount {
                    lines.append("             \(ReportOutput.escaped(table.table)) compared by count only: \(table.reason)")
                }
            }
            if report.mode == .dryRun {
                lines.append("Dry run     nothing was written to \(ReportOutput.escaped(report.database.path))")
            }
        }
        if report.dialect != .steward {
            lines.append("Layout      \(report.dialect.rawValue) (\(MigrateWording.worded(report).dialectReason.text))")
        }
        if let ledger = report.ledger {
            let missing = switch report.mode {
            case .status: "not there yet (a run creates it)"
            case .dryRun: "would be created by this run"
            default: "created by this run"
            }
            let state = ledger.existed ? "\(Counted.phrase(ledger.rowsBefore, "row")) before the run" : missing
            let removed = ledger.removed.map { $0 > 0 ? ", \($0) taken back" : "" } ?? ""
            lines.append("Ledger      \(ledger.table): \(state)\(ledger.recorded > 0 ? ", \(ledger.recorded) recorded" : "")\(removed)")
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

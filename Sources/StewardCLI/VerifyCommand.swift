import ArgumentKit
import Foundation
import StewardCore
import StewardBase

/// `steward verify`: prove a database and a search contract; exit 0 only when every
/// check passed.
struct VerifyCommand: FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Prove a database: integrity, foreign keys, FTS5 index sync and search fixtures.",
        discussion: """
            Checks: sqlite (FTS5 can be created on the connection), integrity, foreign-keys, fts-sync \
            (each full-text table's own integrity-check: FTS5's, rank 1 for external content, which detects drift; FTS3's and FTS4's), fts-triggers, \
            version, ledger, schema, assertions, search-contract and, with --plans, plans (a query-plan contract). Each is reported as pass, fail or skipped; only \
            a check whose input was not given is skipped, one asked for runs or fails saying why. The \
            database file is never modified: checks that write run on a private copy under TMPDIR, made \
            only when one of them has work to do (FTS5's check alone of a rollback-journal database runs \
            on a private mapping of the file instead); if it cannot be made, only those checks fail. Exit \
            status 0 when every check passed, 1 when any failed.
            """,
        options: [
            Opt.db, Opt.quick, Opt.expectVersion, Opt.migrations, Opt.dialect, Opt.assert, Opt.ftsDeferred, Opt.loadExtension, Opt.contract,
            Opt.plans, CommonOptions.timeout,
        ] + FullTextCheckOptions.options + CommonOptions.output + Handover.options + FleetOptions.options)

    enum Opt {
        static let db = FleetOptions.database(help: "The database to verify (required unless only a contract is run); repeat it for several (see --dbs-from).")
        static let quick = Flag("quick", help: "Use PRAGMA quick_check instead of integrity_check.")
        static let expectVersion = Option<Int>("expect-version", value: "n", help: "The user_version the database must have.", in: 0...Int(Int32.max))
        static let migrations = Option<String>("migrations", value: "dir", help: "A migration set: expects its newest version, and builds the contract's databases.")
        static let dialect = Option<Dialect>(
            "dialect", value: "name", help: "Read the --migrations set in this runner's layout: \(Dialect.names.joined(separator: ", ")) (default: detected, as migrate does).",
            expected: "one of \(Dialect.names.joined(separator: ", "))", convert: { Dialect(rawValue: $0) })
        static let assert = RepeatedOption<String>("assert", value: "file.sql", help: "SQL assertions to run (may be repeated).")
        static let ftsDeferred = RepeatedOption<String>("fts-deferred", value: "table", help: "An FTS5 table the application indexes in the background: missing sync triggers and unindexed rows are reported, not failures (may be repeated).")
        static let loadExtension = CommonOptions.loadExtension(help: "Load this SQLite extension into every connection to the database, for schemas that use it; the schema is then trusted only for innocuous functions (may be repeated).")
        static let plans = Option<String>("plans", value: "file.json", help: "A query-plan contract: each hot query is planned on the database and must use its index, or not scan its table whole (needs --db).")
        static let contract = Option<String>("contract", value: "file.json", help: "A search-contract fixture to run (needs --migrations).")
    }

    let invocation: Invocation<Verifier>

    init(_ values: ParsedValues) throws(CommandLineError) {
        let fleet = try FleetOptions.parse(values, databases: Opt.db)
        var options = Verifier.Options(databasePath: fleet == nil ? values[Opt.db].last : "")
        options.quick = values[Opt.quick]
        options.expectedVersion = values[Opt.expectVersion].map { Int32($0) }
        options.migrationsDirectory = values[Opt.migrations]
        options.dialect = values[Opt.dialect]
        options.assertionFiles = values[Opt.assert]
        options.contractPath = values[Opt.contract]
        options.planContractPath = values[Opt.plans]
        options.ftsDeferred = Set(values[Opt.ftsDeferred].map { $0.lowercased() })
        options.extensions = values[Opt.loadExtension]
        (options.ftsCheck, options.ftsWorkers) = try FullTextCheckOptions.parse(values, jobs: fleet?.jobs)
        options.timeout = try values.required(CommonOptions.timeout)
        if options.databasePath == nil && options.contractPath == nil {
            throw values.error("Missing expected argument '--db <path>' (or a '--contract <file.json>' to run alone)")
        }
        if options.dialect != nil && options.migrationsDirectory == nil {
            throw values.error("'--dialect' needs '--migrations <dir>'")
        }
        if options.contractPath != nil && options.migrationsDirectory == nil {
            throw values.error("'--contract' needs '--migrations <dir>' to build its databases")
        }
        if options.databasePath == nil && !(options.assertionFiles.isEmpty && options.expectedVersion == nil && !options.quick) {
            throw values.error("'--assert', '--expect-version' and '--quick' need '--db <path>'")
        }
        if options.databasePath == nil && options.planContractPath != nil {
            throw values.error("'--plans' needs '--db <path>'")
        }
        invocation = Invocation(options: options, fleet: fleet, output: OutputOptions(values),
                                handover: try Handover(values, inputs: Self.inputs(of: options)))
    }

    /// A line per finished check; never a live line, since the lines are the record.
    func progress(on terminal: Terminal, live: Bool) -> @Sendable (Verifier.Event) -> Void {
        { event in
            guard case .finished(let check, let status, let seconds) = event else { return }
            terminal.diagnose("\(status.rawValue) \(check.rawValue) (\(ReportOutput.seconds(seconds)))")
        }
    }

    /// The core says why a check was skipped; the wording names the option that runs it.
    static func worded(_ report: VerifyReport) -> VerifyReport {
        VerifyWording.worded(report)
    }

    /// Passed (0) or failed (1), alone or as one database of a fleet.
    static func exitStatus(of report: VerifyReport) -> Int32 {
        report.passed ? ExitCode.success : ExitCode.checkFailed
    }

    static func options(_ options: Verifier.Options, for path: String) -> Verifier.Options {
        var options = options
        options.databasePath = path
        return options
    }

    static func fleetDetail(_ report: VerifyReport) -> String {
        report.passed
            ? "\(Counted.phrase(report.checks.filter { $0.status == .pass }.count, "check")) passed"
            : "failed: \(report.failedChecks.joined(separator: ", "))"
    }

    static func subject(of options: Verifier.Options) -> String {
        options.databasePath ?? options.contractPath ?? ""
    }

    /// A case per check, then one per search-contract case, by its name (never its query).
    static func handoverCases(_ report: VerifyReport) -> [JUnit.Case] {
        report.checks.map(JUnit.Case.init) + report.contractCases.map(JUnit.Case.init(contract:))
    }

    /// The database, its full-text tables' tokenizers and options, the contract, and the checks.
    static func handoverSummary(_ report: VerifyReport) -> [String] {
        var lines: [String] = []
        if let database = report.database {
            lines.append("- Database: `\(Markdown.code(database.fileName))`, \(ReportOutput.bytes(database.sizeBytes)), user_version \(database.userVersion)")
            for table in database.ftsTables {
                let options = table.options.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", ")
                lines.append("- Full-text table `\(Markdown.code(table.name))`: tokenize \(Markdown.text(table.tokenize)), content \(table.contentMode)"
                             + (options.isEmpty ? "" : ", options \(Markdown.text(options))"))
            }
        }
        if let version = report.contractVersion {
            lines.append("- Search contract: version \(Markdown.text(version)), \(Counted.phrase(report.contractCases.count, "case"))"
                         + (report.failedCases.isEmpty ? "" : "; failed: " + report.failedCases.map { "`\(Markdown.code($0))`" }.joined(separator: ", ")))
        }
        lines.append("")
        return lines + Markdown.checks(report.checks)
    }

    /// What the run reads: none of it may be where the report goes.
    static func inputs(of options: Verifier.Options) -> [ReportFile.Input] {
        var inputs: [ReportFile.Input] = []
        if let path = options.databasePath { inputs.append(.init("the database \(path)", path: path, kind: .database)) }
        if let path = options.contractPath { inputs.append(.init("the contract \(path)", path: path)) }
        if let path = options.planContractPath { inputs.append(.init("the plan contract \(path)", path: path)) }
        inputs += options.assertionFiles.map { .init("the assertion file \($0)", path: $0) }
        if let path = options.migrationsDirectory { inputs.append(.init("the migration directory \(path)", path: path, kind: .directory)) }
        return inputs
    }

    static func render(_ report: VerifyReport) -> String {
        var lines: [String] = []
        if let database = report.database {
            lines.append("Database   \(ReportOutput.escaped(database.path)) (\(ReportOutput.bytes(database.sizeBytes)), user_version \(database.userVersion))")
        }
        lines.append("SQLite     \(report.sqliteVersion), FTS5 \(report.fts5Available ? "available" : "NOT available")")
        if let version = report.contractVersion {
            lines.append("Contract   \(ReportOutput.escaped(version)), \(Counted.phrase(report.contractCases.count, "case"))")
        }
        lines.append("")
        for check in report.checks {
            let status = check.status == .fail ? "FAIL" : check.status.rawValue
            let time = check.status == .skipped ? "" : "  \(ReportOutput.seconds(check.durationSeconds))"
            lines.append("  \(status.padding(toLength: 8, withPad: " ", startingAt: 0))\(check.name.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0))\(ReportOutput.escaped(check.summary))\(time)")
            // Details of passing checks (compile options and the like) stay in the JSON.
            for detail in check.details.prefix(20) where check.status == .fail {
                lines.append("          - \(ReportOutput.escaped(detail))")
            }
            if check.status == .fail && check.details.count > 20 {
                lines.append("          … \(check.details.count - 20) more in the JSON report")
            }
        }
        if !report.staleTemporariesRemoved.isEmpty {
            lines.append("Removed    stale temporaries of killed runs under TMPDIR: \(report.staleTemporariesRemoved.map(ReportOutput.escaped).joined(separator: ", "))")
        }
        lines.append("")
        if report.passed {
            let passed = report.checks.filter { $0.status == .pass }.count
            let skipped = report.checks.filter { $0.status == .skipped }.count
            lines.append("Result     PASSED: \(Counted.phrase(passed, "check")) passed, \(skipped) skipped (\(ReportOutput.seconds(report.totalSeconds)))")
        } else {
            lines.append("Result     FAILED: \(report.failedChecks.joined(separator: ", "))")
            if !report.failedCases.isEmpty {
                lines.append("Cases      \(report.failedCases.map(ReportOutput.escaped).joined(separator: ", "))")
            }
        }
        return lines.joined(separator: "\n")
    }
}

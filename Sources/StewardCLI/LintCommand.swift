import ArgumentKit
import Foundation
import StewardCore
import StewardBase

/// `steward lint`: check a migration set before it ships; exit 0 when nothing at error
/// level was found, 1 otherwise.
struct LintCommand: FleetCommand {
    static let configuration = CommandConfiguration(
        commandName: "lint",
        abstract: "Check a migration set before it ships: what each migration would lose, which SQLite it needs.",
        discussion: """
            Builds a private in-memory scratch database from the set up to --from (or copies --sample into it), \
            then applies each later migration in turn under migrate's guard, reporting what it would lose \
            (objects, rows of the sample, search sync, table options, counters, references). Each statement is \
            read for the SQLite features it needs (UPSERT 3.24, window functions and RENAME COLUMN 3.25, generated \
            columns 3.31, iif 3.32, FTS5 trigram 3.34, DROP COLUMN, RETURNING and math functions 3.35, STRICT 3.37, \
            -> and ->> and unixepoch 3.38, IS DISTINCT FROM 3.39, JSONB 3.45, and more). Rules: \
            not-null-without-default, drop-indexed-column, fts-content-without-rebuild, rebuild-loses-triggers, \
            non-transactional, sqlite-version, and the guard's losses. No file but the set and the sample is read, \
            nothing is written. Exit status 0 when no finding is an error, 1 otherwise.
            """,
        options: [
            Opt.migrations, Opt.dialect, CommonOptions.placeholder, Opt.sample, Opt.from, Opt.minSQLite, Opt.plans, Opt.format,
        ] + CommonOptions.output + Handover.options)

    enum Format: String, CaseIterable, Sendable {
        case text, json, sarif
    }

    enum Opt {
        static let migrations = Option<String>("migrations", value: "dir", help: "The migration set to check.", required: true)
        static let dialect = Option<Dialect>(
            "dialect", value: "name", help: "Read the set in this runner's layout: \(Dialect.names.joined(separator: ", ")) (default: detected, as migrate does).",
            expected: "one of \(Dialect.names.joined(separator: ", "))", convert: { Dialect(rawValue: $0) })
        static let sample = Option<String>("sample", value: "db", help: "Start from a copy of this database (a fixture of an older release) instead of an empty one; it is only read.")
        static let from = Option<RequestedVersion>(
            "from", value: "version", help: "Apply the set up to this version first and check only the later migrations; with --sample, the version the sample is at.",
            expected: "a version or a tag", convert: { RequestedVersion($0) })
        static let minSQLite = Option<SQLiteVersion>(
            "min-sqlite", value: "X.Y.Z", help: "The oldest SQLite the set must run on: a statement needing a newer one is an error.",
            expected: "a version such as 3.32.0", convert: { SQLiteVersion($0) })
        static let plans = Option<String>("plans", value: "file.json", help: "A query-plan contract: its hot queries are planned on the scratch database after each migration.")
        static let format = Option<Format>(
            "format", value: "format", help: "Output: text, json (as --json) or sarif (SARIF 2.1.0, a result per finding) (default: text).",
            expected: "one of text, json, sarif", convert: { Format(rawValue: $0) })
    }

    let invocation: Invocation<Linter>
    let format: Format

    init(_ values: ParsedValues) throws(CommandLineError) {
        guard let directory = values[Opt.migrations] else {
            throw values.error("Missing expected argument '--migrations <dir>'")
        }
        var options = Linter.Options(migrationsDirectory: directory)
        options.dialect = values[Opt.dialect]
        options.samplePath = values[Opt.sample]
        options.from = values[Opt.from]
        options.requiredSQLite = values[Opt.minSQLite]
        options.planContractPath = values[Opt.plans]
        for placeholder in values[CommonOptions.placeholder] { options.placeholders[placeholder.name] = placeholder.value }
        let output = OutputOptions(values)
        let format = values[Opt.format] ?? (output.json ? .json : .text)
        if output.json && format != .json {
            throw values.error("'--json' and '--format \(format.rawValue)' ask for two outputs; give one")
        }
        self.format = format
        invocation = Invocation(options: options, output: format == .json ? OutputOptions(json: true, quiet: output.quiet) : output,
                                handover: try Handover(values, inputs: Self.inputs(of: options)))
    }

    func progress(on terminal: Terminal, live: Bool) -> @Sendable (Linter.Event) -> Void {
        { event in
            guard case .linting(let file) = event else { return }
            terminal.diagnose("linting \(ReportOutput.escaped(file))")
        }
    }

    static func exitStatus(of report: LintReport) -> Int32 {
        report.passed ? ExitCode.success : ExitCode.checkFailed
    }

    func deliver(_ report: LintReport, status: Int32, on terminal: Terminal) throws {
        if format == .sarif {
            terminal.print(try LintSARIF.document(report))
        } else {
            try printReport(report, status: status, on: terminal)
        }
    }

    static func fleetDetail(_ report: LintReport) -> String {
        report.passed ? "no errors" : "\(Counted.phrase(report.errors, "error"))"
    }

    static func subject(of options: Linter.Options) -> String {
        options.migrationsDirectory
    }

    static func seconds(of report: LintReport) -> Double { report.totalSeconds }

    static func options(_ options: Linter.Options, for path: String) -> Linter.Options {
        options
    }

    /// A case per migration linted (failed with its error findings), one per migration
    /// left out after a failure (skipped).
    static func handoverCases(_ report: LintReport) -> [JUnit.Case] {
        report.migrations.map { migration in
            let errors = report.findings.filter { $0.file == migration.file && $0.level == .error }
            let result: JUnit.Case.Result = errors.isEmpty ? .passed
                : .failed("\(Counted.phrase(errors.count, "error")): \(Set(errors.map(\.rule.rawValue)).sorted().joined(separator: ", "))",
                          details: errors.map { "\($0.location): \($0.rule.rawValue): \($0.message)" })
            return JUnit.Case(name: "lint \(migration.file)", seconds: 0, result: result)
        } + report.notLinted.map { JUnit.Case(name: "lint \($0)", seconds: 0, result: .skipped("an earlier migration failed")) }
    }

    static func handoverSummary(_ report: LintReport) -> [String] {
        var lines = ["- Migration set: `\(Markdown.code(report.directory))` (\(report.dialect.rawValue)), \(Counted.phrase(report.migrations.count, "migration")) linted"]
        lines.append("- Needs SQLite: \(report.minimumSQLite.map(\.description) ?? "no listed feature")" + (report.requiredSQLite.map { ", must run on \($0)" } ?? ""))
        lines.append("")
        for finding in report.findings {
            lines.append("- \(finding.level.rawValue) `\(finding.rule.rawValue)` at `\(Markdown.code(finding.location))`: \(Markdown.text(finding.message))")
        }
        return lines
    }

    static func inputs(of options: Linter.Options) -> [ReportFile.Input] {
        var inputs: [ReportFile.Input] = [.init("the migration directory \(options.migrationsDirectory)", path: options.migrationsDirectory, kind: .directory)]
        if let sample = options.samplePath { inputs.append(.init("the sample database \(sample)", path: sample, kind: .database)) }
        if let plans = options.planContractPath { inputs.append(.init("the plan contract \(plans)", path: plans)) }
        return inputs
    }

    static func render(_ report: LintReport) -> String {
        var lines: [String] = []
        let start = report.sample.map { "from a copy of \(ReportOutput.escaped($0))" }
            ?? report.from.map { "after version \(ReportOutput.escaped($0))" } ?? "from an empty database"
        lines.append("Migrations \(ReportOutput.escaped(report.directory)) (\(report.dialect.rawValue)), \(Counted.phrase(report.migrations.count, "migration")) linted \(start)")
        let oldest = SQLiteFeature.all.map(\.version).min().map(\.description) ?? ""
        let needs = report.minimumSQLite.map { "needs SQLite \($0)" } ?? "uses no feature of the table (its oldest row is \(oldest))"
        lines.append("SQLite     \(needs)" + (report.requiredSQLite.map { "; must run on \($0)" } ?? ""))
        lines.append("")
        for migration in report.migrations {
            let version = migration.minimumSQLite.map { "needs SQLite \($0)" } ?? "no listed feature"
            lines.append("  \(ReportOutput.escaped(migration.file))  \(Counted.phrase(migration.statements, "statement")), \(version)")
            for need in migration.needs {
                lines.append("      line \(need.line): \(need.features.joined(separator: ", ")) (\(need.minimumSQLite))")
            }
            for plan in migration.plans ?? [] {
                lines.append("      plan \(plan.passed ? "ok  " : "FAIL") \(ReportOutput.escaped(plan.name)): \(ReportOutput.escaped(plan.plan.joined(separator: "; ")))")
            }
            for table in migration.tables where (table.rowsAfter ?? 0) < table.rowsBefore {
                lines.append("      rows of \(ReportOutput.escaped(table.table)): \(table.rowsBefore) → \(table.rowsAfter.map(String.init) ?? "dropped")")
            }
        }
        for file in report.notLinted {
            lines.append("  \(ReportOutput.escaped(file))  not linted: an earlier migration failed")
        }
        if !report.findings.isEmpty {
            lines.append("")
            for finding in report.findings {
                lines.append("  \(finding.level.rawValue.uppercased().padding(toLength: 8, withPad: " ", startingAt: 0))\(ReportOutput.escaped(finding.location))  \(finding.rule.rawValue): \(ReportOutput.escaped(finding.message))")
            }
        }
        lines.append("")
        let warnings = report.findings.count - report.errors
        lines.append(report.passed
            ? "Result     PASSED: no errors, \(Counted.phrase(warnings, "warning"))"
            : "Result     FAILED: \(Counted.phrase(report.errors, "error")), \(Counted.phrase(warnings, "warning"))")
        return lines.joined(separator: "\n")
    }
}

/// The report as SARIF 2.1.0 (https://docs.oasis-open.org/sarif/sarif/v2.1.0/): one run of
/// the tool `steward`, its rules by stable id, a result per finding with the migration
/// file and line as its region, so that a code host annotates the file.
enum LintSARIF {
    static func document(_ report: LintReport) throws -> String {
        struct Message: Encodable { let text: String }
        struct Rule: Encodable {
            let id: String
            let shortDescription: Message
        }
        struct Driver: Encodable {
            let name = "steward"
            let version = StewardVersion.current
            let informationUri = "https://sqlite.org/changes.html"
            let rules: [Rule]
        }
        struct Tool: Encodable { let driver: Driver }
        struct Region: Encodable { let startLine: Int }
        struct ArtifactLocation: Encodable { let uri: String }
        struct PhysicalLocation: Encodable {
            let artifactLocation: ArtifactLocation
            let region: Region?
        }
        struct Location: Encodable { let physicalLocation: PhysicalLocation }
        struct Result: Encodable {
            let ruleId: String
            let ruleIndex: Int
            let level: String
            let message: Message
            let locations: [Location]
        }
        struct Run: Encodable {
            let tool: Tool
            let results: [Result]
        }
        struct Log: Encodable {
            let schema = "https://json.schemastore.org/sarif-2.1.0.json"
            let version = "2.1.0"
            let runs: [Run]
            enum CodingKeys: String, CodingKey { case schema = "$schema", version, runs }
        }
        let rules = LintReport.Rule.allCases
        let directory = report.directory.hasSuffix("/") ? report.directory : report.directory + "/"
        let results = report.findings.map { finding in
            Result(ruleId: finding.rule.rawValue, ruleIndex: rules.firstIndex(of: finding.rule) ?? 0, level: finding.level.rawValue,
                   message: Message(text: finding.message),
                   locations: [Location(physicalLocation: PhysicalLocation(
                       artifactLocation: ArtifactLocation(uri: Self.uri(directory + finding.file)),
                       region: finding.line.map { Region(startLine: max(1, $0)) }))])
        }
        let log = Log(runs: [Run(tool: Tool(driver: Driver(rules: rules.map { Rule(id: $0.rawValue, shortDescription: Message(text: $0.summary)) })),
                                 results: results)])
        return try ReportOutput.json(log)
    }

    /// A relative path as a URI reference: each byte outside the unreserved set and `/`
    /// percent-encoded.
    static func uri(_ path: String) -> String {
        let trimmed = path.hasPrefix("./") ? String(path.dropFirst(2)) : path
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~/")
        return trimmed.addingPercentEncoding(withAllowedCharacters: allowed) ?? trimmed
    }
}

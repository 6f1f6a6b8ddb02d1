import ArgumentKit
import BundleFormat
import Foundation
import StewardBase
import StewardCore

/// The handover files' contents: what each database's or bundle's run gives them, and
/// how they are written (the option group is in SharedOptions.swift).
extension Handover {
    /// What one database's or bundle's run gives the handover.
    struct Item: Sendable {
        /// A result `steward report` read, from the fields every command's report shares:
        /// `checks`, verify's `contractCases`, migrate's `applied` and `undone`, and `error`.
        init(reading result: FleetReport.Result) {
            let read = (try? JSONDecoder().decode(ReadReport.self, from: result.json)) ?? ReadReport()
            var cases = (read.checks ?? []).map(JUnit.Case.init) + (read.contractCases ?? []).map(JUnit.Case.init(contract:))
            cases += (read.applied ?? []).map { JUnit.Case(name: "migration \($0.file)", seconds: $0.durationSeconds, result: .passed) }
            cases += (read.undone ?? []).map { JUnit.Case(name: "undo \($0.file)", seconds: $0.durationSeconds, result: .passed) }
            if let error = read.error {
                cases.append(JUnit.Case(name: "run", seconds: 0, result: .error(error.message)))
            } else if cases.isEmpty {
                cases.append(JUnit.Case(name: result.command, seconds: read.totalSeconds ?? 0,
                                        result: result.exitCode == 0 ? .passed : .failed(result.message ?? result.outcome, details: [])))
            }
            var summary = ["- Command: \(result.command)"]
            if let message = result.message { summary.append("- Why: \(Markdown.text(message))") }
            if let checks = read.checks, !checks.isEmpty { summary += [""] + Markdown.checks(checks) }
            self.init(subject: "\(result.command) \(result.path)", exitCode: result.exitCode, outcome: result.outcome,
                      seconds: read.totalSeconds ?? 0, cases: cases, summary: summary)
        }

        /// The fields of a report that the handover files read, whichever command wrote it;
        /// a field a report does not have is nil. The report's own types read them.
        private struct ReadReport: Decodable {
            struct Error: Decodable { let message: String }
            var checks: [CheckResult]?
            var contractCases: [VerifyReport.ContractCase]?
            var applied: [MigrateReport.AppliedMigration]?
            var undone: [MigrateReport.AppliedMigration]?
            var error: Error?
            var totalSeconds: Double?
        }

        init(subject: String, exitCode: Int32, outcome: String, seconds: Double, cases: [JUnit.Case], summary: [String]) {
            self.subject = subject
            self.exitCode = exitCode
            self.outcome = outcome
            self.seconds = seconds
            self.cases = cases
            self.summary = summary
        }

        /// The database's or bundle's path as given.
        let subject: String
        let exitCode: Int32
        /// `migrated`, `passed`, `failed` …
        let outcome: String
        let seconds: Double
        let cases: [JUnit.Case]
        /// Markdown lines of this item's section, below its heading.
        let summary: [String]

        /// A run that ended in an error before it had a report.
        static func failure(_ subject: String, command: String, exitCode: Int32, message: String) -> Item {
            Item(subject: subject, exitCode: exitCode, outcome: "failed", seconds: 0,
                 cases: [JUnit.Case(name: "run", seconds: 0, result: .error(message))],
                 summary: ["- Error (exit \(exitCode)): \(Markdown.text(message))"])
        }
    }

    /// Writes `steward report`'s files: each result read, as its command's run wrote it.
    func write(report: FleetReport, inputs: [ReportFile.Input]) throws {
        let lines = report.results.map { String(decoding: $0.json, as: UTF8.self).replacingOccurrences(of: "\n", with: "") }
        try write(command: "report", items: report.results.map { Item(reading: $0) }, jsonLines: lines.joined(separator: "\n") + "\n",
                  fleet: nil, inputs: inputs)
    }

    /// Writes the files of a run over one database or bundle: `json` is the object
    /// `--json` prints.
    func write(command: String, item: Item, json: String, inputs: [ReportFile.Input]) throws {
        try write(command: command, items: [item], jsonLines: json + "\n", fleet: nil, inputs: inputs)
    }

    /// Writes the files of a run over many: `jsonLines` are the NDJSON lines, the summary's last.
    func write(command: String, items: [Item], jsonLines: String, fleet: FleetSummary?, inputs: [ReportFile.Input]) throws {
        if let reportPath { try ReportFile.write(jsonLines, to: reportPath, inputs: inputs) }
        if let junitPath {
            let suites = items.map { item in
                JUnit.Suite(name: item.subject, seconds: item.seconds, cases: item.cases,
                            properties: properties(command: command, item: item))
            }
            try ReportFile.write(JUnit.document(name: "steward \(command)", suites: suites), to: junitPath, inputs: inputs)
        }
        if let summaryPath {
            let text = Markdown.summary(command: command, items: items, fleet: fleet, sourceCommit: sourceCommit)
                + Markdown.files(Self.hashes(of: inputs))
            try ReportFile.write(text, to: summaryPath, inputs: inputs)
        }
    }

    /// The SHA-256 of each file the run read: every input but key files, a migration
    /// set's files one by one; a file that cannot be read is left out.
    static func hashes(of inputs: [ReportFile.Input]) -> [(path: String, size: Int64, sha256: String)] {
        var paths: [String] = []
        for input in inputs {
            switch input.kind {
            case .file, .database: paths.append(input.path)
            case .directory: paths += DirectoryTree.list(input.path).map { Paths.join(input.path, $0) }.sorted()
            case .key: break
            }
        }
        return paths.compactMap { path in
            guard let digest = try? FileStreaming.sha256(of: path) else { return nil }
            return (path, digest.size, digest.sha256)
        }
    }

    private func properties(command: String, item: Item) -> [(String, String)] {
        var properties = [("steward.command", command), ("steward.version", StewardVersion.current),
                          ("sqlite.version", StewardVersion.sqlite), ("steward.outcome", item.outcome),
                          ("steward.exitCode", "\(item.exitCode)")]
        if let sourceCommit { properties.append(("source.commit", sourceCommit)) }
        return properties
    }
}

/// JUnit XML as CI systems and junitparser read it: `<testsuites>`, a `<testsuite>` each
/// with its counts and `<properties>`, `<testcase>` with `<failure>`, `<error>` or
/// `<skipped>`; times in seconds.
enum JUnit {
    struct Case: Sendable {
        enum Result: Sendable {
            case passed
            /// A check that failed: Steward's message, and the problems found (names and counts).
            case failed(String, details: [String])
            /// Not run, and why.
            case skipped(String)
            /// The run ended before the check could say (an error of the run).
            case error(String)
        }

        let name: String
        let seconds: Double
        let result: Result

        /// A check of a report, by its status.
        init(_ check: CheckResult) {
            name = check.name.rawValue
            seconds = check.durationSeconds
            switch check.status {
            case .pass: result = .passed
            case .accepted: result = .passed
            case .skipped: result = .skipped(check.summary)
            case .fail: result = .failed(check.summary, details: check.details)
            }
        }

        /// A search-contract case, by its name (never its query) and how its outcomes
        /// differ from what it expects.
        init(contract item: VerifyReport.ContractCase) {
            var differences: [String] = []
            if !item.freshMatches { differences.append("a fresh database does not return the expected rows") }
            if !item.migratedMatches { differences.append("the migrated legacy database does not return the expected rows") }
            if !item.agree { differences.append("the two databases disagree") }
            self.init(name: "search-contract: \(item.name)", seconds: 0,
                      result: item.passed ? .passed : .failed(differences.isEmpty ? "failed" : differences.joined(separator: "; "), details: []))
        }

        init(name: String, seconds: Double, result: Result) {
            self.name = name
            self.seconds = seconds
            self.result = result
        }
    }

    struct Suite: Sendable {
        let name: String
        let seconds: Double
        let cases: [Case]
        let properties: [(String, String)]
    }

    static func document(name: String, suites: [Suite]) -> String {
        func count(_ suite: Suite, _ kind: (Case.Result) -> Bool) -> Int { suite.cases.filter { kind($0.result) }.count }
        let failed: (Case.Result) -> Bool = { if case .failed = $0 { true } else { false } }
        let errored: (Case.Result) -> Bool = { if case .error = $0 { true } else { false } }
        let skipped: (Case.Result) -> Bool = { if case .skipped = $0 { true } else { false } }
        // The root carries no `skipped` count: the Jenkins schema (junit-10.xsd) allows it
        // on each suite only.
        var lines = ["<?xml version=\"1.0\" encoding=\"UTF-8\"?>"]
        let total = suites.reduce(0) { $0 + $1.cases.count }
        lines.append("<testsuites name=\"\(escaped(name))\" tests=\"\(total)\" failures=\"\(suites.reduce(0) { $0 + count($1, failed) })\" "
                     + "errors=\"\(suites.reduce(0) { $0 + count($1, errored) })\" "
                     + "time=\"\(seconds(suites.reduce(0) { $0 + $1.seconds }))\">")
        for suite in suites {
            lines.append("  <testsuite name=\"\(escaped(suite.name))\" tests=\"\(suite.cases.count)\" failures=\"\(count(suite, failed))\" "
                         + "errors=\"\(count(suite, errored))\" skipped=\"\(count(suite, skipped))\" time=\"\(seconds(suite.seconds))\">")
            if !suite.properties.isEmpty {
                lines.append("    <properties>")
                for (key, value) in suite.properties {
                    lines.append("      <property name=\"\(escaped(key))\" value=\"\(escaped(value))\"/>")
                }
                lines.append("    </properties>")
            }
            for test in suite.cases {
                let open = "    <testcase name=\"\(escaped(test.name))\" classname=\"\(escaped(suite.name))\" time=\"\(seconds(test.seconds))\""
                switch test.result {
                case .passed:
                    lines.append(open + "/>")
                case .failed(let message, let details):
                    lines.append(open + ">")
                    let body = details.isEmpty ? "" : escaped(details.joined(separator: "\n"))
                    lines.append("      <failure message=\"\(escaped(message))\" type=\"check\">\(body)</failure>")
                    lines.append("    </testcase>")
                case .skipped(let reason):
                    lines.append(open + ">")
                    lines.append("      <skipped message=\"\(escaped(reason))\"/>")
                    lines.append("    </testcase>")
                case .error(let message):
                    lines.append(open + ">")
                    lines.append("      <error message=\"\(escaped(message))\" type=\"error\"/>")
                    lines.append("    </testcase>")
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        return lines.joined(separator: "\n") + "\n"
    }

    static func seconds(_ value: Double) -> String {
        String(format: "%.3f", value.isFinite ? max(value, 0) : 0)
    }

    /// Text as XML character data or an attribute value: the five markup characters as
    /// entities, tabs and line breaks as character references (attribute values keep
    /// them), and the characters XML 1.0 cannot hold at all (other controls, lone
    /// surrogates, U+FFFE and U+FFFF) as U+FFFD.
    static func escaped(_ text: String) -> String {
        var result = ""
        result.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t": result += "&#9;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            default:
                let value = scalar.value
                let allowed = value >= 0x20 && value != 0xFFFE && value != 0xFFFF
                result.unicodeScalars.append(allowed ? scalar : "\u{FFFD}")
            }
        }
        return result
    }
}

/// The Markdown handover summary: plain text that reads as it is, and renders on code
/// hosts.
enum Markdown {
    static func summary(command: String, items: [Handover.Item], fleet: FleetSummary?, sourceCommit: String?) -> String {
        let library = Inspector.libraryFacts()
        let failed = items.filter { $0.exitCode != 0 }
        var lines = ["# Steward handover: \(command)", ""]
        lines.append("| | |")
        lines.append("|---|---|")
        lines.append("| Result | \(failed.isEmpty ? "passed" : "\(failed.count) of \(items.count) failed") |")
        lines.append("| Steward | \(cell(StewardVersion.current)) |")
        lines.append("| SQLite | \(cell(library.version)) (\(cell(library.sourceID))) |")
        lines.append("| FTS5 | \(library.fts5Available ? "available" : "not available") |")
        lines.append("| Compile options | \(cell(library.compileOptions.joined(separator: ", "))) |")
        if let sourceCommit { lines.append("| Source commit | \(cell(sourceCommit)) |") }
        if let fleet {
            lines.append("| Databases | \(fleet.selected) selected of \(fleet.listed) listed, \(fleet.succeeded) succeeded, \(fleet.failed) failed, \(fleet.notStarted) not started |")
            lines.append("| Exit status | \(fleet.exitCode) |")
            lines.append("| Time | \(ReportOutput.seconds(fleet.totalSeconds)) |")
        }
        lines.append("")
        if !failed.isEmpty {
            lines.append("## Failed")
            lines.append("")
            for item in failed {
                let cases = item.cases.compactMap { test -> String? in
                    switch test.result {
                    case .failed, .error: test.name
                    case .passed, .skipped: nil
                    }
                }
                lines.append("- `\(code(item.subject))` (exit \(item.exitCode)): \(cases.isEmpty ? item.outcome : cases.map { "`\(code($0))`" }.joined(separator: ", "))")
            }
            lines.append("")
        }
        for item in items {
            lines.append("## `\(code(item.subject))`")
            lines.append("")
            lines.append("Outcome: \(item.outcome) (exit \(item.exitCode)), \(ReportOutput.seconds(item.seconds))")
            lines.append("")
            lines += item.summary
            lines.append("")
        }
        return lines.joined(separator: "\n")
    }

    /// The files the run read, with their SHA-256.
    static func files(_ files: [(path: String, size: Int64, sha256: String)]) -> String {
        guard !files.isEmpty else { return "" }
        var lines = ["## Files read", "", "| File | Size | SHA-256 |", "|---|---|---|"]
        lines += files.map { "| `\(code($0.path))` | \($0.size) | `\($0.sha256)` |" }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The checks of a report as a table: name, result, time, summary.
    static func checks(_ checks: [CheckResult]) -> [String] {
        guard !checks.isEmpty else { return [] }
        var lines = ["| Check | Result | Time | Summary |", "|---|---|---|---|"]
        for check in checks {
            lines.append("| \(check.name.rawValue) | \(check.status.rawValue) | \(ReportOutput.seconds(check.durationSeconds)) | \(cell(check.summary)) |")
        }
        return lines
    }

    /// `text` in a table cell: its pipes and line breaks cannot end the cell or the row.
    static func cell(_ text: String) -> String {
        self.text(text).replacingOccurrences(of: "|", with: "\\|")
    }

    /// `text` on one line of Markdown: control characters escaped as the text output
    /// escapes them, and markup characters that would change what follows escaped.
    static func text(_ text: String) -> String {
        var result = ""
        for character in ReportOutput.escaped(text) {
            if "\\`*_[]<>#".contains(character) { result.append("\\") }
            result.append(character)
        }
        return result
    }

    /// `text` inside a code span: a backtick would end it.
    static func code(_ text: String) -> String {
        ReportOutput.escaped(text).replacingOccurrences(of: "`", with: "'")
    }
}

/// A report made of checks, as verify's, backup's and restore's are: its checks are its
/// test cases, its total its time.
protocol CheckedReport {
    var checks: [CheckResult] { get }
    var totalSeconds: Double { get }
}

extension VerifyReport: CheckedReport {}
extension BackupReport: CheckedReport {}
extension RestoreReport: CheckedReport {}

extension FleetCommand where Work.Report: CheckedReport {
    /// SQLite's memory statistics off (`StewardCommand`): a command whose report is made
    /// of checks (verify, backup, restore) runs them side by side on threads (integrity,
    /// FTS5's check, digests, compression), and takes no SQL that relies on heap limits.
    static var honoursSQLiteHeapLimits: Bool { false }

    static func seconds(of report: Work.Report) -> Double { report.totalSeconds }

    static func handoverCases(_ report: Work.Report) -> [JUnit.Case] {
        report.checks.map(JUnit.Case.init)
    }
}

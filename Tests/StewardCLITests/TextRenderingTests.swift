import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCLI
import StewardCore
import TestSupport
import Testing

/// The commands' text output (`render`): what a person reads when `--json` is not given.
/// The reports come from real runs on databases of each test's own; where a test needs a
/// report no small database gives (25 failures), it changes the run's report through its
/// JSON, which is the report's public shape.
@Suite struct TextRenderingTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func verifyReport(of path: String) throws -> VerifyReport {
        var options = Verifier.Options(databasePath: path)
        options.timeout = 2
        return try Verifier(options: options, cancellation: Cancellation(), progress: { _ in }).run()
    }

    /// `report` with `change` applied to its JSON object.
    func changed<Report: Codable>(_ report: Report, _ change: (inout [String: Any]) -> Void) throws -> Report {
        var object = try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
        change(&object)
        return try JSONDecoder().decode(Report.self, from: JSONSerialization.data(withJSONObject: object))
    }

    // MARK: - verify

    @Test func verifyPassingNamesEachCheckAndCountsThem() throws {
        let path = directory.file("tickets.db")
        _ = try Fixtures.makeExampleDatabase(at: path)
        let report = try verifyReport(of: path)
        try #require(report.passed)
        let lines = VerifyCommand.render(report).components(separatedBy: "\n")

        #expect(lines.first?.hasPrefix("Database   \(path) (") == true, "\(lines)")
        let passed = report.checks.filter { $0.status == .pass }.count
        let skipped = report.checks.filter { $0.status == .skipped }.count
        #expect(lines.last?.hasPrefix("Result     PASSED: \(passed) checks passed, \(skipped) skipped (") == true, "\(lines)")
        for check in report.checks {
            #expect(lines.contains { $0.hasPrefix("  \(check.status.rawValue.padding(toLength: 8, withPad: " ", startingAt: 0))\(check.name.rawValue) ") },
                    "a line for \(check.name)")
        }
        // The details of passing checks (compile options and the like) stay in the JSON.
        #expect(!lines.contains { $0.hasPrefix("          - ") })
    }

    @Test func verifyFailureShowsTwentyDetailsAndCountsTheRest() throws {
        let path = directory.file("tickets.db")
        _ = try Fixtures.makeExampleDatabase(at: path)
        let failing = try changed(try verifyReport(of: path)) { object in
            var checks = object["checks"] as? [[String: Any]] ?? []
            checks[0]["status"] = "fail"
            checks[0]["summary"] = "25 problems"
            checks[0]["details"] = (1...25).map { "problem \($0)" }
            object["checks"] = checks
            object["passed"] = false
            object["failedChecks"] = [checks[0]["name"] as? String ?? ""]
        }
        let name = try #require(failing.checks.first?.name)
        let lines = VerifyCommand.render(failing).components(separatedBy: "\n")

        #expect(lines.contains { $0.hasPrefix("  FAIL    \(name)") && $0.contains("25 problems") })
        #expect(lines.filter { $0.hasPrefix("          - problem ") }.count == 20)
        #expect(lines.contains("          - problem 20"))
        #expect(!lines.contains("          - problem 21"))
        #expect(lines.contains("          … 5 more in the JSON report"))
        #expect(lines.last == "Result     FAILED: \(name)")
    }

    @Test func verifyEscapesAPathThatWouldForgeALine() throws {
        let path = directory.file("x.db\nResult     PASSED")
        _ = try Fixtures.makeExampleDatabase(at: path)
        let text = VerifyCommand.render(try verifyReport(of: path))
        #expect(text.components(separatedBy: "\n").filter { $0.hasPrefix("Result ") }.count == 1)
        #expect(text.contains("x.db\\nResult     PASSED"))
    }

    // MARK: - inspect

    @Test func inspectListsTablesWithRowCountsAndEscapesNames() throws {
        let path = directory.file("app.db")
        let connection = try Connection(path: path, mode: [.readWrite, .create])
        try connection.execute(sql: """
            CREATE TABLE "evil\u{1B}[2Jname"(x); INSERT INTO "evil\u{1B}[2Jname" VALUES (1);
            CREATE TABLE two(x); INSERT INTO two VALUES (1), (2);
            CREATE UNIQUE INDEX two_x ON two(x);
            """)
        let text = InspectCommand.render(try Inspector().inspect(path: path))
        let lines = text.components(separatedBy: "\n")

        #expect(lines.first == "Database   \(path)")
        #expect(lines.contains("Tables (2)"))
        #expect(lines.contains { $0.hasPrefix("  evil\\x1B[2Jname") && $0.hasSuffix("1 row") })
        #expect(lines.contains { $0.hasPrefix("  two ") && $0.hasSuffix("2 rows") })
        #expect(lines.contains("Indexes (1)"))
        #expect(lines.contains { $0.contains("two_x") && $0.contains("on two(x)") && $0.hasSuffix("unique") })
        #expect(!text.contains("\u{1B}"), "no escape sequence reaches the terminal")
    }

    // MARK: - report

    @Test func reportCountsOutcomesAndListsFailuresWithTheirExitStatus() throws {
        let lines = [
            #"{"kind":"database","command":"verify","status":"ok","exitCode":0,"outcome":"passed","database":{"path":"/srv/a.db"}}"#,
            #"{"kind":"database","command":"verify","status":"error","exitCode":66,"outcome":"failed","database":{"path":"/srv/b.db"},"error":{"kind":"not-found","message":"no such database"}}"#,
            #"{"kind":"database","command":"verify","status":"ok","exitCode":0,"outcome":"passed","database":{"path":"/srv/a.db"}}"#,
        ]
        let file = directory.file("run.ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let text = ReportCommand.render(try FleetReport.read([file]))

        #expect(text == """
            Databases   2 from 3 lines in 1 file, 1 with more than one line (the last counts)
            Result      1 succeeded, 1 failed (1 failed, 1 passed)
            Failures    by exit status: 66: 1
                66  verify  /srv/b.db  no such database
            Exit status 66
            """)
    }
}

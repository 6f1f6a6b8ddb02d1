import Foundation
import SQLiteKit
import Testing
import TestSupport

/// What a run over many databases prints besides its databases' lines: with `--json`
/// every object is one NDJSON line, a failure of the whole run included, so that the
/// output of shards concatenated stays readable by `steward report`.
@Suite struct FleetOutputTests {
    let directory: TemporaryDirectory
    var migrations: String { Fixtures.exampleMigrations.path }

    init() throws {
        directory = try TemporaryDirectory()
    }

    func makeDatabases(_ count: Int) throws -> [String] {
        try (0..<count).map { index in
            let path = directory.file("db\(index).db")
            try Fixtures.makeExampleDatabase(at: path)
            return path
        }
    }

    func writeList(_ paths: [String]) throws -> String {
        let list = directory.file("list")
        try Data((paths.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: list))
        return list
    }

    /// Every line of stdout is one JSON object.
    static func objects(_ stdout: String) throws -> [[String: Any]] { try StewardRun.jsonLines(of: stdout) }

    // MARK: - one JSON object a line (issue 25, item 13)

    /// Regression: a usage error of a run over many databases printed its failure object
    /// over several lines, which no NDJSON reader takes.
    @Test(arguments: [
        ["--jobs", "0", "--db", "a.db"],
        ["--shard", "5/4", "--dbs-from", "list"],
        ["--shard=5/4", "--dbs-from", "list"],
        ["--dbs-from", "list", "--null", "--bogus"],
        ["--db", "a.db", "--db", "b.db", "--fail-fastt"],
        ["--jobs", "2"],
    ])
    func aUsageErrorOfAFleetRunIsOneLine(arguments: [String]) throws {
        let run = try StewardProcess.run(["verify", "--json"] + arguments, currentDirectory: directory.path)
        #expect(run.status == 64, "\(run.allOutput)")
        let lines = run.stdout.split(separator: "\n")
        #expect(lines.count == 1, "\(run.stdout)")
        let object = try #require(try Self.objects(run.stdout).first)
        #expect(object["kind"] as? String == "run")
        #expect(object["exitCode"] as? Int == 64)
        #expect((object["error"] as? [String: Any])?["kind"] as? String == "usage")
        if JSONValidator.isInstalled {
            #expect(try JSONValidator.problems([("usage error \(arguments)", run.stdout)], in: directory) == [])
        }
    }

    /// A drill over several bundles: the same.
    @Test func aUsageErrorOfADrillOverSeveralBundlesIsOneLine() throws {
        let run = try StewardProcess.run(["restore", "--json", "--check-only", "a.tar.zst", "b.tar.zst", "--into", "x"],
                                         currentDirectory: directory.path)
        #expect(run.status == 64, "\(run.allOutput)")
        #expect(run.stdout.split(separator: "\n").count == 1, "\(run.stdout)")
        #expect(try Self.objects(run.stdout).first?["kind"] as? String == "run")
    }

    /// A run over one database keeps the failure object it always printed, without `kind`.
    @Test func aUsageErrorOfARunOverOneDatabaseIsUnchanged() throws {
        let run = try StewardProcess.run(["verify", "--json", "--db", "a.db", "--bogus"], currentDirectory: directory.path)
        #expect(run.status == 64)
        let object = try run.json()
        #expect(object["kind"] == nil)
        #expect(run.stdout.split(separator: "\n").count > 1, "pretty-printed, as before")
    }

    /// A run that fails as a whole at run time (its list cannot be read) prints one line too.
    @Test func aListThatCannotBeReadIsOneLine() throws {
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--dbs-from", directory.file("none")])
        #expect(run.status == 66, "\(run.allOutput)")
        #expect(run.stdout.split(separator: "\n").count == 1, "\(run.stdout)")
        let object = try #require(try Self.objects(run.stdout).first)
        #expect(object["kind"] as? String == "run")
        #expect((object["error"] as? [String: Any])?["kind"] as? String == "not-found")
        if JSONValidator.isInstalled {
            #expect(try JSONValidator.problems([("missing list", run.stdout)], in: directory) == [])
        }
    }

    /// The case: shards under GNU parallel, one of them with a bad `--shard`. The
    /// concatenated output is NDJSON, and `steward report` reads it and does not call the
    /// fleet a success: the bad shard's databases were never run.
    @Test(.enabled(if: FleetCommandTests.hasParallel, "GNU parallel (Debian package parallel) is not installed"))
    func reportReadsTheOutputOfParallelShardsWithOneBadShard() throws {
        let paths = try makeDatabases(9)
        let list = try writeList(paths)
        let output = directory.file("fleet.ndjson")
        let result = try systemTool([
            "sh", "-c",
            "parallel --will-cite \"$1\" verify --json --jobs 1 --dbs-from \"$2\" --shard {} ::: 1/3 2/3 3/3x > \"$3\"",
            "sh", StewardProcess.executable.path, list, output,
        ])
        #expect(result.status == 1, "parallel counts the one failed shard: \(result.output)")
        let text = try String(contentsOfFile: output, encoding: .utf8)
        let objects = try Self.objects(text)
        #expect(objects.filter { $0["kind"] as? String == "run" }.count == 1, "\(text)")
        #expect(objects.filter { $0["kind"] as? String == "database" }.count == 6)
        if JSONValidator.isInstalled {
            #expect(try JSONValidator.problems([("parallel shards", text)], in: directory) == [])
        }

        let report = try StewardProcess.run(["report", "--json", output])
        #expect(report.status == 64, "the failed shard's status: \(report.allOutput)")
        let json = try report.json()
        #expect(json["databases"] as? Int == 6)
        #expect(json["succeeded"] as? Int == 6)
        let runs = try #require(json["runFailures"] as? [[String: Any]])
        #expect(runs.count == 1)
        #expect(runs.first?["exitCode"] as? Int == 64)
        #expect(runs.first?["command"] as? String == "verify")
        #expect((runs.first?["message"] as? String)?.contains("--shard") == true, "\(runs)")
        if JSONValidator.isInstalled {
            #expect(try JSONValidator.problems([("report", report.stdout)], in: directory) == [])
        }

        let textReport = try StewardProcess.run(["report", output])
        #expect(textReport.status == 64)
        #expect(textReport.stdout.contains("Runs failed 1"), "\(textReport.stdout)")
        #expect(textReport.stdout.contains("3/3x"), "\(textReport.stdout)")
    }

    // MARK: - the end of a text run, and the live line (issue 25, item 14)

    /// Regression: a text run ended with "Failures by exit status: 65: 1, 66: 1" and no
    /// name; each failed database is listed again at the end, with its status and reason.
    @Test func aTextRunEndsWithEachFailedDatabaseItsStatusAndItsReason() throws {
        let good = try makeDatabases(2)
        let corrupt = directory.file("corrupt.db")
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: corrupt))
        let missing = directory.file("missing.db")
        let run = try StewardProcess.run(["verify", "--jobs", "1"] + (good + [corrupt, missing]).flatMap { ["--db", $0] })
        #expect(run.status == 1, "\(run.allOutput)")
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let failures = try #require(lines.firstIndex { $0.hasPrefix("Failures    by exit status: 65: 1, 66: 1") }, "\(run.stdout)")
        let listed = lines[(failures + 1)...].prefix { $0.hasPrefix("    ") }
        #expect(listed.count == 2, "\(run.stdout)")
        #expect(listed.contains { $0.hasPrefix("    65  \(corrupt)  ") && $0.contains("not a SQLite database") }, "\(run.stdout)")
        #expect(listed.contains { $0.hasPrefix("    66  \(missing)  ") && $0.contains("no such file") }, "\(run.stdout)")
        #expect(lines.last { $0.hasPrefix("Exit status") } == "Exit status 1")
    }

    static let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")

    /// Regression: while one database waited on another connection's lock the live line
    /// said "0 s left"; it names the database and how much of the allowance is spent.
    @Test(.enabled(if: hasScript, "util-linux script is needed to give steward a terminal"))
    func theLiveLineNamesTheDatabaseWaitedOn() throws {
        let paths = try makeDatabases(2)
        let holder = try Connection(path: paths[1])
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        defer { try? holder.execute(sql: "ROLLBACK") }
        let command = ([StewardProcess.executable.path, "verify", "--jobs", "1", "--timeout", "3"] + paths.flatMap { ["--db", $0] })
            .map { "'\($0)'" }.joined(separator: " ")
        // script gives steward a terminal on stdout and stderr; its output is both.
        let run = try systemTool(["script", "-qec", command, "/dev/null"])
        #expect(run.output.contains("FAIL exit 75"), "\(run.output)")
        #expect(run.output.contains("waiting on a lock: \(paths[1]) ("), "\(run.output)")
        #expect(run.output.contains(" of 3 s)"), "\(run.output)")
        // Nothing finished while it waited: no time-left guess was drawn beside the wait.
        let drawn = run.output.components(separatedBy: "\r").filter { $0.contains("waiting on a lock") }
        #expect(!drawn.isEmpty && drawn.allSatisfy { !$0.contains("left") }, "\(drawn)")
    }
}

import Foundation
import SQLiteKit
import Testing
import TestSupport

/// The handover files (`--report`, `--junit`, `--summary`, `--source-commit`) as their
/// readers see them: JUnit through junitparser (PyPI, installed by `make test`) and
/// validated by xmllint against the Jenkins xunit plugin's junit-10.xsd (shipped in
/// pytest's source distribution, fetched by `make test` into .build/junit-xsd), one test
/// per command with a failing check, a skipped check and, for verify, contract cases.
/// No file holds a row's text or a contract's query.
@Suite struct HandoverFilesTests {
    let directory: TemporaryDirectory
    /// A row value no handover file may hold.
    static let secret = "SECRET-ROW-7d1e5c"

    init() throws {
        directory = try TemporaryDirectory()
    }

    static var schema: String {
        Fixtures.repositoryRoot.appendingPathComponent(".build/junit-xsd/junit-10.xsd").path
    }

    /// What junitparser reads: each suite's name and counts, each case's name and result.
    struct Read: Decodable {
        struct Suite: Decodable {
            let name: String
            let tests: Int
            let failures: Int
            let errors: Int
            let skipped: Int
            let properties: [String: String]
            let cases: [Case]
        }

        struct Case: Decodable {
            let name: String
            let classname: String
            /// `passed`, `Failure`, `Skipped` or `Error`.
            let result: String
            let message: String?
        }

        let suites: [Suite]

        func suite(_ name: String) throws -> Suite { try #require(suites.first { $0.name == name }, "\(suites.map(\.name))") }
    }

    static let reader = """
        import json, sys
        from junitparser import JUnitXml
        xml = JUnitXml.fromfile(sys.argv[1])
        suites = []
        for suite in xml:
            cases = []
            for case in suite:
                results = list(case.result)
                cases.append({"name": case.name, "classname": case.classname,
                              "result": type(results[0]).__name__ if results else "passed",
                              "message": results[0].message if results else None})
            properties = {p.name: p.value for p in suite.properties()}
            suites.append({"name": suite.name, "tests": suite.tests, "failures": suite.failures, "errors": suite.errors,
                           "skipped": suite.skipped, "properties": properties, "cases": cases})
        print(json.dumps({"suites": suites}))
        """

    /// The JUnit file as junitparser reads it, after xmllint validated it against the schema.
    func junit(_ path: String) throws -> Read {
        let lint = try systemTool(["xmllint", "--noout", "--schema", Self.schema, path])
        #expect(lint.status == 0, "xmllint --schema junit-10.xsd: \(lint.output)")
        let script = directory.file("read-junit.py")
        try Self.reader.write(toFile: script, atomically: true, encoding: .utf8)
        let read = try systemToolStandardOutput(["python3", script, path])
        try #require(read.status == 0, "junitparser could not read \(path)")
        return try JSONDecoder().decode(Read.self, from: read.output)
    }

    /// The example database at version 2, holding the secret, with its sync triggers
    /// dropped: `fts-triggers` fails.
    func exampleDatabase(_ name: String = "tickets.db") throws -> String {
        let path = directory.file(name)
        let connection = try Fixtures.makeExampleDatabase(at: path, titles: [Self.secret, "Printer is on fire"])
        var triggers: [String] = []
        try connection.forEachRow(sql: "SELECT name FROM sqlite_schema WHERE type = 'trigger'") { triggers.append($0.text(at: 0) ?? "") }
        for trigger in triggers { try connection.execute(sql: "DROP TRIGGER \"\(trigger)\"") }
        return path
    }

    func expectNoCustomerText(_ paths: [String], sourceline: SourceLocation = #_sourceLocation) throws {
        let contract = try String(contentsOf: Fixtures.exampleMigrations.appendingPathComponent("ticket-search.contract.json"), encoding: .utf8)
        let queries = (try JSONSerialization.jsonObject(with: Data(contract.utf8)) as? [String: Any])?["cases"] as? [[String: Any]] ?? []
        for path in paths {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(!text.contains(Self.secret), "\(path) holds a row's text", sourceLocation: sourceline)
            for query in queries.compactMap({ $0["query"] as? String }) where query.count > 3 {
                #expect(!text.contains(query), "\(path) holds the query \(query)", sourceLocation: sourceline)
            }
        }
    }

    @Test func verifyWritesAFailingCheckASkippedOneAndTheContractsCases() throws {
        let database = try exampleDatabase()
        let (junitPath, summary, report) = (directory.file("verify.xml"), directory.file("verify.md"), directory.file("verify.json"))
        let run = try StewardProcess.run([
            "verify", "--db", database, "--migrations", Fixtures.exampleMigrations.path,
            "--contract", Fixtures.exampleMigrations.appendingPathComponent("ticket-search.contract.json").path,
            "--junit", junitPath, "--summary", summary, "--report", report, "--source-commit", "0123abc", "--quiet",
        ])
        #expect(run.status == 1, "\(run.stderr)")
        let suite = try junit(junitPath).suite(database)
        #expect(suite.properties["source.commit"] == "0123abc")
        #expect(suite.properties["steward.command"] == "verify")
        let failing = try #require(suite.cases.first { $0.name == "fts-triggers" })
        #expect(failing.result == "Failure")
        #expect(failing.message == "missing sync triggers")
        let skipped = try #require(suite.cases.first { $0.name == "assertions" })
        #expect(skipped.result == "Skipped")
        #expect(skipped.message == "no --assert given")
        let contractCases = suite.cases.filter { $0.name.hasPrefix("search-contract: ") }
        #expect(contractCases.count >= 5, "\(suite.cases.map(\.name))")
        #expect(contractCases.allSatisfy { $0.result == "passed" })
        // fts-triggers and schema (the triggers the set makes are gone) fail; ledger
        // (Steward's own layout) and assertions are skipped.
        #expect(suite.failures == 2 && suite.errors == 0 && suite.skipped == 2)
        #expect(suite.tests == suite.cases.count)

        let markdown = try String(contentsOfFile: summary, encoding: .utf8)
        #expect(markdown.hasPrefix("# Steward handover: verify\n"))
        #expect(markdown.contains("| Source commit | 0123abc |"))
        #expect(markdown.contains("| fts-triggers | fail |"))
        #expect(markdown.contains("Full-text table `ticket_fts`: tokenize"))
        #expect(markdown.contains("Search contract: version ticket-search/1"))
        // The SHA-256 of every file read, as sha256sum computes it.
        for file in [database, Fixtures.exampleMigrations.appendingPathComponent("0002_ticket_search.sql").path] {
            let sum = try systemTool(["sha256sum", file]).output.prefix(64)
            #expect(markdown.contains("| `\(file)` | ") && markdown.contains("`\(sum)`"), "\(file) \(sum)")
        }
        let object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report))) as? [String: Any])
        #expect(object["command"] as? String == "verify" && object["exitCode"] as? Int == 1)
        #expect(try JSONValidator.problems([("verify --report", String(contentsOfFile: report, encoding: .utf8))], in: directory) == [])
        try expectNoCustomerText([junitPath, summary, report])
    }

    @Test func aRestoreDrillOverBundlesWritesASuitePerBundleAndAnErrorForOneMissing() throws {
        let database = try directory.file("tickets.db")
        try Fixtures.makeExampleDatabase(at: database, titles: [Self.secret])
        try FileManager.default.createDirectory(atPath: directory.file("bundles"), withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", database, "--out", directory.file("bundles"), "--json",
                                             "--junit", directory.file("backup.xml")])
        #expect(backup.status == 0, "\(backup.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(backup.stdout.utf8)) as? [String: Any]
        let bundle = try #require((object?["bundle"] as? [String: Any])?["path"] as? String)
        let missing = directory.file("bundles/missing.tar.zst")
        let junitPath = directory.file("drill.xml")
        let drill = try StewardProcess.run(["restore", "--check-only", "--skip-fts-check", bundle, missing, "--junit", junitPath,
                                            "--summary", directory.file("drill.md"), "--quiet"])
        #expect(drill.status == 66, "\(drill.stderr)")
        let read = try junit(junitPath)
        #expect(read.suites.map(\.name) == [bundle, missing])
        let checked = try read.suite(bundle)
        #expect(checked.cases.first { $0.name == "integrity" }?.result == "passed")
        #expect(checked.cases.first { $0.name == "fts-sync" }?.result == "Skipped")
        let failed = try read.suite(missing)
        #expect(failed.cases.map(\.result) == ["Error"] && failed.errors == 1)
        #expect(failed.properties["steward.exitCode"] == "66")
        #expect(try junit(directory.file("backup.xml")).suite(database).cases.contains { $0.name == "integrity" && $0.result == "passed" })
        try expectNoCustomerText([junitPath, directory.file("drill.md"), directory.file("backup.xml")])
    }

    /// A bundle of a database with foreign-key violations, made with `backup --as-is`:
    /// a drill without `--accept-recorded-failures` fails its foreign-keys check.
    @Test func aRestoreDrillsFailingCheckIsAFailure() throws {
        let database = directory.file("orphans.db")
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id), note TEXT);
            INSERT INTO child(parent_id, note) VALUES (7, '\(Self.secret)');
            """)
        try FileManager.default.createDirectory(atPath: directory.file("bundles"), withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", database, "--out", directory.file("bundles"), "--as-is", "--json"])
        #expect(backup.status == 0, "\(backup.stderr)")
        let object = try JSONSerialization.jsonObject(with: Data(backup.stdout.utf8)) as? [String: Any]
        let bundle = try #require((object?["bundle"] as? [String: Any])?["path"] as? String)
        let junitPath = directory.file("drill.xml")
        let report = directory.file("drill.json")
        let drill = try StewardProcess.run(["restore", "--check-only", bundle, "--junit", junitPath, "--report", report, "--quiet"])
        #expect(drill.status == 1, "\(drill.stderr)")
        let suite = try junit(junitPath).suite(bundle)
        let failed = try #require(suite.cases.first { $0.name == "foreign-keys" })
        #expect(failed.result == "Failure", "\(suite.cases)")
        #expect(suite.failures >= 1)
        #expect(try JSONValidator.problems([("restore --report", String(contentsOfFile: report, encoding: .utf8))], in: directory) == [])
        try expectNoCustomerText([junitPath, report])
    }

    @Test func migrateWritesACasePerMigrationApplied() throws {
        let database = directory.file("new.db")
        let junitPath = directory.file("migrate.xml")
        let run = try StewardProcess.run(["migrate", "--db", database, "--migrations", Fixtures.exampleMigrations.path, "--create",
                                          "--junit", junitPath, "--summary", directory.file("migrate.md")])
        #expect(run.status == 0, "\(run.stderr)")
        let suite = try junit(junitPath).suite(database)
        #expect(suite.cases.map(\.name) == ["migration 0001_create_ticket.sql", "migration 0002_ticket_search.sql"])
        #expect(suite.properties["steward.outcome"] == "created")
        let markdown = try String(contentsOfFile: directory.file("migrate.md"), encoding: .utf8)
        #expect(markdown.contains("Applied `0002_ticket_search.sql`"))
    }

    /// migrate over two databases: one drifted from the set, migrated as --allow-drift
    /// asks (its drift check a skipped case with the differences), one that does not exist
    /// (an error case).
    @Test func migrateOverManyShowsAllowedDriftAsSkippedAndAnErrorAsAnError() throws {
        let drifted = directory.file("drifted.db")
        let connection = try Fixtures.makeExampleSetDatabase(at: drifted, version: 1, titles: [Self.secret])
        try connection.execute(sql: "CREATE TABLE added_by_hand(x)")
        let missing = directory.file("missing.db")
        let junitPath = directory.file("fleet-migrate.xml")
        let run = try StewardProcess.run(["migrate", "--db", drifted, "--db", missing, "--migrations", Fixtures.exampleMigrations.path,
                                          "--allow-drift", "--junit", junitPath, "--report", directory.file("fleet-migrate.ndjson")])
        #expect(run.status == 66, "\(run.stdout)\(run.stderr)")
        let read = try junit(junitPath)
        let migrated = try read.suite(drifted)
        #expect(migrated.cases.first { $0.name == "migration 0002_ticket_search.sql" }?.result == "passed")
        let schema = try #require(migrated.cases.first { $0.name == "schema" })
        #expect(schema.result == "Skipped")
        #expect(schema.message?.contains("added_by_hand") == true, "\(schema)")
        #expect(try read.suite(missing).cases.map(\.result) == ["Error"])
        #expect(try JSONValidator.problems([("migrate --report over many", String(contentsOfFile: directory.file("fleet-migrate.ndjson"), encoding: .utf8))],
                                           in: directory) == [])
        try expectNoCustomerText([junitPath, directory.file("fleet-migrate.ndjson")])
    }

    /// Over many databases `--report` holds the NDJSON `--json` prints, while the text goes
    /// to stdout; the JUnit file has a suite per database.
    @Test func aFleetReportIsTheNDJSONBesideTheText() throws {
        let first = try exampleDatabase("a.db")
        let second = try exampleDatabase("b.db")
        let missing = directory.file("missing.db")
        let report = directory.file("fleet.ndjson")
        let run = try StewardProcess.run(["verify", "--db", first, "--db", second, "--db", missing, "--report", report,
                                          "--junit", directory.file("fleet.xml"), "--jobs", "2"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stdout.contains("Exit status 1"), "the text stays on stdout")
        let lines = try StewardRun.jsonLines(of: String(contentsOfFile: report, encoding: .utf8))
        #expect(lines.count == 4)
        #expect(try JSONValidator.problems([("verify --report over many", String(contentsOfFile: report, encoding: .utf8))], in: directory) == [])
        #expect(lines.last?["kind"] as? String == "summary")
        #expect(Set(StewardRun.databases(in: lines).keys) == [first, second, missing])
        let read = try junit(directory.file("fleet.xml"))
        #expect(read.suites.map(\.name) == [first, second, missing], "the list's order")
        #expect(try read.suite(missing).cases.first?.result == "Error")
        try expectNoCustomerText([report, directory.file("fleet.xml")])
    }

    /// steward report reads what runs over one database print and write, besides fleet
    /// lines, keeps each command's results apart and lists each failure with its command.
    @Test func reportReadsEveryReportAndKeepsCommandsApart() throws {
        let database = try exampleDatabase()
        let single = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet"])
        try single.stdout.write(toFile: directory.file("verify.json"), atomically: true, encoding: .utf8)
        let reportFile = directory.file("verify-report.json")
        _ = try StewardProcess.run(["verify", "--db", database, "--report", reportFile, "--quiet"])
        let fresh = directory.file("fresh.db")
        let migrate = try StewardProcess.run(["migrate", "--db", fresh, "--migrations", Fixtures.exampleMigrations.path, "--create",
                                              "--report", directory.file("migrate.json")])
        #expect(migrate.status == 0, "\(migrate.stderr)")

        let junitPath = directory.file("report.xml")
        let run = try StewardProcess.run(["report", "--json", directory.file("verify.json"), reportFile, directory.file("migrate.json"),
                                          "--junit", junitPath, "--summary", directory.file("report.md")])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let commands = try #require(object["commands"] as? [[String: Any]])
        #expect(commands.map { $0["command"] as? String } == ["verify", "migrate"])
        #expect(object["repeated"] as? Int == 1, "verify's two reports of one database: the last counts")
        let failures = try #require(object["failures"] as? [[String: Any]])
        #expect(failures.count == 1)
        #expect(failures.first?["command"] as? String == "verify")
        #expect(failures.first?["message"] as? String == "failed: fts-triggers")
        #expect(try JSONValidator.problems([("report", run.stdout)], in: directory) == [])
        let read = try junit(junitPath)
        #expect(read.suites.map(\.name) == ["verify \(database)", "migrate \(fresh)"])
        #expect(try read.suite("verify \(database)").cases.first { $0.name == "fts-triggers" }?.result == "Failure")

        let text = try StewardProcess.run(["report", directory.file("verify.json"), directory.file("migrate.json")])
        #expect(text.stdout.contains("verify  \(database)"), "\(text.stdout)")
        try expectNoCustomerText([junitPath, directory.file("report.md")])
    }

    @Test func aHandoverFileNeverReplacesAnInputOrAnotherOutput() throws {
        let database = try exampleDatabase()
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let overInput = try StewardProcess.run(["verify", "--db", database, "--junit", database])
        #expect(overInput.status == 64)
        #expect(overInput.stderr.contains("'--junit \(database)' is the database \(database); a report never replaces an input"), "\(overInput.stderr)")
        let twice = try StewardProcess.run(["verify", "--db", database, "--junit", directory.file("x"), "--summary", directory.file("./x")])
        #expect(twice.status == 64)
        #expect(twice.stderr.contains("is also the --junit file"), "\(twice.stderr)")
        let fleet = try StewardProcess.run(["verify", "--db", database, "--db", directory.file("other.db"), "--summary", database])
        #expect(fleet.status == 64, "\(fleet.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        #expect(!FileManager.default.fileExists(atPath: directory.file("x")))
    }
}

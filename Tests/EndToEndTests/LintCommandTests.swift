import Foundation
import Testing
import TestSupport

/// `steward lint` as a user runs it: exit statuses, text, JSON valid against the schema,
/// SARIF read by sarif-tools and JUnit read by junitparser (both from PyPI, installed by
/// `make test`), and nothing written next to the set or the sample.
@Suite struct LintCommandTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    var migrations: String { directory.file("migrations") }

    /// A set whose second migration needs SQLite 3.35 (DROP COLUMN) and drops, by rebuilding
    /// its table, an index and a trigger.
    func writeSet() throws {
        try directory.write("CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b INT);\nCREATE INDEX t_a ON t(a);\nCREATE TABLE audit(n);\nCREATE TRIGGER t_audit AFTER INSERT ON t BEGIN INSERT INTO audit VALUES (1); END;\n",
                            to: "migrations/0001_t.sql")
        try directory.write("ALTER TABLE t DROP COLUMN b;\n", to: "migrations/0002_drop.sql")
        try directory.write("CREATE TABLE t_new(id INTEGER PRIMARY KEY, a INT);\nINSERT INTO t_new SELECT id, a FROM t;\nDROP TABLE t;\nALTER TABLE t_new RENAME TO t;\n",
                            to: "migrations/0003_rebuild.sql")
    }

    @Test func aCleanSetExitsZero() throws {
        let run = try StewardProcess.run(["lint", "--migrations", Fixtures.exampleMigrations.path, "--min-sqlite", "3.34.1", "-q"])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(run.stdout.contains("Result     PASSED"))
    }

    @Test func findingsAtErrorLevelExitOne() throws {
        try writeSet()
        let old = try StewardProcess.run(["lint", "--migrations", migrations, "--min-sqlite", "3.32.0", "-q"])
        #expect(old.status == 1)
        #expect(old.stdout.contains("0002_drop.sql:1  sqlite-version: ALTER TABLE … DROP COLUMN needs SQLite 3.35.0"), "\(old.stdout)")
        #expect(old.stdout.contains("0003_rebuild.sql:3  rebuild-loses-triggers"))
        #expect(old.stdout.contains("0003_rebuild.sql:3  object-lost: index t_a"))
        let new = try StewardProcess.run(["lint", "--migrations", migrations, "--min-sqlite", "3.40.1", "-q"])
        #expect(new.status == 1, "the rebuild still loses its index and trigger")
        #expect(!new.stdout.contains("sqlite-version"))
    }

    /// A Flyway set with a placeholder is linted once its value is given, as migrate reads
    /// it (komga's set needs four); without it, the set is refused naming the placeholder.
    @Test func aFlywayPlaceholderIsGivenAsToMigrate() throws {
        try directory.write("CREATE TABLE setting(name TEXT, value TEXT DEFAULT '${scan-startup}');\n", to: "migrations/V1__settings.sql")
        let refused = try StewardProcess.run(["lint", "--migrations", migrations, "-q"])
        #expect(refused.status == 65, "\(refused.allOutput)")
        #expect(refused.stderr.contains("'${scan-startup}' has no value"), "\(refused.stderr)")
        let run = try StewardProcess.run(["lint", "--migrations", migrations, "--placeholder", "scan-startup=false", "-q"])
        #expect(run.status == 0, "\(run.allOutput)")
    }

    @Test func usageErrors() throws {
        #expect(try StewardProcess.run(["lint"]).status == 64)
        #expect(try StewardProcess.run(["lint", "--migrations", migrations, "--min-sqlite", "3.x"]).status == 64)
        #expect(try StewardProcess.run(["lint", "--migrations", migrations, "--format", "xml"]).status == 64)
        #expect(try StewardProcess.run(["lint", "--migrations", migrations, "--format", "sarif", "--json"]).status == 64)
        #expect(try StewardProcess.run(["lint", "--migrations", directory.file("nowhere")]).status == 66)
    }

    @Test func jsonIsValidAgainstTheSchema() throws {
        try writeSet()
        let sample = directory.file("sample.db")
        #expect(try systemTool(["sqlite3", sample, "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b INT); INSERT INTO t VALUES (1, 2, 3); PRAGMA user_version = 1;"]).status == 0)
        let runs = [
            try StewardProcess.run(["lint", "--migrations", migrations, "--json", "-q"]),
            try StewardProcess.run(["lint", "--migrations", migrations, "--format", "json", "--min-sqlite", "3.40.1", "-q", "--from", "2"]),
            try StewardProcess.run(["lint", "--migrations", migrations, "--json", "-q", "--sample", sample, "--dialect", "steward"]),
            try StewardProcess.run(["lint", "--migrations", Fixtures.exampleMigrations.path, "--json", "-q"]),
            try StewardProcess.run(["lint", "--migrations", directory.file("nowhere"), "--json"]),
        ]
        #expect(runs.map(\.status) == [1, 1, 0, 0, 66], "the sample has neither the index nor the trigger the rebuild loses")
        let problems = try JSONValidator.problems(runs.enumerated().map { ("lint \($0.offset)", $0.element.stdout) }, in: directory)
        #expect(problems.isEmpty, "\(problems)")
        let report = try runs[0].json()
        #expect(report["command"] as? String == "lint")
        #expect(report["minimumSQLite"] as? String == "3.35.0")
        #expect(report["status"] as? String == "failed")
    }

    /// sarif-tools reads each finding with its rule, file and line.
    @Test func sarifIsReadBySarifTools() throws {
        try writeSet()
        let run = try StewardProcess.run(["lint", "--migrations", "migrations", "--format", "sarif", "--min-sqlite", "3.32.0", "-q"],
                                         currentDirectory: directory.path)
        #expect(run.status == 1)
        let file = directory.file("lint.sarif")
        try Data(run.stdout.utf8).write(to: URL(fileURLWithPath: file))
        let script = """
            import json, sys
            from sarif import loader
            log = loader.load_sarif_file(sys.argv[1])
            print(json.dumps([[r["Code"], r["Location"], r["Line"], r["Severity"]] for r in log.get_records()]))
            """
        let read = try systemToolStandardOutput(["python3", "-c", script, file])
        try #require(read.status == 0, "sarif-tools could not read the log")
        let records = try #require(try JSONSerialization.jsonObject(with: read.output) as? [[Any]])
        let shown = records.map { $0.map { "\($0)" }.joined(separator: " ") }
        #expect(shown.contains("sqlite-version migrations/0002_drop.sql 1 error"), "\(shown)")
        #expect(shown.contains("rebuild-loses-triggers migrations/0003_rebuild.sql 3 error"), "\(shown)")
        let log = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
    }

    /// junitparser reads a case per migration, failed with its findings.
    @Test func junitIsReadByJunitparser() throws {
        try writeSet()
        let path = directory.file("lint.xml")
        let run = try StewardProcess.run(["lint", "--migrations", migrations, "--junit", path, "-q"])
        #expect(run.status == 1)
        let read = try HandoverFilesTests().junit(path)
        let suite = try #require(read.suites.first)
        #expect(suite.cases.map(\.name) == ["lint 0001_t.sql", "lint 0002_drop.sql", "lint 0003_rebuild.sql"])
        #expect(suite.cases.map(\.result) == ["passed", "passed", "Failure"])
        #expect(suite.failures == 1)
    }

    /// Nothing is written: the set's directory and the sample are as they were.
    @Test func nothingIsWritten() throws {
        try writeSet()
        let sample = directory.file("sample.db")
        #expect(try systemTool(["sqlite3", sample, "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b INT); PRAGMA user_version = 1;"]).status == 0)
        let before = try directory.contents(of: "migrations")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: sample))
        _ = try StewardProcess.run(["lint", "--migrations", migrations, "--sample", sample, "-q"])
        #expect(try directory.contents(of: "migrations") == before)
        #expect(try Data(contentsOf: URL(fileURLWithPath: sample)) == bytes)
        #expect(try directory.contents().sorted() == ["migrations", "sample.db"])
    }

    /// The demo's plan contract fails once a migration drops the index it names: in lint,
    /// in verify, and in migrate, which refuses (65) and leaves the database as it was.
    @Test func aPlanContractFailsAfterAMigrationDropsItsIndex() throws {
        let plans = Fixtures.exampleMigrations.appendingPathComponent("ticket.plans.json").path
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        for file in ["0001_create_ticket.sql", "0002_ticket_search.sql"] {
            try FileManager.default.copyItem(atPath: Fixtures.exampleMigrations.appendingPathComponent(file).path, toPath: directory.file("migrations/\(file)"))
        }
        try directory.write("steward\n", to: "migrations/.steward-dialect")
        let database = directory.file("tickets.db")
        let created = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--create", "--plans", plans, "-q"])
        #expect(created.status == 0, "\(created.allOutput)")
        #expect(try StewardProcess.run(["verify", "--db", database, "--plans", plans, "-q"]).status == 0)
        #expect(try StewardProcess.run(["lint", "--migrations", migrations, "--plans", plans, "-q"]).status == 0)

        try directory.write("-- the ticket list no longer needs it, someone thought\nDROP INDEX ticket_status;\n", to: "migrations/0003_drop_status_index.sql")
        let lint = try StewardProcess.run(["lint", "--migrations", migrations, "--plans", plans, "-q"])
        #expect(lint.status == 1)
        #expect(lint.stdout.contains("0003_drop_status_index.sql  plan-regression: query 'open tickets, oldest first' no longer uses the index ticket_status; plan: SCAN ticket"), "\(lint.stdout)")

        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let migrate = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "--plans", plans, "-q"])
        #expect(migrate.status == 65)
        #expect(migrate.stderr.contains("query 'open tickets, oldest first' no longer uses the index ticket_status; plan: SCAN ticket"), "\(migrate.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before, "the database is unchanged")
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations, "-q"]).status == 0, "without the contract it migrates")

        let verify = try StewardProcess.run(["verify", "--db", database, "--plans", plans, "-q", "--json"])
        #expect(verify.status == 1)
        let check = try #require(try verify.check("plans"))
        #expect(check["status"] as? String == "fail")
        #expect((check["details"] as? [String])?.first?.contains("no longer uses the index ticket_status") == true)
        #expect(try JSONValidator.problems([("verify --plans", verify.stdout)], in: directory).isEmpty)
        #expect(try StewardProcess.run(["verify", "--plans", plans]).status == 64, "--plans needs --db")
    }
}

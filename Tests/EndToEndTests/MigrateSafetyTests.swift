import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Through the binary: refusals of sets Steward cannot run faithfully, no row
/// data in messages, out-of-memory and zero-byte files.
@Suite struct MigrateSafetyTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(layout: "steward") }

    func migrate(_ extra: [String] = [], environment: [String: String] = [:]) throws -> StewardRun {
        try workspace.migrate(extra, environment: environment)
    }

    func bytes() -> Data? { FileManager.default.contents(atPath: database) }

    @Test func aCodeMigrationBetweenSQLFilesRefusesTheRunAndKeepsTheData() throws {
        try write("0001_note.sql", "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);\n")
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        try Connection(path: database).execute(sql: "INSERT INTO note(body) VALUES ('kept')")
        let before = bytes()
        // The .js file would have moved the bodies before 0003 drops the column.
        try write("0002__move_bodies.js", "exports.up = async (db) => {}\n")
        try write("0003_drop_body.sql", "ALTER TABLE note DROP COLUMN body;\n")
        for extra in [[String](), ["--dry-run"], ["--status"], ["--json"]] {
            let run = try migrate(extra)
            #expect(run.status == 65, "\(extra): \(run.stderr)")
            #expect(run.stderr.contains("0002__move_bodies.js"), "\(run.stderr)")
        }
        #expect(bytes() == before)
    }

    @Test func aGooseFileIsRefusedWithFileAndLine() throws {
        try write("00001_create_users.sql", """
            -- +goose Up
            CREATE TABLE users(id INTEGER PRIMARY KEY);

            -- +goose Down
            DROP TABLE users;
            """)
        expectRefused(try migrate(["--create", "--dialect", "steward"]), status: 65, saying: "00001_create_users.sql:1:")
    }

    @Test func aDieselLayoutIsNoMigrationsFoundAndCreatesNothing() throws {
        try write("2021-01-01-000000_init/up.sql", "CREATE TABLE posts(id INTEGER PRIMARY KEY);\n")
        try write("2021-01-01-000000_init/down.sql", "DROP TABLE posts;\n")
        let run = try migrate(["--create", "--json", "--dialect", "steward"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("no migrations found in \(migrations)"), "\(run.stderr)")
        #expect(run.stderr.contains("2021-01-01-000000_init/up.sql"))
        #expect(try run.json()["status"] as? String == "error")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func swappingAnOldOrphanForANewOneIsRefused() throws {
        try write("0001_a.sql", """
            CREATE TABLE ticket(id INTEGER PRIMARY KEY);
            CREATE TABLE note(id INTEGER PRIMARY KEY, ticket_id INTEGER REFERENCES ticket(id));
            """)
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        try Connection(path: database).execute(sql: "INSERT INTO ticket VALUES (1); INSERT INTO note VALUES (1, 1), (2, 99)")
        let before = bytes()
        try write("0002_b.sql", "DELETE FROM note WHERE id = 2;\nUPDATE note SET ticket_id = 42 WHERE id = 1;\n")
        let run = try migrate(["--json"])
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("add 1 foreign key violation (note → ticket: 1)"), "\(run.stderr)")
        #expect(bytes() == before)
    }

    @Test func aRebuiltTableWithImplicitRowidsIsComparedByCountAndSaysSo() throws {
        try write("0001_a.sql", """
            CREATE TABLE ticket(id INTEGER PRIMARY KEY);
            CREATE TABLE note(body TEXT, ticket_id INTEGER REFERENCES ticket(id));
            """)
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        try Connection(path: database).execute(sql: "INSERT INTO ticket VALUES (1); INSERT INTO note VALUES ('a', 1), ('b', 99)")
        try write("0002_b.sql", """
            CREATE TABLE note_new(body TEXT NOT NULL, ticket_id INTEGER REFERENCES ticket(id));
            INSERT INTO note_new SELECT body, ticket_id FROM note ORDER BY body DESC;
            DROP TABLE note;
            ALTER TABLE note_new RENAME TO note;
            """)
        let text = try migrate(["--dry-run"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("none new"), "\(text.stdout)")
        #expect(text.stdout.contains("note compared by count only"), "\(text.stdout)")
        let json = try migrate(["--json"])
        let keys = try #require(try json.json()["foreignKeys"] as? [String: Any])
        #expect(keys["newViolationCount"] as? Int == 0)
        #expect((keys["comparedByCount"] as? [[String: Any]])?.first?["table"] as? String == "note")
    }

    @Test func checkBypassingPragmaIsRefusedNotBlamedOnPermissions() throws {
        try write("0001_a.sql", "CREATE TABLE t(x);\nPRAGMA query_only = ON;\nINSERT INTO t VALUES (1);\n")
        let run = try migrate(["--create"])
        #expect(run.status == 65, "\(run.stderr)")
        #expect(run.stderr.contains("0001_a.sql:2: PRAGMA query_only is refused"), "\(run.stderr)")
        #expect(!run.stderr.contains("cannot write"))
    }

    @Test func quickCheckFailureRollsBackWithExit1() throws {
        try write("0001_a.sql", "CREATE TABLE t(code TEXT CHECK (code NOT LIKE 'A%'));\n")
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        let before = bytes()
        try write("0002_b.sql", "PRAGMA case_sensitive_like = ON;\nINSERT INTO t VALUES ('abc');\n")
        let run = try migrate()
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("quick_check"))
        #expect(bytes() == before)
        // What the sqlite3 CLI would have found, had the run committed.
        #expect(try Connection(path: database).integrityCheck() == ["ok"])
    }

    @Test(arguments: [
        // A JSON path read from the row: "JSON path error near '…'".
        "UPDATE doc SET n = json_extract(body, path);\n",
        // An FTS5 query read from the row: "no such column: …".
        "UPDATE doc SET n = (SELECT count(*) FROM search WHERE search MATCH doc.query);\n",
    ])
    func runtimeErrorsDoNotQuoteRowData(sql: String) throws {
        try write("0001_a.sql", """
            CREATE TABLE doc(body TEXT, path TEXT, query TEXT, n INTEGER);
            CREATE VIRTUAL TABLE search USING fts5(body);
            """)
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        try Connection(path: database).execute(
            sql: "INSERT INTO doc VALUES ('{\"a\":1}', 'SECRET-7f3a', 'SECRET7f3a:x', NULL); INSERT INTO search VALUES ('x')")
        try write("0002_b.sql", sql)
        for extra in [[String](), ["--json"], ["--dry-run", "--json"]] {
            let run = try migrate(extra)
            #expect(run.status == 65, "\(extra): \(run.stderr)")
            #expect(run.stderr.contains("0002_b.sql:1:") && run.stderr.contains("SQLite error \(ResultCode.error)"), "\(run.stderr)")
            #expect(!run.allOutput.contains("SECRET"), "\(extra): \(run.allOutput)")
        }
    }

    @Test func constraintMessagesNameTheConstraintOnly() throws {
        try write("0001_a.sql", """
            CREATE TABLE doc(body TEXT, n INTEGER CHECK (n IS NULL OR n >= 0));
            CREATE TABLE strict_copy(v INTEGER) STRICT;
            """)
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        try Connection(path: database).execute(sql: "INSERT INTO doc VALUES ('SECRET-7f3a', NULL)")
        for (sql, message) in [("UPDATE doc SET n = length(body) - 100;\n", "CHECK constraint failed"),
                               ("INSERT INTO strict_copy SELECT body FROM doc;\n", "cannot store TEXT value in INTEGER column")] {
            try write("0002_b.sql", sql)
            let run = try migrate()
            #expect(run.status == 65 && run.stderr.contains(message), "\(run.stderr)")
            #expect(!run.allOutput.contains("SECRET"))
        }
    }

    @Test func outOfMemoryIs74() throws {
        try write("0001_a.sql", "CREATE TABLE t(x);\nINSERT INTO t VALUES (1);\n")
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        // A heap limit for the whole process: the sort below cannot fit in it.
        try write("0002_big.sql", """
            PRAGMA hard_heap_limit = 3000000;
            CREATE TABLE big AS WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 200000)
                SELECT x, randomblob(1000) AS b FROM c ORDER BY b;
            """)
        for extra in [[String](), ["--dry-run"]] {
            let run = try migrate(extra)
            #expect(run.status == 74, "\(extra): \(run.stderr)")
            #expect(run.stderr.contains("out of memory"), "\(run.stderr)")
            #expect(!run.stderr.contains("cannot read the database"))
        }
    }

    @Test func dryRunRefusesADatabaseLargerThanTheMemoryAvailable() throws {
        try write("0001_a.sql", "CREATE TABLE t(x);\n")
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        try Connection(path: database).execute(
            sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 300) INSERT INTO t SELECT randomblob(1000) FROM c")
        try write("0002_b.sql", "CREATE TABLE u(x);\n")
        let run = try migrate(["--dry-run"], environment: ["STEWARD_TEST_HOOK_MEM_AVAILABLE_BYTES": "100000"])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("larger than the memory available"), "\(run.stderr)")
        let enough = try migrate(["--dry-run"], environment: ["STEWARD_TEST_HOOK_MEM_AVAILABLE_BYTES": "100000000"])
        #expect(enough.status == 0, "\(enough.stderr)")
        #expect(try Connection(path: database).userVersion() == 1)
    }

    @Test func helpAndManPageSayDryRunNeedsMemory() throws {
        let help = try StewardProcess.run(["migrate", "--help"])
        let words = help.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(words.contains("in-memory copy of the whole database"), "\(help.stdout)")
        let man = try String(contentsOf: Fixtures.repositoryRoot.appendingPathComponent("man/steward-migrate.1"), encoding: .utf8)
        #expect(man.contains("MemAvailable"))
    }

    @Test func aZeroByteFileIs65WithoutCreateAndANewDatabaseWithIt() throws {
        try write("0001_a.sql", "CREATE TABLE t(x);\n")
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        for extra in [[String](), ["--status"], ["--dry-run"]] {
            let run = try migrate(extra)
            #expect(run.status == 65, "\(extra): \(run.stderr)")
            #expect(run.stderr.contains("empty file"), "\(run.stderr)")
        }
        #expect(bytes()?.isEmpty == true)
        let run = try migrate(["--create"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try Connection(path: database).userVersion() == 1)
    }
}

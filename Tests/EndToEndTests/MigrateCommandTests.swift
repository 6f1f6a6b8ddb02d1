import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `steward migrate` on real files: all or nothing, refusals with file and line, locks.
@Suite struct MigrateCommandTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "tickets.db") }

    func copyExampleSet() throws { try workspace.copyExampleSet() }

    func migrate(_ extra: [String] = []) throws -> StewardRun { try workspace.migrate(extra) }

    /// A database at version 1 with the given ticket titles.
    func makeVersionOne(titles: [String]) throws {
        try copyExampleSet()
        #expect(try migrate(["--create", "--to", "1", "--quiet"]).status == 0)
        let connection = try Connection(path: database)
        for title in titles {
            try connection.execute(sql: "INSERT INTO ticket(title) VALUES (?)", bindings: [.text(title)])
        }
    }

    func fileBytes() -> Data? {
        FileManager.default.contents(atPath: database)
    }

    // MARK: - Happy paths

    @Test func freshDatabaseToHeadThenRerunIsANoOp() throws {
        try copyExampleSet()
        let first = try migrate(["--create", "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        let report = try first.json()
        #expect(report["fromVersion"] as? Int == 0)
        #expect(report["toVersion"] as? Int == 2)
        #expect((report["applied"] as? [[String: Any]])?.map { $0["version"] as? Int } == [1, 2])
        #expect((report["ftsRebuilt"] as? [[String: Any]])?.first?["table"] as? String == "ticket_fts")
        #expect(first.stderr.contains("applied 0001_create_ticket.sql"))
        #expect(try Connection(path: database).userVersion() == 2)

        let second = try migrate(["--json"])
        #expect(second.status == 0)
        #expect((try second.json()["applied"] as? [Any])?.isEmpty == true)
        let text = try migrate()
        #expect(text.stdout.contains("nothing to do"))
    }

    /// Progress and the report say "1 statement", never "1 statements"; JSON keeps the number.
    @Test func oneStatementIsSaidInTheSingular() throws {
        try write(".steward-dialect", "steward\n")
        try write("0001_note.sql", "CREATE TABLE note(id INTEGER PRIMARY KEY);\n")
        try write("0002_tag.sql", "CREATE TABLE tag(id INTEGER PRIMARY KEY);\nCREATE INDEX tag_id ON tag(id);\n")
        let run = try migrate(["--create"])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(run.stderr.contains("applied 0001_note.sql (version 1, 1 statement) in "), "\(run.stderr)")
        #expect(run.stderr.contains("applied 0002_tag.sql (version 2, 2 statements) in "), "\(run.stderr)")
        #expect(run.stdout.contains("0001_note.sql  1 statement  "), "\(run.stdout)")
        #expect(run.stdout.contains("0002_tag.sql   2 statements  "), "\(run.stdout)")
        #expect(!run.allOutput.contains("1 statements"), "\(run.allOutput)")

        try FileManager.default.removeItem(atPath: database)
        let json = try migrate(["--create", "--json"])
        #expect((try json.json()["applied"] as? [[String: Any]])?.map { $0["statements"] as? Int } == [1, 2])
    }

    @Test func toThenHeadAndSearchFindsRowsThatExistedBefore() throws {
        try makeVersionOne(titles: ["Café crème spilled", "Printer jammed", "客户工单搜索"])
        #expect(try Connection(path: database).userVersion() == 1)
        let status = try migrate(["--status", "--json"])
        #expect(status.status == 0)
        #expect((try status.json()["pending"] as? [[String: Any]])?.map { $0["file"] as? String } == ["0002_ticket_search.sql"])

        let run = try migrate()
        #expect(run.status == 0, "\(run.stderr)")
        let connection = try Connection(path: database)
        #expect(try connection.userVersion() == 2)
        let hits = try connection.rows(sql: "SELECT rowid FROM ticket_fts WHERE ticket_fts MATCH ? ORDER BY rank, rowid", bindings: ["cafe"])
        #expect(hits == [[.integer(1)]])
        let chinese = try connection.rows(sql: "SELECT rowid FROM ticket_fts WHERE ticket_fts MATCH ?", bindings: ["客户工单搜索"])
        #expect(chinese == [[.integer(3)]])
        #expect(!run.allOutput.contains("Café"), "no row data in output")
    }

    @Test func dryRunLeavesTheFileByteIdentical() throws {
        try makeVersionOne(titles: ["one", "two"])
        let before = fileBytes()
        let run = try migrate(["--dry-run", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        #expect(report["mode"] as? String == "dry-run")
        #expect(report["toVersion"] as? Int == 2)
        #expect((report["ftsRebuilt"] as? [Any])?.count == 1)
        #expect(fileBytes() == before)
        #expect(try directory.contents() == ["migrations", "tickets.db"])
    }

    // MARK: - All or nothing

    @Test func failureInTheThirdOfFourMigrationsChangesNothing() throws {
        try makeVersionOne(titles: ["first", "second"])
        // Valid on an empty database, so it fails only on the real one, at run time.
        try write("0003_close_all.sql", """
            CREATE TABLE audit(id INTEGER PRIMARY KEY, note TEXT);
            INSERT INTO audit(note) VALUES ('closing');

            UPDATE ticket SET status = 'archived';
            """)
        try write("0004_more.sql", "CREATE TABLE later(id INTEGER PRIMARY KEY);\n")
        let before = try DatabaseState(path: database)
        let run = try migrate()
        #expect(run.status == 65)
        #expect(run.stderr.contains("0003_close_all.sql:4:"), "\(run.stderr)")
        #expect(run.stderr.contains("CHECK constraint failed"))
        #expect(try DatabaseState(path: database) == before)
        #expect(try directory.contents() == ["migrations", "tickets.db"], "no journal left")
    }

    @Test func sqlErrorIsRefusedBeforeAnythingRuns() throws {
        try makeVersionOne(titles: ["first"])
        try write("0003_broken.sql", "CREATE TABLE fine(id INTEGER);\n\nCREATE TABLE broken(id INTEGER,,);\n")
        try write("0004_more.sql", "CREATE TABLE later(id INTEGER PRIMARY KEY);\n")
        let before = fileBytes()
        let run = try migrate()
        #expect(run.status == 65)
        #expect(run.stderr.contains("0003_broken.sql:3:"), "\(run.stderr)")
        #expect(run.stderr.contains("syntax error"))
        #expect(fileBytes() == before)
    }

    @Test(arguments: [
        ("BEGIN;", "BEGIN"), ("COMMIT;", "COMMIT"), ("END TRANSACTION;", "END"), ("ROLLBACK;", "ROLLBACK"),
        ("VACUUM;", "VACUUM"), ("ATTACH 'x.db' AS x;", "ATTACH"), ("DETACH x;", "DETACH"),
        ("PRAGMA journal_mode = wal;", "PRAGMA journal_mode"),
    ])
    func transactionControlIsRefusedWithFileAndLine(statement: String, name: String) throws {
        try copyExampleSet()
        try write("0003_pasted_script.sql", "-- pasted from a test script\nCREATE TABLE a(x);\n\n\(statement)\nINSERT INTO a VALUES (1);\n")
        let run = try migrate(["--create"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("0003_pasted_script.sql:4: \(name) cannot run inside"), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: database), "a database this run created is removed")
    }

    @Test func savepointsAreAllowed() throws {
        try copyExampleSet()
        try write("0003_savepoint.sql", "SAVEPOINT s;\nCREATE TABLE a(x);\nROLLBACK TO s;\nRELEASE s;\nCREATE TABLE b(x);\n")
        let run = try migrate(["--create"])
        #expect(run.status == 0, "\(run.stderr)")
        let names = try Connection(path: database).rows(sql: "SELECT name FROM sqlite_schema WHERE name IN ('a', 'b')")
        #expect(names == [[.text("b")]])
    }

    @Test func newForeignKeyViolationIsRefusedAndRolledBack() throws {
        try makeVersionOne(titles: ["first"])
        try write("0003_comments.sql", """
            CREATE TABLE comment(id INTEGER PRIMARY KEY, ticket_id INTEGER NOT NULL REFERENCES ticket(id));
            INSERT INTO comment(ticket_id) SELECT id + 100 FROM ticket;
            """)
        let before = try DatabaseState(path: database)
        let run = try migrate()
        #expect(run.status == 1)
        #expect(run.stderr.contains("add 1 foreign key violation (comment → ticket: 1)"), "\(run.stderr)")
        #expect(try DatabaseState(path: database) == before)
    }

    @Test func oldOrphansDoNotBlockAndAreReported() throws {
        try makeVersionOne(titles: ["first"])
        do {
            let connection = try Connection(path: database)
            try connection.execute(sql: "CREATE TABLE note(id INTEGER PRIMARY KEY, ticket_id INTEGER REFERENCES ticket(id))")
            try connection.execute(sql: "INSERT INTO note(ticket_id) VALUES (999)")
        }
        // The table made by hand is drift, refused (65) before any change;
        // --allow-drift lets the orphans be the subject here.
        let run = try migrate(["--json", "--allow-drift"])
        #expect(run.status == 0, "\(run.stderr)")
        let keys = try #require(try run.json()["foreignKeys"] as? [String: Any])
        #expect(keys["violationsBefore"] as? Int == 1)
        #expect((keys["newViolations"] as? [Any])?.isEmpty == true)
    }

    @Test func downgradeIsRefused() throws {
        try copyExampleSet()
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        try Connection(path: database).setUserVersion(7)
        let before = fileBytes()
        let run = try migrate()
        #expect(run.status == 65)
        #expect(run.stderr.contains("database is at version 7, newer than the newest migration (2); refusing to downgrade"))
        #expect(fileBytes() == before)
    }

    // MARK: - Bad input

    @Test(arguments: [
        ("notes.sql", "must start with its version"),
        ("3000000000_big.sql", "out of range"),
        ("0_zero.sql", "out of range"),
        ("0001_again.sql", "is also used by"),
    ])
    func badFileNamesAreRefused(name: String, message: String) throws {
        try copyExampleSet()
        try write(name, "CREATE TABLE x(y);\n")
        expectRefused(try migrate(["--create"]), status: 65, saying: name, message)
    }

    @Test func golangMigrateNamesAndIgnoredFiles() throws {
        try directory.declareLayout()
        try write("1_create.up.sql", "CREATE TABLE a(x);\n")
        try write("1_create.down.sql", "DROP TABLE a;\n")
        try write("2_more.up.sql", "CREATE TABLE b(x);\n")
        try "notes".write(toFile: (migrations as NSString).appendingPathComponent("README.md"), atomically: true, encoding: .utf8)
        let run = try migrate(["--create", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        #expect(report["toVersion"] as? Int == 2)
        #expect(report["ignoredFiles"] as? [String] == ["1_create.down.sql", "README.md"])
    }

    @Test func missingDatabaseExits66() throws {
        try copyExampleSet()
        expectRefused(try migrate(), status: 66, saying: database)
    }

    @Test func unknownDirectiveAndMissingFTSTableAreRefused() throws {
        try copyExampleSet()
        try write("0003_x.sql", "-- steward: rebuild-fts no_such_table\nCREATE TABLE x(y);\n")
        let run = try migrate(["--create"])
        #expect(run.status == 65)
        #expect(run.stderr.contains("0003_x.sql:1: rebuild-fts names 'no_such_table'"), "\(run.stderr)")
    }

    @Test func liveIndicatorDuringTheFTSCheckOnlyOnATerminal() throws {
        try makeVersionOne(titles: [])
        try Connection(path: database).execute(sql: """
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 300000)
            INSERT INTO ticket(title, body) SELECT printf('ticket %d printer %d', x, x % 97), printf('body %d', x % 1013) FROM n
            """)
        let command = "'\(StewardProcess.executable.path)' migrate --db '\(database)' --migrations '\(migrations)' > /dev/null"
        let (status, shown) = try systemTool(["script", "-qec", command, "/dev/null"])
        #expect(status == 0, "\(shown)")
        #expect(shown.contains("\r\u{1B}[2Kchecking ticket_fts ... "), "a live indicator while the check runs: \(shown)")
        #expect(shown.contains("\r\u{1B}[2Kchecked ticket_fts (rebuilt by the migration)"), "the indicator is cleared: \(shown)")
        // Not a terminal: the per-migration lines only.
        let plain = try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations])
        #expect(!plain.stderr.contains("\u{1B}"))
    }

    // MARK: - Concurrency, locks, signals

    @Test func twoMigratorsAtOnceBothSucceedAndEachMigrationRunsOnce() throws {
        try copyExampleSet()
        // A slow migration, so that the two runs overlap.
        try write("0003_log.sql", """
            CREATE TABLE run_log(version INTEGER);
            INSERT INTO run_log VALUES (3);
            CREATE TABLE filler(n INTEGER);
            WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 300000) INSERT INTO filler SELECT n FROM c;
            """)
        try write("0004_log.sql", "INSERT INTO run_log VALUES (4);\n")
        #expect(try migrate(["--create", "--to", "2", "--quiet"]).status == 0)

        let arguments = ["migrate", "--db", database, "--migrations", migrations, "--json"]
        let first = try StewardProcess.launch(arguments)
        let second = try StewardProcess.launch(arguments)
        let runs = [first.finish(), second.finish()]
        for run in runs { #expect(run.status == 0, "\(run.stderr)") }
        let appliedCounts = try runs.map { try ($0.json()["applied"] as? [Any])?.count ?? -1 }.sorted()
        #expect(appliedCounts == [0, 2])
        let log = try Connection(path: database).rows(sql: "SELECT version FROM run_log ORDER BY version")
        #expect(log == [[.integer(3)], [.integer(4)]])
    }

    @Test func writeLockHeldPastTimeoutExits75InTime() throws {
        try makeVersionOne(titles: ["first"])
        let before = try DatabaseState(path: database)
        let holder = try Connection(path: database)
        try holder.execute(sql: "BEGIN IMMEDIATE")
        defer { holder.rollbackIfNeeded() }

        let started = Date()
        let run = try migrate(["--timeout", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.contains("locked"))
        #expect(elapsed < 2.0, "gave up after \(elapsed) s")
        holder.rollbackIfNeeded()
        #expect(try DatabaseState(path: database) == before)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalRollsBackAndExits130(signal: Int32) throws {
        try makeVersionOne(titles: ["first"])
        try write("0003_slow.sql", """
            CREATE TABLE filler(n INTEGER);
            WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 100000000) INSERT INTO filler SELECT n FROM c;
            """)
        let before = try DatabaseState(path: database)
        let running = try StewardProcess.launch(["migrate", "--db", database, "--migrations", migrations])
        Thread.sleep(forTimeInterval: 0.7)
        running.send(signal)
        let run = running.finish(timeout: 20)
        #expect(run.status == 130, "\(run.stderr)")
        #expect(run.stderr.contains("interrupted"))
        #expect(try DatabaseState(path: database) == before)
    }
}

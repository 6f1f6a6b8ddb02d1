import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import Testing

/// One migration file: what is refused, the directives, and running it with file and line.
@Suite struct MigrationScriptTests {
    func migration(_ sql: String, fileName: String = "0007_change.sql") -> DialectMigration {
        DialectMigration(version: 7, ledgerVersion: "7", fileName: fileName, path: "/migrations/\(fileName)",
                         description: fileName, bytes: Array(sql.utf8), upSQL: sql)
    }

    func script(_ sql: String) throws -> MigrationScript {
        try MigrationScript(migration(sql))
    }

    @Test func aLargeFileIsReadInLinearTime() throws {
        // 20,000 statements: naming each one's line by rescanning the file from its start
        // (or copying the rest of the file per statement) took minutes here.
        let statements = (1...20_000).map { "INSERT INTO t(v) VALUES ('row \($0) with some text to make the line longer');" }
        let migration = try script("CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);\n" + statements.joined(separator: "\n") + "\nINSERT INTO nowhere VALUES (1);\n")
        let connection = try Connection.inMemory()
        let started = Date()
        let error = try #require(throws: StewardError.self) {
            try connection.transaction { try migration.apply(on: connection, cancellation: Cancellation()) }
        }
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(error.message.hasPrefix("0007_change.sql:20002: "), "\(error.message)")
    }

    /// The error applying `sql` on a fresh in-memory database is refused with.
    func failure(_ sql: String, schemaOnly: Bool = false) throws -> StewardError {
        let connection = try Connection.inMemory()
        let script = try script(sql)
        return try #require(throws: StewardError.self) {
            try script.apply(on: connection, cancellation: Cancellation(), schemaOnly: schemaOnly)
        }
    }

    // MARK: - Refused statements

    @Test(arguments: [
        ("BEGIN", "BEGIN"),
        ("BEGIN TRANSACTION", "BEGIN"),
        ("begin immediate", "BEGIN"),
        ("Begin Exclusive Transaction;", "BEGIN"),
        ("COMMIT", "COMMIT"),
        ("commit transaction", "COMMIT"),
        ("END", "END"),
        ("END TRANSACTION", "END"),
        ("ROLLBACK", "ROLLBACK"),
        ("ROLLBACK TRANSACTION", "ROLLBACK"),
        ("ROLLBACK -- to be safe", "ROLLBACK"),
        ("VACUUM", "VACUUM"),
        ("VACUUM INTO 'copy.db'", "VACUUM"),
        ("ATTACH 'other.db' AS other", "ATTACH"),
        ("ATTACH DATABASE ':memory:' AS scratch", "ATTACH"),
        ("DETACH other", "DETACH"),
        ("DETACH DATABASE other", "DETACH"),
        ("PRAGMA journal_mode", "PRAGMA journal_mode"),
        ("PRAGMA journal_mode = wal", "PRAGMA journal_mode"),
        ("PRAGMA main.journal_mode=wal", "PRAGMA journal_mode"),
        ("PRAGMA \"journal_mode\" = delete", "PRAGMA journal_mode"),
        ("-- pasted from a test script\nBEGIN", "BEGIN"),
        ("/* a block\n   comment */ COMMIT", "COMMIT"),
        ("-- one\n-- two\n\n  /* three */\n\tPRAGMA journal_mode = delete", "PRAGMA journal_mode"),
    ])
    func transactionControlIsRefused(sql: String, reason: String) {
        #expect(MigrationScript.refusal(for: sql) == "\(reason) cannot run inside Steward's migration transaction")
    }

    @Test(arguments: [
        ("PRAGMA ignore_check_constraints = ON", "PRAGMA ignore_check_constraints is refused"),
        ("PRAGMA ignore_check_constraints", "PRAGMA ignore_check_constraints is refused"),
        ("PRAGMA writable_schema = 1", "PRAGMA writable_schema is refused"),
        ("pragma main.WRITABLE_SCHEMA = reset", "PRAGMA writable_schema is refused"),
        ("PRAGMA query_only = ON", "PRAGMA query_only is refused"),
        ("PRAGMA query_only(0)", "PRAGMA query_only is refused"),
    ])
    func checkBypassingPragmasAreRefused(sql: String, reason: String) {
        #expect(MigrationScript.refusal(for: sql)?.hasPrefix(reason) == true)
    }

    @Test(arguments: [
        "ROLLBACK TO s",
        "rollback to savepoint s",
        "ROLLBACK TRANSACTION TO SAVEPOINT s",
        "SAVEPOINT s",
        "RELEASE s",
        "RELEASE SAVEPOINT s",
        "PRAGMA user_version",
        "PRAGMA user_version = 3",
        "PRAGMA main.user_version = 3",
        "PRAGMA foreign_key_check",
        "PRAGMA foreign_key_list(ticket)",
        "PRAGMA defer_foreign_keys = ON",
        "CREATE TABLE begin_log(x)",
        "CREATE TABLE commit_log(vacuum_at TEXT, attach TEXT)",
        "SELECT 'BEGIN'",
        "INSERT INTO t VALUES ('COMMIT')",
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN INSERT INTO b VALUES (1); END",
        "\"BEGIN\"",
        "",
        "-- BEGIN",
        "/* COMMIT */ SELECT 1",
    ])
    func otherStatementsAreAllowed(sql: String) {
        #expect(MigrationScript.refusal(for: sql) == nil)
    }

    @Test(arguments: [
        ("CREATE TABLE a(x)", true),
        ("create index i on a(x)", true),
        ("CREATE VIRTUAL TABLE f USING fts5(x)", true),
        ("DROP TABLE a", true),
        ("ALTER TABLE a ADD COLUMN y", true),
        ("SAVEPOINT s", true),
        ("RELEASE s", true),
        ("ROLLBACK TO s", true),
        ("PRAGMA user_version = 3", true),
        ("-- comment first\nCREATE TABLE a(x)", true),
        ("INSERT INTO a VALUES (1)", false),
        ("REPLACE INTO a VALUES (1)", false),
        ("UPDATE a SET x = 2", false),
        ("DELETE FROM a", false),
        ("SELECT 'CREATE'", false),
        ("WITH c AS (SELECT 1) INSERT INTO a SELECT * FROM c", false),
        ("", false),
        ("(SELECT 1)", false),
    ])
    func changesSchema(sql: String, expected: Bool) {
        #expect(MigrationScript.changesSchema(sql) == expected)
    }

    @Test(arguments: [
        ("CREATE VIRTUAL TABLE ticket_fts USING fts5(title)", ["ticket_fts"]),
        ("create virtual table IF NOT EXISTS Ticket_FTS using fts5(title)", ["ticket_fts"]),
        ("CREATE VIRTUAL TABLE main.\"Search Index\" USING fts5(title)", ["search index"]),
        ("DROP TABLE a_fts;\nCREATE VIRTUAL TABLE a_fts USING fts5(x);\n-- CREATE VIRTUAL TABLE c USING fts5(x)\nCREATE VIRTUAL TABLE [b] USING rtree(id, x0, x1);",
         ["a_fts", "b"]),
        ("CREATE TABLE virtual_table(x); INSERT INTO log VALUES ('CREATE VIRTUAL TABLE d USING fts5(x)')", []),
        ("", []),
    ] as [(String, Set<String>)])
    func createdVirtualTables(sql: String, names: Set<String>) throws {
        #expect(MigrationScript.createdVirtualTables(in: sql) == names)
        #expect(try script(sql).createdVirtualTables == names)
    }

    // MARK: - Directives

    @Test(arguments: [
        ("-- steward: rebuild-fts ticket_fts\n", "ticket_fts", 1),
        ("CREATE TABLE a(x);\n\n-- a note\n-- steward: rebuild-fts ticket_fts\nCREATE TABLE b(x);\n", "ticket_fts", 4),
        ("--steward:rebuild-fts Search", "Search", 1),
        ("   --   steward:   rebuild-fts   f   ", "f", 1),
        ("\t--\tsteward:\trebuild-fts\tf\t\n", "f", 1),
        ("CREATE TABLE a(x);\r\n-- search over a\r\n-- steward: rebuild-fts f\r\nCREATE TABLE b(x);\r\n", "f", 3),
    ])
    func directives(sql: String, table: String, line: Int) throws {
        #expect(try script(sql).directives == [.init(table: table, line: line)])
    }

    @Test func severalDirectivesInOrder() throws {
        let directives = try script("-- steward: rebuild-fts a\nSELECT 1;\n-- steward: rebuild-fts b\n").directives
        #expect(directives == [.init(table: "a", line: 1), .init(table: "b", line: 3)])
    }

    @Test(arguments: [
        "-- stewardship of the table\n",
        "-- see steward: rebuild-fts f\n",
        "SELECT 1; -- steward: rebuild-fts f\n",
        "/* steward: rebuild-fts f */\n",
        "-- rebuild-fts f\n",
    ])
    func otherCommentsAreNotDirectives(sql: String) throws {
        #expect(try script(sql).directives == [])
    }

    @Test(arguments: [
        ("CREATE TABLE a(x);\n\n-- steward: rebuild f\n", 3),
        ("-- steward: rebuild-fts a b\n", 1),
        ("SELECT 1;\n-- steward: rebuild-fts\n", 2),
        ("-- steward:\n", 1),
        ("-- steward: reindex-all\n", 1),
    ])
    func badDirectivesNameFileAndLine(sql: String, line: Int) throws {
        let error = try #require(throws: StewardError.self) { try script(sql) }
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0007_change.sql:\(line): unknown steward directive"), "\(error.message)")
        #expect(error.message.contains("-- steward: rebuild-fts NAME"))
        #expect(error.message.contains("-- steward: allow KIND NAME"))
    }

    // MARK: - Applying

    @Test func countsStatementsButNotEmptyOnesOrComments() throws {
        let connection = try Connection.inMemory()
        let count = try script("""
            -- header
            CREATE TABLE a(x);
            INSERT INTO a VALUES (1);;
            ;
            /* between */ INSERT INTO a VALUES (2);
            -- trailing comment
            """).apply(on: connection, cancellation: Cancellation())
        #expect(count == 3)
        #expect(try connection.integer(sql: "SELECT count(*) FROM a") == 2)
    }

    @Test func emptyFileRunsNothing() throws {
        let connection = try Connection.inMemory()
        #expect(try script("").apply(on: connection, cancellation: Cancellation()) == 0)
        #expect(try script("-- only a comment\n\n").apply(on: connection, cancellation: Cancellation()) == 0)
    }

    @Test func triggerBodyWithSemicolonsIsOneStatement() throws {
        let connection = try Connection.inMemory()
        let count = try script("""
            CREATE TABLE a(x);
            CREATE TABLE log(y);
            CREATE TRIGGER a_log AFTER INSERT ON a BEGIN
                INSERT INTO log VALUES (new.x);
                INSERT INTO log VALUES (new.x * 10);
            END;
            INSERT INTO a VALUES (1);
            """).apply(on: connection, cancellation: Cancellation())
        #expect(count == 4)
        #expect(try connection.rows(sql: "SELECT y FROM log ORDER BY y") == [[.integer(1)], [.integer(10)]])
    }

    @Test func runtimeFailureNamesTheLineWhereTheStatementStarts() throws {
        let error = try failure("""
            -- header comment
            CREATE TABLE t(x INTEGER CHECK (x > 0));

            /* a block
               comment; with a semicolon */
            INSERT INTO t VALUES (1); -- fine

            -- the next one fails
            INSERT INTO t
                VALUES (0);
            INSERT INTO t VALUES (2);
            """)
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0007_change.sql:9: "), "\(error.message)")
        // SQLITE_CONSTRAINT_CHECK
        #expect(error.message.hasSuffix("(SQLite error \(ResultCode.constraintCheck))"), "\(error.message)")
    }

    @Test func failureAfterChineseTextCountsLinesNotBytes() throws {
        let error = try failure("""
            CREATE TABLE 工单(标题 TEXT NOT NULL);
            -- 客户工单搜索 ☕️ — notes in UTF-8
            INSERT INTO 工单 VALUES ('客户');
            INSERT INTO 工单 VALUES ('第二个'); INSERT INTO 工单 VALUES (NULL);
            """)
        #expect(error.message.hasPrefix("0007_change.sql:4: "), "\(error.message)")
        // SQLITE_CONSTRAINT_NOTNULL
        #expect(error.message.hasSuffix("(SQLite error \(ResultCode.constraintNotNull))"), "\(error.message)")
        #expect(!error.message.contains("第二个"), "no row data in messages")
    }

    @Test(arguments: [false, true])
    func syntaxErrorNamesTheLineOfTheBadToken(schemaOnly: Bool) throws {
        let error = try failure("""
            CREATE TABLE a(x);
            CREATE TABLE b(
                x INTEGER,
                ,
                y TEXT
            );
            """, schemaOnly: schemaOnly)
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0007_change.sql:4: "), "\(error.message)")
        #expect(error.message.contains("syntax error"))
        // SQLITE_ERROR
        #expect(error.message.hasSuffix("(SQLite error \(ResultCode.error))"))
    }

    @Test func missingTableIsReportedWhenPrepared() throws {
        let error = try failure("CREATE TABLE a(x);\n\nINSERT INTO missing VALUES (1);\n")
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0007_change.sql:3: "), "\(error.message)")
        #expect(error.message.contains("missing"))
    }

    @Test(arguments: [false, true])
    func refusedStatementNamesFileAndLine(schemaOnly: Bool) throws {
        let error = try failure("CREATE TABLE a(x);\n-- pasted\n\n  BEGIN TRANSACTION;\nINSERT INTO a VALUES (1);\nCOMMIT;\n", schemaOnly: schemaOnly)
        #expect(error == StewardError(.badInput, "0007_change.sql:4: BEGIN cannot run inside Steward's migration transaction"))
    }

    @Test func savepointsRunInsideTheCallersTransaction() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "BEGIN IMMEDIATE")
        let count = try script("SAVEPOINT s;\nCREATE TABLE a(x);\nROLLBACK TO s;\nRELEASE s;\nCREATE TABLE b(x);\n")
            .apply(on: connection, cancellation: Cancellation())
        #expect(count == 5)
        #expect(!connection.isAutocommit, "the caller's transaction is still open")
        try connection.execute(sql: "COMMIT")
        #expect(try connection.rows(sql: "SELECT name FROM sqlite_schema ORDER BY name") == [[.text("b")]])
    }

    // MARK: - Schema only

    @Test func schemaOnlyPreparesRowStatementsWithoutRunningThem() throws {
        let connection = try Connection.inMemory()
        let count = try script("""
            CREATE TABLE a(x INTEGER CHECK (x > 0));
            INSERT INTO a VALUES (0);
            UPDATE a SET x = -1;
            DELETE FROM a;
            SELECT * FROM a;
            CREATE INDEX a_x ON a(x);
            PRAGMA user_version = 9;
            """).apply(on: connection, cancellation: Cancellation(), schemaOnly: true)
        #expect(count == 7)
        #expect(try connection.integer(sql: "SELECT count(*) FROM a") == 0, "the INSERT did not run")
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'a_x'") == 1)
        #expect(try connection.userVersion() == 9)
    }

    @Test func schemaOnlyStillChecksTheNamesAnInsertUses() throws {
        let error = try failure("CREATE TABLE a(x);\nINSERT INTO a VALUES (1);\nINSERT INTO missing VALUES (1);\n", schemaOnly: true)
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0007_change.sql:3: "), "\(error.message)")
        #expect(error.message.contains("no such table"))
    }

    @Test func schemaOnlyChecksColumnNames() throws {
        let error = try failure("CREATE TABLE a(x);\n\nUPDATE a SET nope = 1;\n", schemaOnly: true)
        #expect(error.message.hasPrefix("0007_change.sql:3: "), "\(error.message)")
    }

    // MARK: - Cancellation

    @Test(arguments: [false, true])
    func cancelledBeforeAStatementRunsNothing(schemaOnly: Bool) throws {
        let connection = try Connection.inMemory()
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")
        let script = try script("CREATE TABLE a(x);\nINSERT INTO a VALUES (1);\n")
        let error = try #require(throws: StewardError.self) {
            try script.apply(on: connection, cancellation: cancellation, schemaOnly: schemaOnly)
        }
        #expect(error.kind == .interrupted)
        #expect(error.message.contains("SIGINT"))
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema") == 0)
    }

    @Test func interruptedStatementNamesFileAndLine() throws {
        let connection = try Connection.inMemory()
        let cancellation = Cancellation()
        try connection.execute(sql: "CREATE TABLE a(x)")
        // A one-row INSERT takes far fewer than 1,000 instructions; the recursive one is
        // cancelled while it runs, as a signal would.
        connection.setProgressHandler(instructions: 1_000) {
            cancellation.cancel(reason: "SIGTERM")
            return false
        }
        let script = try script("""
            INSERT INTO a VALUES (1);

            WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 1000000) INSERT INTO a SELECT n FROM c;
            """)
        let error = try #require(throws: StewardError.self) {
            try script.apply(on: connection, cancellation: cancellation)
        }
        #expect(error == StewardError(.interrupted, "interrupted by SIGTERM while running 0007_change.sql:3"))
    }
}

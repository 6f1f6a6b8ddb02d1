import Foundation
import Testing
import SQLiteKit
import TestSupport

@Suite struct ConnectionQueriesTests {
    // MARK: - Queries

    @Test func scalarReturnsTheFirstColumnOrNil() throws {
        let connection = try Connection.inMemory()
        #expect(try connection.scalar(sql: "SELECT ?, 2", bindings: ["first"]) == .text("first"))
        #expect(try connection.scalar(sql: "SELECT 1 WHERE 0") == nil)
        #expect(try connection.scalar(sql: "SELECT NULL") == .null)
    }

    @Test func integerReturnsTheFirstColumn() throws {
        let connection = try Connection.inMemory()
        #expect(try connection.integer(sql: "SELECT ? * 2", bindings: [21]) == 42)
        #expect(try connection.integer(sql: "SELECT ?", bindings: [.integer(Int64.min)]) == Int64.min)
    }

    @Test(arguments: ["SELECT NULL", "SELECT 1 WHERE 0"])
    func integerOfNullOrNoRowThrowsMismatch(_ sql: String) throws {
        let connection = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) { try connection.integer(sql: sql) }
        #expect(error.extendedCode == ResultCode.mismatch)
        #expect(error.sql == sql)
    }

    @Test func rowsReturnsEveryRow() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(a, b); INSERT INTO t VALUES (1, 'x'), (2, NULL), (3, x'00')")
        #expect(try connection.rows(sql: "SELECT a, b FROM t WHERE a >= ? ORDER BY a", bindings: [2])
            == [[2, nil], [3, .blob([0])]])
        #expect(try connection.rows(sql: "SELECT a FROM t WHERE 0").isEmpty)
    }

    @Test func forEachRowVisitsRowsInOrder() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(a); INSERT INTO t VALUES (3), (1), (2)")
        var seen: [Int] = []
        try connection.forEachRow(sql: "SELECT a FROM t ORDER BY a DESC") { row in seen.append(row.int(at: 0)) }
        #expect(seen == [3, 2, 1])
    }

    // MARK: - Transactions

    @Test(arguments: [Connection.TransactionKind.deferred, .immediate, .exclusive])
    func transactionCommitsWhenTheBodyReturns(_ kind: Connection.TransactionKind) throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.file("db.sqlite"))
        try connection.execute(sql: "CREATE TABLE t(x)")
        let result = try connection.transaction(kind) { () throws -> String in
            #expect(!connection.isAutocommit)
            try connection.execute(sql: "INSERT INTO t VALUES (1), (2)")
            return "returned"
        }
        #expect(result == "returned")
        #expect(connection.isAutocommit)
        // A second connection sees the rows only if they were committed.
        let other = try Connection(path: directory.file("db.sqlite"))
        #expect(try other.integer(sql: "SELECT count(*) FROM t") == 2)
    }

    @Test func transactionRollsBackWhenTheBodyThrows() throws {
        struct Failure: Error, Equatable {}
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (0)")
        #expect(throws: Failure()) {
            try connection.transaction {
                try connection.execute(sql: "INSERT INTO t VALUES (1)")
                try connection.execute(sql: "DELETE FROM t WHERE x = 0")
                throw Failure()
            }
        }
        #expect(connection.isAutocommit)
        #expect(try connection.rows(sql: "SELECT x FROM t") == [[0]])
    }

    @Test func transactionRollsBackWhenAStatementFails() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x NOT NULL)")
        let error = try #require(throws: SQLiteError.self) {
            try connection.transaction(.immediate) {
                try connection.execute(sql: "INSERT INTO t VALUES (1)")
                try connection.execute(sql: "INSERT INTO t VALUES (NULL)")
            }
        }
        #expect(error.extendedCode == ResultCode.constraintNotNull)
        #expect(connection.isAutocommit)
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func transactionRollsBackWhenCommitFails() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            PRAGMA foreign_keys = ON;
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(parent_id INTEGER REFERENCES parent(id) DEFERRABLE INITIALLY DEFERRED);
            """)
        // A deferred foreign key is only checked by COMMIT, which then fails.
        let error = try #require(throws: SQLiteError.self) {
            try connection.transaction {
                try connection.execute(sql: "INSERT INTO child VALUES (42)")
            }
        }
        #expect(error.extendedCode == ResultCode.constraintForeignKey)
        #expect(connection.isAutocommit)
        #expect(try connection.integer(sql: "SELECT count(*) FROM child") == 0)
    }

    @Test func transactionInsideATransactionThrowsAndLeavesTheOuterOneOpen() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x); BEGIN; INSERT INTO t VALUES (1)")
        let error = try #require(throws: SQLiteError.self) { try connection.transaction { } }
        #expect(error.extendedCode == ResultCode.error)
        #expect(!connection.isAutocommit)
        connection.rollbackIfNeeded()
        #expect(connection.isAutocommit)
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 0)
    }

    @Test func rollbackIfNeededDoesNothingInAutocommit() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        connection.rollbackIfNeeded()
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 1)
    }

    // MARK: - Pragmas

    @Test(arguments: [Int32(0), 1, 42, -7, Int32.max, Int32.min])
    func userVersionRoundTrips(_ version: Int32) throws {
        let connection = try Connection.inMemory()
        #expect(try connection.userVersion() == 0)
        try connection.setUserVersion(version)
        #expect(try connection.userVersion() == version)
    }

    @Test func userVersionIsStoredInTheFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        try Connection(path: path).setUserVersion(7)
        #expect(try Connection(path: path, mode: .readOnly).userVersion() == 7)
    }

    @Test func journalModeOfAFileDefaultsToDeleteAndSwitchesToWAL() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.file("db.sqlite"))
        #expect(try connection.journalMode() == "delete")
        #expect(try connection.setJournalMode("WAL") == "wal")
        #expect(try connection.journalMode() == "wal")
        #expect(try connection.setJournalMode("delete") == "delete")
        #expect(try connection.journalMode() == "delete")
    }

    @Test func inMemoryDatabaseStaysInMemoryJournalMode() throws {
        let connection = try Connection.inMemory()
        #expect(try connection.journalMode() == "memory")
        #expect(try connection.setJournalMode("wal") == "memory")
    }

    @Test(arguments: ["bogus", "wal; DROP TABLE t", ""])
    func unknownJournalModeIsRefusedBeforeRunning(_ mode: String) throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x)")
        let error = try #require(throws: SQLiteError.self) { try connection.setJournalMode(mode) }
        #expect(error.extendedCode == ResultCode.misuse)
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema WHERE name = 't'") == 1)
    }

    @Test func integrityCheckOfAHealthyDatabaseIsOK() throws {
        let directory = try TemporaryDirectory()
        let connection = try Fixtures.makeExampleDatabase(at: directory.file("example.sqlite"))
        #expect(try connection.integrityCheck() == ["ok"])
        #expect(try connection.integrityCheck(quick: true) == ["ok"])
    }

    @Test func integrityCheckReportsAMissingIndexEntry() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.file("db.sqlite"))
        try connection.execute(sql: """
            CREATE TABLE t(x, y);
            CREATE INDEX t_x ON t(x);
            INSERT INTO t VALUES (1, 30), (2, 20), (3, 10);
            """)
        // Rewrite the schema so that SQLite believes the index is on another column:
        // the entries no longer match, which integrity_check must report.
        try connection.execute(sql: """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = 'CREATE INDEX t_x ON t(y)' WHERE name = 't_x';
            PRAGMA writable_schema = OFF;
            """)
        let reopened = try Connection(path: directory.file("db.sqlite"))
        let problems = try reopened.integrityCheck()
        #expect(problems != ["ok"])
        #expect(!problems.isEmpty)
        #expect(try reopened.integrityCheck(maximumErrors: 1).count == 1)
    }

    @Test func foreignKeyViolationsNameTablesNotRows() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE customer(id INTEGER PRIMARY KEY);
            CREATE TABLE invoice(id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id));
            CREATE TABLE note(id INTEGER PRIMARY KEY, invoice_id INTEGER, customer_id INTEGER,
                FOREIGN KEY (customer_id) REFERENCES customer(id),
                FOREIGN KEY (invoice_id) REFERENCES invoice(id));
            INSERT INTO customer VALUES (1);
            INSERT INTO invoice VALUES (10, 1), (11, 99);
            INSERT INTO note VALUES (100, 12, 1);
            """)
        let violations = try connection.foreignKeyViolations()
        #expect(violations.count == 2)
        let invoice = try #require(violations.first { $0.table == "invoice" })
        #expect(invoice.parent == "customer")
        #expect(invoice.constraint == 0)
        let note = try #require(violations.first { $0.table == "note" })
        #expect(note.parent == "invoice")
        let noteConstraint = try connection.integer(sql: "SELECT id FROM pragma_foreign_key_list('note') WHERE \"table\" = 'invoice'")
        #expect(note.constraint == Int(noteConstraint))
        let json = String(decoding: try JSONEncoder().encode(violations), as: UTF8.self)
        #expect(!json.contains("99"))
        #expect(!json.contains("rowid"))
    }

    @Test func noForeignKeyViolationsInAConsistentDatabase() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE a(id INTEGER PRIMARY KEY);
            CREATE TABLE b(a_id REFERENCES a(id));
            INSERT INTO a VALUES (1); INSERT INTO b VALUES (1), (NULL);
            """)
        #expect(try connection.foreignKeyViolations().isEmpty)
    }

    // MARK: - Quoting

    @Test(arguments: [
        ("ticket", "\"ticket\""),
        ("my table", "\"my table\""),
        ("ticket \"x\"", "\"ticket \"\"x\"\"\""),
        ("", "\"\""),
        ("客户", "\"客户\""),
    ])
    func quoteIdentifier(_ name: String, _ quoted: String) {
        #expect(Connection.quote(identifier: name) == quoted)
    }

    @Test(arguments: [
        ("plain", "'plain'"),
        ("O'Brien", "'O''Brien'"),
        ("''", "''''''"),
        ("", "''"),
    ])
    func quoteLiteral(_ text: String, _ quoted: String) {
        #expect(Connection.quote(literal: text) == quoted)
    }

    @Test func quotedNamesAndLiteralsWorkInSQL() throws {
        let connection = try Connection.inMemory()
        let name = "odd \"name\" [x] 'y'"
        let value = "it's \"quoted\""
        try connection.execute(sql: "CREATE TABLE \(Connection.quote(identifier: name))(v)")
        try connection.execute(sql: "INSERT INTO \(Connection.quote(identifier: name)) VALUES (\(Connection.quote(literal: value)))")
        #expect(try connection.scalar(sql: "SELECT name FROM sqlite_schema") == .text(name))
        #expect(try connection.scalar(sql: "SELECT v FROM \(Connection.quote(identifier: name))") == .text(value))
    }
}

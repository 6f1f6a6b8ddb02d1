import Foundation
import Testing
import SQLiteKit
import TestSupport

@Suite struct ConnectionTests {
    // MARK: - Opening

    @Test func opensAndCreatesAFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("new.sqlite")
        let connection = try Connection(path: path)
        try connection.execute(sql: "CREATE TABLE t(x)")
        #expect(connection.path == path)
        #expect(connection.fileName == path)
        #expect(!connection.isReadOnly)
        #expect(FileManager.default.fileExists(atPath: path))
    }

    @Test func hasMovedTellsWhenTheFileWasUnlinked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("moved.db")
        let connection = try Connection(path: path)
        try connection.execute(sql: "CREATE TABLE t(x)")
        #expect(try connection.hasMoved() == false)
        try FileManager.default.removeItem(atPath: path)
        #expect(try connection.hasMoved() == true)
    }

    @Test func inMemoryHasNoFileName() throws {
        let connection = try Connection.inMemory()
        #expect(connection.fileName == nil)
        #expect(connection.path == ":memory:")
    }

    @Test func openingInAMissingDirectoryThrowsCantOpen() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("missing/dir/db.sqlite")
        let error = try #require(throws: SQLiteError.self) { try Connection(path: path) }
        #expect(error.code == ResultCode.cantOpen)
    }

    @Test func readOnlyOpenOfAMissingFileThrowsAndCreatesNothing() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("absent.sqlite")
        let error = try #require(throws: SQLiteError.self) { try Connection(path: path, mode: .readOnly) }
        #expect(error.code == ResultCode.cantOpen)
        #expect(try directory.contents().isEmpty)
    }

    @Test func readOnlyConnectionRefusesWrites() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        try Connection(path: path).execute(sql: "CREATE TABLE t(x)")
        let reader = try Connection(path: path, mode: .readOnly)
        #expect(reader.isReadOnly)
        let error = try #require(throws: SQLiteError.self) { try reader.execute(sql: "INSERT INTO t VALUES (1)") }
        #expect(error.code == ResultCode.readOnly)
    }

    @Test func uriModeOpensWithQueryParameters() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        try Connection(path: path).execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (7)")
        let reader = try Connection(path: "file:\(path)?mode=ro", mode: [.readOnly, .uri])
        #expect(reader.isReadOnly)
        #expect(try reader.integer(sql: "SELECT x FROM t") == 7)
    }

    // MARK: - execute(sql:) and forEachStatement

    @Test func executeRunsEveryStatement() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            -- a script, as in a migration file
            CREATE TABLE t(x);
            INSERT INTO t VALUES (1); /* two */ INSERT INTO t VALUES (2);
            INSERT INTO t SELECT x + 10 FROM t;

            """)
        #expect(try connection.rows(sql: "SELECT x FROM t ORDER BY x") == [[1], [2], [11], [12]])
    }

    @Test(arguments: ["", "   \n", "-- nothing but a comment", ";", "; ;"])
    func executeOfNothingDoesNothing(_ sql: String) throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: sql)
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema") == 0)
    }

    @Test func executeStopsAtTheFirstFailingStatement() throws {
        let connection = try Connection.inMemory()
        let sql = "CREATE TABLE a(x);\nINSERT INTO missing VALUES (1);\nCREATE TABLE b(x);"
        let error = try #require(throws: SQLiteError.self) {
            try connection.execute(sql: sql)
        }
        #expect(error.extendedCode == ResultCode.error)
        #expect(error.sql == sql)
        let names = try connection.rows(sql: "SELECT name FROM sqlite_schema ORDER BY name")
        #expect(names == [["a"]])

        let fresh = try Connection.inMemory()
        let failure = try #require(throws: Connection.StatementPreparationError.self) {
            try fresh.forEachStatement(in: sql) { statement, _ in while try statement.step() {} }
        }
        #expect(failure.error.extendedCode == ResultCode.error)
        #expect(failure.description == failure.error.description)
        // The offset lies within the failing statement (its start or its failing token).
        let bytes = Array(sql.utf8)
        let failingStart = "CREATE TABLE a(x);".utf8.count
        let failingEnd = "CREATE TABLE a(x);\nINSERT INTO missing VALUES (1);".utf8.count
        #expect((failingStart..<failingEnd).contains(failure.byteOffset))
        #expect(bytes.count > failure.byteOffset)
    }

    @Test func preparationErrorPointsAtTheFailingToken() throws {
        let connection = try Connection.inMemory()
        let sql = "SELECT '中文';\n  SELEC 2;"
        let failure = try #require(throws: Connection.StatementPreparationError.self) {
            try connection.forEachStatement(in: sql) { statement, _ in while try statement.step() {} }
        }
        #expect(failure.error.extendedCode == ResultCode.error)
        #expect(failure.byteOffset == "SELECT '中文';\n  ".utf8.count)
    }

    @Test func preparationErrorOfTheFirstStatementIsAtItsToken() throws {
        let connection = try Connection.inMemory()
        let failure = try #require(throws: Connection.StatementPreparationError.self) {
            try connection.forEachStatement(in: "  SELEC 1; SELECT 2") { statement, _ in while try statement.step() {} }
        }
        #expect(failure.byteOffset == 2)
    }

    @Test func executeReportsAConstraintFailureOfALaterStatement() throws {
        let connection = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) {
            try connection.execute(sql: "CREATE TABLE t(x NOT NULL); INSERT INTO t VALUES (NULL)")
        }
        #expect(error.extendedCode == ResultCode.constraintNotNull)
    }

    @Test func executeWithBindingsRunsOneStatement() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(a, b)")
        try connection.execute(sql: "INSERT INTO t VALUES (?, ?)", bindings: [1, "x"])
        #expect(connection.changes == 1)
        #expect(connection.lastInsertRowID == 1)
        #expect(try connection.rows(sql: "SELECT a, b FROM t") == [[1, "x"]])
        #expect(throws: SQLiteError.self) {
            try connection.execute(sql: "INSERT INTO t VALUES (1, 2); INSERT INTO t VALUES (3, 4)", bindings: [])
        }
    }

    @Test func forEachStatementGivesUTF8ByteOffsets() throws {
        let connection = try Connection.inMemory()
        let sql = "SELECT '中文';SELECT 'é';\nSELECT 3"
        var seen: [(offset: Int, sql: String)] = []
        try connection.forEachStatement(in: sql) { statement, offset in
            seen.append((offset, statement.sql))
        }
        #expect(seen.map(\.offset) == [0, "SELECT '中文';".utf8.count, "SELECT '中文';SELECT 'é';".utf8.count])
        #expect(seen.map(\.offset) != [0, "SELECT '中文';".count, "SELECT '中文';SELECT 'é';".count])
        // Each offset is where the statement's own text starts in the script.
        let bytes = Array(sql.utf8)
        for (offset, text) in seen {
            #expect(Array(bytes[offset...].prefix(text.utf8.count)) == Array(text.utf8))
        }
        #expect(seen.map { $0.sql.trimmingCharacters(in: .whitespacesAndNewlines) }
            == ["SELECT '中文';", "SELECT 'é';", "SELECT 3"])
    }

    @Test func forEachStatementSkipsCommentOnlyTails() throws {
        let connection = try Connection.inMemory()
        var count = 0
        try connection.forEachStatement(in: "SELECT 1; -- done\n/* really */\n") { _, _ in count += 1 }
        #expect(count == 1)
    }

    @Test func laterStatementsSeeWhatEarlierOnesCreated() throws {
        let connection = try Connection.inMemory()
        var offsets: [Int] = []
        try connection.forEachStatement(in: "CREATE TABLE t(x); INSERT INTO t VALUES (5); SELECT x FROM t") {
            (statement: Statement, offset: Int) throws in
            offsets.append(offset)
            if statement.isReadOnly {
                #expect(try statement.step())
                #expect(statement.int(at: 0) == 5)
            } else {
                #expect(try statement.step() == false)
            }
        }
        #expect(offsets == [0, 18, 44])
    }

    @Test func errorThrownByTheBodyStopsTheScript() throws {
        struct Stop: Error {}
        let connection = try Connection.inMemory()
        var count = 0
        #expect(throws: Stop.self) {
            try connection.forEachStatement(in: "SELECT 1; SELECT 2; SELECT 3") { _, _ in
                count += 1
                if count == 2 { throw Stop() }
            }
        }
        #expect(count == 2)
    }

    // MARK: - Facts

    @Test func lastInsertRowIDAndChanges() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, x)")
        try connection.execute(sql: "INSERT INTO t(id, x) VALUES (41, 'a'), (42, 'b')")
        #expect(connection.lastInsertRowID == 42)
        #expect(connection.changes == 2)
        try connection.execute(sql: "UPDATE t SET x = 'c'")
        #expect(connection.changes == 2)
        try connection.execute(sql: "DELETE FROM t WHERE id = 41")
        #expect(connection.changes == 1)
    }

    @Test func autocommitFollowsTransactions() throws {
        let connection = try Connection.inMemory()
        #expect(connection.isAutocommit)
        try connection.execute(sql: "BEGIN")
        #expect(!connection.isAutocommit)
        try connection.execute(sql: "COMMIT")
        #expect(connection.isAutocommit)
    }

    // MARK: - Behaviour

    @Test func busyTimeoutZeroGivesBusyAtOnce() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("db.sqlite")
        let writer = try Connection(path: path)
        try writer.execute(sql: "CREATE TABLE t(x)")
        let other = try Connection(path: path)
        other.setBusyTimeout(milliseconds: 0)
        try writer.execute(sql: "BEGIN IMMEDIATE")
        let error = try #require(throws: SQLiteError.self) { try other.execute(sql: "BEGIN IMMEDIATE") }
        #expect(error.isBusy)
        #expect(error.code == ResultCode.busy)
        try writer.execute(sql: "COMMIT")
        try other.execute(sql: "BEGIN IMMEDIATE; COMMIT")
    }

    @Test func progressHandlerReturningFalseInterrupts() throws {
        let connection = try Connection.inMemory()
        var calls = 0
        connection.setProgressHandler(instructions: 100) {
            calls += 1
            return calls < 5
        }
        let sql = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10000000) SELECT count(*) FROM n"
        let error = try #require(throws: SQLiteError.self) { try connection.integer(sql: sql) }
        #expect(error.isInterrupt)
        #expect(error.code == ResultCode.interrupt)
        #expect(calls == 5)

        connection.setProgressHandler(instructions: 100, nil)
        #expect(try connection.integer(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT count(*) FROM n") == 1000)
        #expect(calls == 5)
    }

    @Test func progressHandlerReturningTrueLetsTheStatementFinish() throws {
        let connection = try Connection.inMemory()
        var calls = 0
        connection.setProgressHandler(instructions: 10) {
            calls += 1
            return true
        }
        #expect(try connection.integer(sql: "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) SELECT sum(i) FROM n") == 500_500)
        #expect(calls > 0)
    }

    @Test func hardenTurnsOffMemoryMappingAndChecksCells() throws {
        let directory = try TemporaryDirectory()
        let connection = try Connection(path: directory.file("db.sqlite"))
        try connection.execute(sql: "PRAGMA mmap_size = 65536")
        try connection.harden()
        #expect(try connection.integer(sql: "PRAGMA cell_size_check") == 1)
        #expect(try connection.integer(sql: "PRAGMA mmap_size") == 0)
        // Defensive mode: the schema cannot be written directly, even when asked for.
        let update = "UPDATE sqlite_schema SET sql = 'CREATE TABLE t(y)' WHERE name = 't'"
        try connection.execute(sql: "CREATE TABLE t(x); PRAGMA writable_schema = ON")
        let error = try #require(throws: SQLiteError.self) { try connection.prepare(sql: update) }
        #expect(error.extendedCode == ResultCode.error)

        // Without harden() the same statement is accepted.
        let plain = try Connection.inMemory()
        try plain.execute(sql: "CREATE TABLE t(x); PRAGMA writable_schema = ON")
        _ = try plain.prepare(sql: update)
    }
}

import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// Assertion files: names, statement boundaries, what passes and fails, and that
/// nothing they do is kept.
@Suite struct AssertionRunnerTests {
    let directory: TemporaryDirectory

    init() throws { directory = try TemporaryDirectory() }

    func write(_ text: String, to name: String = "checks.sql") throws -> String {
        try write(Data(text.utf8), to: name)
    }

    func write(_ data: Data, to name: String) throws -> String {
        let path = directory.file(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// An in-memory database with an `item` table of two rows.
    func database() throws -> Connection {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE item(id INTEGER PRIMARY KEY, price REAL NOT NULL);
            INSERT INTO item(price) VALUES (1.5), (2.5);
            """)
        return connection
    }

    func run(_ text: String, name: String = "checks.sql", on connection: Connection? = nil) throws -> (count: Int, failures: [AssertionRunner.Failure]) {
        let runner = try AssertionRunner(path: write(text, to: name))
        return try runner.run(on: connection ?? database())
    }

    // MARK: - Names

    @Test(arguments: [
        ("-- name: totals match\nSELECT 1;", "totals match"),
        ("-- name: first\n-- name: second\nSELECT 1;", "second"),
        ("-- Name: Mixed Case\nSELECT 1;", "Mixed Case"),
        ("-- NAME:tight\nSELECT 1;", "tight"),
        ("--name:   spaced out  \nSELECT 1;", "spaced out"),
        ("\n\n   -- name: indented\n\nSELECT 1;", "indented"),
        ("-- name: kept\n-- name:\nSELECT 1;", "kept"),
        ("-- name: kept\n-- something else\nSELECT 1;", "kept"),
        ("-- name: crlf\r\nSELECT 1;", "crlf"),
        ("-- name: first\r\n-- name: second\r\nSELECT 1;", "second"),
        ("-- name: tab\t\nSELECT 1;", "tab"),
    ])
    func nameIsTheLastNameCommentBeforeTheFirstToken(_ text: String, _ name: String) {
        #expect(AssertionRunner.name(in: text) == name)
    }

    @Test(arguments: [
        "SELECT 1;",
        "-- name:\nSELECT 1;",
        "-- name:    \nSELECT 1;",
        "-- naming things\nSELECT 1;",
        "-- the name: is not first\nSELECT 1;",
        "SELECT 1 -- name: after the first token\n;",
        "SELECT\n-- name: inside\n1;",
        "/* name: block */ SELECT 1;",
        "",
    ])
    func noName(_ text: String) {
        #expect(AssertionRunner.name(in: text) == nil)
    }

    // MARK: - Statement ends

    @Test(arguments: [
        ("SELECT 1; SELECT 2;", 0, 9),
        ("SELECT 1; SELECT 2;", 9, 19),
        ("SELECT 'a;b', \"c;d\"; SELECT 2;", 0, 20),
        ("SELECT 1 -- ;\n; SELECT 2;", 0, 15),
        ("SELECT /* ; */ 1; SELECT 2;", 0, 17),
        ("SELECT 1", 0, 8),
        ("SELECT 'open;", 0, 13),
        ("", 0, 0),
    ])
    func endOfStatement(_ text: String, _ offset: Int, _ end: Int) {
        #expect(AssertionRunner.endOfStatement(in: text, from: offset) == end)
    }

    @Test func endOfStatementSkipsTriggerBodies() {
        let trigger = "CREATE TRIGGER t AFTER INSERT ON item BEGIN UPDATE item SET price = 0; DELETE FROM item; END;"
        let text = trigger + " SELECT 1;"
        #expect(AssertionRunner.endOfStatement(in: text, from: 0) == trigger.utf8.count)
        // From the failing token onward, still the end of the whole statement.
        let bodyOffset = Array(trigger.utf8).firstIndex(of: UInt8(ascii: "U")) ?? 0
        #expect(AssertionRunner.endOfStatement(in: text, from: bodyOffset) == trigger.utf8.count)
        #expect(AssertionRunner.endOfStatement(in: text, from: trigger.utf8.count) == text.utf8.count)
    }

    @Test func endOfStatementCountsBytes() {
        let text = "SELECT '客户;'; SELECT 2;"
        #expect(AssertionRunner.endOfStatement(in: text, from: 0) == "SELECT '客户;';".utf8.count)
    }

    // MARK: - Running

    @Test func passesAndFailuresInOneFile() throws {
        let (count, failures) = try run("""
            -- name: one
            SELECT 1;
            -- name: zero
            SELECT 0;
            SELECT 1.0;
            -- name: null
            SELECT NULL;
            -- name: text one
            SELECT '1';
            -- name: every row
            SELECT price > 2 FROM item ORDER BY id;
            -- name: no rows
            SELECT 0 FROM item WHERE id < 0;
            SELECT 1, 0, NULL;
            CREATE TEMP TABLE assertion(ok INTEGER NOT NULL CHECK (ok = 1));
            -- name: two items
            INSERT INTO assertion SELECT count(*) = 2 FROM item;
            -- name: five items
            INSERT INTO assertion SELECT count(*) = 5 FROM item;
            INSERT INTO assertion VALUES (NULL);
            """)
        #expect(count == 12)
        #expect(failures.map(\.name) == ["zero", "null", "text one", "every row", "five items", "checks.sql line 20"])
        #expect(failures[0].reason == "the first column is not 1 in 1 of 1 row")
        #expect(failures[1].reason == "the first column is not 1 in 1 of 1 row")
        #expect(failures[3].reason == "the first column is not 1 in 1 of 2 rows")
        #expect(failures[4].reason.hasPrefix("violated: "))
        #expect(failures[5].reason.hasPrefix("violated: "), "NOT NULL is a constraint too")
    }

    @Test func aStatementThatCannotBePreparedDoesNotStopTheRest() throws {
        let (count, failures) = try run("""
            SELECT 1;

            -- a comment, then a blank line

            SELECT *
              FROM no_such_table;
            -- name: after
            SELECT 0;
            SELECT 1;
            """)
        #expect(count == 4)
        #expect(failures.count == 2)
        #expect(failures.first?.name == "checks.sql line 5")
        #expect(failures.first?.reason.hasPrefix("cannot be prepared: ") == true)
        #expect(failures.last == AssertionRunner.Failure(name: "after", reason: "the first column is not 1 in 1 of 1 row"))
    }

    @Test func aSyntaxErrorIsNamedByTheStatementsFirstLine() throws {
        let (count, failures) = try run("""
            SELECT 1;
            -- a comment

            SELECT price,
                   id +
              FROM item;
            SELECT 1;
            -- name: also after
            SELECT 2;
            """)
        #expect(count == 4)
        #expect(failures.map(\.name) == ["checks.sql line 4", "also after"])
    }

    @Test func aStatementThatCannotBePreparedKeepsItsName() throws {
        let (count, failures) = try run("""
            -- name: prices are positive
            SELECT count(*) = 0
              FROM item
             WHERE no_such_column < 0;
            SELECT 1;
            """)
        #expect(count == 2)
        #expect(failures.map(\.name) == ["prices are positive"])
        #expect(failures.first?.reason.hasPrefix("cannot be prepared: ") == true)
    }

    @Test func aSyntaxErrorInATriggerBodySkipsTheWholeTrigger() throws {
        let (count, failures) = try run("""
            SELECT 1;
            CREATE TEMP TRIGGER item_check AFTER INSERT ON item BEGIN
                SELECT FROM;
                SELECT 1;
            END;
            -- name: after the trigger
            SELECT 0;
            """)
        #expect(count == 3)
        #expect(failures.map(\.name) == ["checks.sql line 2", "after the trigger"])
    }

    @Test func aFailureAfterAPreparedStatementInTheSameChunk() throws {
        // The second statement fails to prepare right after the first one ran.
        let (count, failures) = try run("SELECT 1; SELECT nope(); SELECT 0;\n-- name: last\nSELECT 1;")
        #expect(count == 4)
        #expect(failures.map(\.name) == ["checks.sql line 1", "checks.sql line 1"])
        #expect(failures[0].reason.hasPrefix("cannot be prepared: "))
        #expect(failures[1].reason == "the first column is not 1 in 1 of 1 row")
    }

    @Test func linesAreCountedInCRLFFiles() throws {
        let text = "SELECT 1;\r\n\r\n-- name: crlf zero\r\nSELECT 0;\r\n\r\nSELECT 0;\r\nSELECT * FROM nope;\r\n"
        let (count, failures) = try run(text)
        #expect(count == 4)
        #expect(failures.map(\.name) == ["crlf zero", "checks.sql line 6", "checks.sql line 7"])
    }

    @Test func statementsThatReturnNothingPassWhenTheyRun() throws {
        let (count, failures) = try run("""
            UPDATE item SET price = price * 2;
            DELETE FROM item WHERE id = 1;
            CREATE TABLE scratch(x);
            INSERT INTO scratch VALUES (1);
            CREATE INDEX scratch_x ON scratch(x);
            """)
        #expect(count == 5)
        #expect(failures.isEmpty)
    }

    @Test func everythingIsRolledBack() throws {
        let connection = try database()
        let (_, failures) = try run("""
            CREATE TABLE scratch(x);
            CREATE TEMP TABLE assertion(ok INTEGER NOT NULL CHECK (ok = 1));
            INSERT INTO assertion SELECT 1;
            DELETE FROM item;
            UPDATE item SET price = 0;
            SELECT * FROM no_such_table;
            """, on: connection)
        #expect(failures.count == 1)
        #expect(connection.isAutocommit)
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema WHERE name = 'scratch'") == 0)
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_temp_schema") == 0)
        #expect(try connection.rows(sql: "SELECT id, price FROM item ORDER BY id") == [[.integer(1), .real(1.5)], [.integer(2), .real(2.5)]])
    }

    @Test func aFileCanRunTwiceOnTheSameConnection() throws {
        let connection = try database()
        let runner = try AssertionRunner(path: write("""
            CREATE TEMP TABLE assertion(ok INTEGER NOT NULL CHECK (ok = 1));
            INSERT INTO assertion SELECT count(*) = 2 FROM item;
            """))
        for _ in 0..<2 {
            let (count, failures) = try runner.run(on: connection)
            #expect(count == 2)
            #expect(failures.isEmpty, "the TEMP table of the first run was rolled back")
        }
    }

    @Test func emptyAndCommentOnlyFilesRunNothing() throws {
        for text in ["", "\n\n", "-- only a comment\n", "/* block */", ";;"] {
            let (count, failures) = try run(text)
            #expect(count == 0, "\(text.debugDescription)")
            #expect(failures.isEmpty)
        }
    }

    @Test func aLastStatementWithoutSemicolonRuns() throws {
        let (count, failures) = try run("SELECT 1;\n-- name: last\nSELECT 0 -- trailing comment")
        #expect(count == 2)
        #expect(failures.map(\.name) == ["last"])
    }

    // MARK: - Reading the file

    @Test func missingFileIsNotFound() throws {
        let path = directory.file("none.sql")
        let error = try #require(throws: StewardError.self) { try AssertionRunner(path: path) }
        #expect(error == StewardError(.notFound, "\(path): no such assertion file"))
    }

    @Test func aDirectoryIsNotFound() throws {
        let error = try #require(throws: StewardError.self) { try AssertionRunner(path: directory.path) }
        #expect(error.kind == .notFound)
    }

    @Test func nonUTF8IsBadInput() throws {
        let path = try write(Data([0x53, 0x45, 0x4C, 0x45, 0x43, 0x54, 0x20, 0xFF, 0xFE, 0x3B]), to: "latin.sql")
        let error = try #require(throws: StewardError.self) { try AssertionRunner(path: path) }
        #expect(error == StewardError(.badInput, "malformed assertion file \(path): not UTF-8 text"))
    }

    @Test(arguments: [
        "SELECT 'unterminated;",
        "SELECT 1; /* open comment",
        "SELECT \"open identifier;",
        "CREATE TRIGGER t AFTER INSERT ON item BEGIN DELETE FROM item;",
    ])
    func anIncompleteLastStatementIsBadInput(_ text: String) throws {
        let path = try write(text)
        let error = try #require(throws: StewardError.self) { try AssertionRunner(path: path) }
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("malformed assertion file \(path): the last statement is not complete"))
    }
}

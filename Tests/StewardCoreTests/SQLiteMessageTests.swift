import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import Testing

/// Privacy of SQLite's messages (`SQLiteMessage`): each kind of message SQLite 3.40 formats
/// with a value given to a running statement, produced for real with a planted value, is
/// never shown; each kind that names only what the schema or the statement's own SQL
/// holds is shown as SQLite wrote it.
@Suite struct SQLiteMessageTests {
    static let secret = "PLANTED-\(UUID().uuidString)"

    /// The error `sql` ends with on `connection`.
    static func failure(_ sql: String, on connection: Connection, bindings: [SQLiteValue] = []) throws -> SQLiteError {
        let failure = #expect(throws: SQLiteError.self) {
            _ = try connection.rows(sql: sql, bindings: bindings)
        }
        return try #require(failure, "\(sql) did not fail")
    }

    /// The error is hidden: its message held the secret (so the test means something) and
    /// nothing shown of it does.
    static func expectHidden(_ error: SQLiteError, holding value: String = secret, _ comment: Comment? = nil) {
        #expect(error.message.contains(value), "the planted value is in SQLite's message: \(error.message)")
        #expect(!SQLiteMessage.canShow(error), comment)
        for shown in [error.shownMessage, error.messageAndCode, SQLiteMessage.text(of: error)] {
            #expect(!shown.contains(value), "\(shown)")
            #expect(shown.contains("SQLite error \(error.extendedCode)"), "the code is still given: \(shown)")
            #expect(shown.contains("SQLite's own message is not shown"))
        }
    }

    static func expectShown(_ error: SQLiteError, _ message: String) {
        #expect(error.message == message)
        #expect(SQLiteMessage.canShow(error), "\(error.message)")
        #expect(error.shownMessage == message)
        #expect(error.messageAndCode == "\(message) (SQLite error \(error.extendedCode))")
    }

    // MARK: - kinds that carry values

    @Test func aJSONPathErrorQuotesTheRowsPath() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE doc(body TEXT, path TEXT)")
        try connection.execute(sql: "INSERT INTO doc VALUES ('{}', ?)", bindings: [.text(Self.secret)])
        let error = try Self.failure("SELECT json_extract(body, path) FROM doc", on: connection)
        #expect(error.message.hasPrefix("JSON path error near "))
        Self.expectHidden(error)
        // json_set and the -> operators read paths the same way.
        Self.expectHidden(try Self.failure("SELECT json_set(body, path, 1) FROM doc", on: connection))
    }

    /// FTS5 parses a MATCH query while the statement runs: a syntax error, a special query
    /// and a column filter all quote the query, which is search text or a row's value.
    @Test(arguments: ["*\(secret)", "\(secret.replacingOccurrences(of: "-", with: "_")): word"])
    func anFTS5QueryIsQuoted(query: String) throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE VIRTUAL TABLE note USING fts5(body); INSERT INTO note VALUES ('hello')")
        let error = try Self.failure("SELECT rowid FROM note WHERE note MATCH ?", on: connection, bindings: [.text(query)])
        let planted = query.hasPrefix("*") ? Self.secret : Self.secret.replacingOccurrences(of: "-", with: "_")
        Self.expectHidden(error, holding: planted)
    }

    /// `no such column: X` of a column filter looks like the compiler's message; it is
    /// shown only from compiling, never while a statement runs.
    @Test func noSuchColumnIsShownFromCompilingOnly() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE ticket(id INTEGER PRIMARY KEY)")
        let compiling = try Self.failure("SELECT title FROM ticket", on: connection)
        #expect(compiling.duringPreparation)
        Self.expectShown(compiling, "no such column: title")
        let running = SQLiteError(extendedCode: .error, message: "no such column: \(Self.secret)")
        Self.expectHidden(running)
    }

    @Test func anFTS4QueryIsQuoted() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE VIRTUAL TABLE note USING fts4(body); INSERT INTO note VALUES ('hello')")
        let error = try Self.failure("SELECT rowid FROM note WHERE note MATCH ?", on: connection, bindings: [.text("\"\(Self.secret)")])
        #expect(error.message.hasPrefix("malformed MATCH expression: "))
        Self.expectHidden(error)
        let matchinfo = try Self.failure("SELECT matchinfo(note, ?) FROM note WHERE note MATCH 'hello'", on: connection,
                                         bindings: [.text("Z")])
        #expect(matchinfo.message.hasPrefix("unrecognized matchinfo"))
        Self.expectHidden(matchinfo, holding: "Z")
    }

    /// RAISE()'s text is whatever the trigger's author wrote (an expression in newer SQLite).
    @Test func aRaiseTextIsNotShown() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE t(x);
            CREATE TRIGGER t_check BEFORE INSERT ON t BEGIN SELECT RAISE(ABORT, '\(Self.secret)'); END;
            """)
        let error = try Self.failure("INSERT INTO t VALUES (1)", on: connection)
        #expect(error.extendedCode == .constraintTrigger)
        Self.expectHidden(error)
    }

    /// What no rule knows (an extension's function, a message of a later SQLite) is hidden.
    @Test(arguments: [
        (ResultCode.error, "vec0: dimension mismatch for '\(secret)'"),
        (.constraintFunction, "\(secret)"),
        (.constraintVirtualTable, "UNIQUE constraint failed: \(secret)"),
        (.error, "parse error in rank function: \(secret)"),
        (.error, "expected integer, got \"\(secret)\""),
        (.error, "bad JSON path: '\(secret)'"),
        (.error, "fts5: syntax error near \"\(secret)\""),
        (.error, "unknown special query: \(secret)"),
        (.error, "error in view v: JSON path error near '\(secret)'"),
        (.error, "near \"\(secret)\": syntax error"),
    ])
    func otherShapesAreHidden(code: ResultCode, message: String) {
        Self.expectHidden(SQLiteError(extendedCode: code, message: message))
    }

    /// A value shape is hidden even where SQLite was compiling.
    @Test func aValueShapeIsHiddenWhileCompilingToo() {
        Self.expectHidden(SQLiteError(extendedCode: .error, message: "JSON path error near '\(Self.secret)'", duringPreparation: true))
    }

    // MARK: - kinds that carry names

    /// The issue's migrate case: a view reading a table that was dropped is compiled again
    /// by ALTER TABLE, while the statement runs.
    @Test func aViewThatNoLongerCompilesIsNamed() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, state TEXT);
            CREATE VIEW open_ticket AS SELECT * FROM ticket WHERE state = 'open';
            CREATE TABLE other(x);
            DROP TABLE ticket;
            """)
        let error = try Self.failure("ALTER TABLE other RENAME TO other2", on: connection)
        #expect(!error.duringPreparation)
        Self.expectShown(error, "error in view open_ticket: no such table: main.ticket")
    }

    @Test func aForeignKeyMismatchIsNamed() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE tokens(id INTEGER PRIMARY KEY, code TEXT);
            CREATE TABLE strategy_tokens(id INTEGER PRIMARY KEY, code TEXT REFERENCES tokens(code));
            """)
        let error = try Self.failure("PRAGMA foreign_key_check", on: connection)
        Self.expectShown(error, #"foreign key mismatch - "strategy_tokens" referencing "tokens""#)
        // The same words while a statement runs name the same tables.
        #expect(SQLiteMessage.canShow(SQLiteError(extendedCode: .error, message: error.message)))
    }

    /// A constraint names its columns, its name or its CHECK expression: never the row.
    @Test func constraintsNameTheirColumnsNotTheRow() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE t(v TEXT CHECK (length(v) < 100), n TEXT NOT NULL, u TEXT UNIQUE);
            CREATE TABLE s(x INTEGER) STRICT;
            INSERT INTO t VALUES ('a', 'b', 'c');
            """)
        let secret: SQLiteValue = .text(Self.secret)
        let cases: [(String, [SQLiteValue], String)] = [
            ("INSERT INTO t VALUES (?, 'n', 'u2')", [.text(String(repeating: Self.secret, count: 4))], "CHECK constraint failed: length(v) < 100"),
            ("INSERT INTO t VALUES ('a', NULL, ?)", [secret], "NOT NULL constraint failed: t.n"),
            ("INSERT INTO t VALUES ('a', ?, 'c')", [secret], "UNIQUE constraint failed: t.u"),
            ("INSERT INTO s VALUES (?)", [secret], "cannot store TEXT value in INTEGER column s.x"),
        ]
        for (sql, bindings, message) in cases {
            let error = try Self.failure(sql, on: connection, bindings: bindings)
            Self.expectShown(error, message)
            #expect(!error.messageAndCode.contains(Self.secret))
        }
    }

    /// Compiling quotes the statement's own SQL (a migration's, an assertion's).
    @Test func aSyntaxErrorOfTheStatementsOwnSQLIsShown() throws {
        let connection = try Connection.inMemory()
        let error = try Self.failure("SELEC 1", on: connection)
        Self.expectShown(error, #"near "SELEC": syntax error"#)
        let missing = try Self.failure("SELECT * FROM nowhere", on: connection)
        Self.expectShown(missing, "no such table: nowhere")
    }

    @Test(arguments: [
        (ResultCode.error, "no such table: main.ticket"),
        (.error, "no such module: fts6"),
        (.error, "unsafe use of json_extract()"),
        (.error, "table ticket has 2 columns but 3 values were supplied"),
        (.error, "error in trigger ticket_ai after rename: no such column: old.title"),
        (.error, "malformed JSON"),
        (.mismatch, "datatype mismatch"),
        (.corrupt, "database disk image is malformed"),
        (.constraintForeignKey, "FOREIGN KEY constraint failed"),
        (.error, "invalid fts5 file format (found 5, expected 4) - run 'rebuild'"),
    ])
    func namedShapesAreShownWhileAStatementRuns(code: ResultCode, message: String) {
        Self.expectShown(SQLiteError(extendedCode: code, message: message), message)
    }

    @Test func anotherErrorIsDescribedAsItIs() {
        #expect(SQLiteMessage.text(of: StewardError(.badInput, "words")) == "words")
    }
}

import Testing
import SQLiteKit

@Suite struct SQLiteErrorTests {
    // MARK: - Errors from SQLite carry the extended code and the SQL

    @Test func notNullViolationCarriesExtendedCodeAndSQL() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE ticket(title TEXT NOT NULL)")
        let sql = "INSERT INTO ticket(title) VALUES (NULL)"
        let error = try #require(throws: SQLiteError.self) { try connection.execute(sql: sql) }
        #expect(error.extendedCode == ResultCode.constraintNotNull)
        #expect(error.code == ResultCode.constraint)
        #expect(error.sql == sql)
        #expect(error.description == "SQLite error 1299: \(error.message) - while executing '\(sql)'")
    }

    static let constraintCases: [(schema: String, sql: String, code: Int32)] = [
        ("CREATE TABLE t(x NOT NULL)", "INSERT INTO t VALUES (NULL)", ResultCode.constraintNotNull),
        ("CREATE TABLE t(x UNIQUE); INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1)", ResultCode.constraintUnique),
        ("CREATE TABLE t(x TEXT PRIMARY KEY); INSERT INTO t VALUES ('a')", "INSERT INTO t VALUES ('a')",
         ResultCode.constraintPrimaryKey),
        ("CREATE TABLE t(x CHECK (x > 0))", "INSERT INTO t VALUES (-1)", ResultCode.constraintCheck),
    ]

    @Test(arguments: constraintCases)
    func constraintViolationsHaveTheirExtendedCode(_ example: (schema: String, sql: String, code: Int32)) throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: example.schema)
        let error = try #require(throws: SQLiteError.self) { try connection.execute(sql: example.sql) }
        #expect(error.extendedCode == example.code)
        #expect(error.code == ResultCode.constraint)
        #expect(error.sql == example.sql)
    }

    @Test func boundValuesNeverAppearInTheError() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x TEXT UNIQUE)")
        let secret = "customer-secret-4f1b"
        try connection.execute(sql: "INSERT INTO t VALUES (?)", bindings: [.text(secret)])
        let error = try #require(throws: SQLiteError.self) {
            try connection.execute(sql: "INSERT INTO t VALUES (?)", bindings: [.text(secret)])
        }
        #expect(error.extendedCode == ResultCode.constraintUnique)
        #expect(!error.description.contains(secret))
        #expect(!error.message.contains(secret))
    }

    @Test(arguments: ["SELECT * FROM no_such_table", "SELEC 1", "SELECT no_such_column FROM sqlite_schema"])
    func plainErrorsHaveCodeOne(_ sql: String) throws {
        let connection = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) { try connection.prepare(sql: sql) }
        #expect(error.extendedCode == ResultCode.error)
        #expect(error.code == ResultCode.error)
        #expect(!error.message.isEmpty)
        #expect(error.sql == sql)
    }

    // MARK: - Description

    @Test func descriptionHasCodeMessageAndTrimmedSQL() {
        let error = SQLiteError(
            extendedCode: 1299, message: "NOT NULL constraint failed: ticket.title",
            sql: "\n  INSERT INTO ticket(title) VALUES (?)  \n")
        #expect(error.description
            == "SQLite error 1299: NOT NULL constraint failed: ticket.title - while executing 'INSERT INTO ticket(title) VALUES (?)'")
        #expect(error.errorDescription == error.description)
        #expect(error.localizedDescription == error.description)
    }

    @Test func descriptionWithoutSQLHasNoWhileExecuting() {
        let error = SQLiteError(extendedCode: 5, message: "database is locked")
        #expect(error.description == "SQLite error 5: database is locked")
    }

    @Test func missingMessageFallsBackToTheTextOfTheCode() {
        let error = SQLiteError(extendedCode: ResultCode.busy)
        #expect(!error.message.isEmpty)
        #expect(error.message == SQLiteError(extendedCode: ResultCode.busy).message)
        #expect(error.message != SQLiteError(extendedCode: ResultCode.constraint).message)
        #expect(error.sql == nil)
    }

    // MARK: - Classification

    struct Classification: Sendable, CustomTestStringConvertible {
        let extendedCode: Int32
        let code: Int32
        let busy: Bool
        let interrupt: Bool
        let notADatabase: Bool
        let corrupt: Bool
        let inputOutput: Bool
        var testDescription: String { "code \(extendedCode)" }
    }

    static let classifications: [Classification] = [
        .init(extendedCode: 1, code: 1, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: 5, code: 5, busy: true, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        // SQLITE_BUSY_SNAPSHOT
        .init(extendedCode: 517, code: 5, busy: true, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: 6, code: 6, busy: true, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        // SQLITE_LOCKED_SHAREDCACHE
        .init(extendedCode: 262, code: 6, busy: true, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: 9, code: 9, busy: false, interrupt: true, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: 26, code: 26, busy: false, interrupt: false, notADatabase: true, corrupt: false, inputOutput: false),
        .init(extendedCode: 11, code: 11, busy: false, interrupt: false, notADatabase: false, corrupt: true, inputOutput: false),
        // SQLITE_CORRUPT_VTAB: what FTS5's integrity-check reports on drift.
        .init(extendedCode: 267, code: 11, busy: false, interrupt: false, notADatabase: false, corrupt: true, inputOutput: false),
        .init(extendedCode: 13, code: 13, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: true),
        .init(extendedCode: 10, code: 10, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: true),
        // SQLITE_IOERR_READ
        .init(extendedCode: 266, code: 10, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: true),
        .init(extendedCode: 1299, code: 19, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
    ]

    @Test(arguments: classifications)
    func classifiesByPrimaryCode(_ expected: Classification) {
        let error = SQLiteError(extendedCode: expected.extendedCode, message: "m")
        #expect(error.code == expected.code)
        #expect(error.isBusy == expected.busy)
        #expect(error.isInterrupt == expected.interrupt)
        #expect(error.isNotADatabase == expected.notADatabase)
        #expect(error.isCorrupt == expected.corrupt)
        #expect(error.isInputOutput == expected.inputOutput)
    }

    @Test func equalityComparesCodeMessageAndSQL() {
        let error = SQLiteError(extendedCode: 1, message: "m", sql: "SELECT 1")
        #expect(error == SQLiteError(extendedCode: 1, message: "m", sql: "SELECT 1"))
        #expect(error != SQLiteError(extendedCode: 1, message: "m", sql: nil))
        #expect(error != SQLiteError(extendedCode: 2, message: "m", sql: "SELECT 1"))
        #expect(error != SQLiteError(extendedCode: 1, message: "n", sql: "SELECT 1"))
    }
}

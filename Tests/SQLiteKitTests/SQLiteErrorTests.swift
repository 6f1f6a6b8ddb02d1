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

    static let constraintCases: [(schema: String, sql: String, code: ResultCode)] = [
        ("CREATE TABLE t(x NOT NULL)", "INSERT INTO t VALUES (NULL)", ResultCode.constraintNotNull),
        ("CREATE TABLE t(x UNIQUE); INSERT INTO t VALUES (1)", "INSERT INTO t VALUES (1)", ResultCode.constraintUnique),
        ("CREATE TABLE t(x TEXT PRIMARY KEY); INSERT INTO t VALUES ('a')", "INSERT INTO t VALUES ('a')",
         ResultCode.constraintPrimaryKey),
        ("CREATE TABLE t(x CHECK (x > 0))", "INSERT INTO t VALUES (-1)", ResultCode.constraintCheck),
    ]

    @Test(arguments: constraintCases)
    func constraintViolationsHaveTheirExtendedCode(_ example: (schema: String, sql: String, code: ResultCode)) throws {
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
            extendedCode: .constraintNotNull, message: "NOT NULL constraint failed: ticket.title",
            sql: "\n  INSERT INTO ticket(title) VALUES (?)  \n")
        #expect(error.description
            == "SQLite error 1299: NOT NULL constraint failed: ticket.title - while executing 'INSERT INTO ticket(title) VALUES (?)'")
        #expect(error.errorDescription == error.description)
        #expect(error.localizedDescription == error.description)
    }

    @Test func descriptionWithoutSQLHasNoWhileExecuting() {
        let error = SQLiteError(extendedCode: .busy, message: "database is locked")
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
        let extendedCode: ResultCode
        let code: ResultCode
        let busy: Bool
        let interrupt: Bool
        let notADatabase: Bool
        let corrupt: Bool
        let inputOutput: Bool
        var testDescription: String { "code \(extendedCode)" }
    }

    static let classifications: [Classification] = [
        .init(extendedCode: .error, code: .error, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: .busy, code: .busy, busy: true, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: .busySnapshot, code: .busy, busy: true, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: .locked, code: .locked, busy: true, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: .lockedSharedCache, code: .locked, busy: true, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: .interrupt, code: .interrupt, busy: false, interrupt: true, notADatabase: false, corrupt: false, inputOutput: false),
        .init(extendedCode: .notADatabase, code: .notADatabase, busy: false, interrupt: false, notADatabase: true, corrupt: false, inputOutput: false),
        .init(extendedCode: .corrupt, code: .corrupt, busy: false, interrupt: false, notADatabase: false, corrupt: true, inputOutput: false),
        // SQLITE_CORRUPT_VTAB: what FTS5's integrity-check reports on drift.
        .init(extendedCode: .corruptVirtualTable, code: .corrupt, busy: false, interrupt: false, notADatabase: false, corrupt: true, inputOutput: false),
        .init(extendedCode: .full, code: .full, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: true),
        .init(extendedCode: .ioError, code: .ioError, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: true),
        .init(extendedCode: .ioErrorRead, code: .ioError, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: true),
        .init(extendedCode: .constraintNotNull, code: .constraint, busy: false, interrupt: false, notADatabase: false, corrupt: false, inputOutput: false),
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

    // MARK: - Matching result codes

    @Test func aPrimaryPatternMatchesItsExtendedCodes() {
        #expect(ResultCode.constraint ~= ResultCode.constraintNotNull)
        #expect(ResultCode.constraint ~= ResultCode.constraint)
        #expect(!(ResultCode.constraint ~= ResultCode.busy))
        #expect(ResultCode.constraintNotNull ~= ResultCode.constraintNotNull)
        #expect(!(ResultCode.constraintNotNull ~= ResultCode.constraint))
        #expect(!(ResultCode.constraintNotNull ~= ResultCode.constraintUnique))
    }

    @Test func switchAndCatchMatchByName() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x NOT NULL)")
        do {
            try connection.execute(sql: "INSERT INTO t VALUES (NULL)")
            Issue.record("the insert should have failed")
        } catch ResultCode.busy {
            Issue.record("a constraint violation caught as busy")
        } catch ResultCode.constraint {
            // expected: the primary code catches the NOT NULL violation
        }
        let error = SQLiteError(extendedCode: .readOnlyRollback)
        switch error.extendedCode {
        case .readOnlyRollback: break
        case .readOnly: Issue.record("the extended case comes first")
        default: Issue.record("no case matched")
        }
        #expect(error.code == .readOnly)
        #expect(ResultCode.readOnlyRollback.rawValue == 776)
        #expect(error.description.hasPrefix("SQLite error 776: "))
    }
}

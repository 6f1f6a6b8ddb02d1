import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct SQLiteErrorMappingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let role: SQLiteErrorMapping.Role
        let code: ResultCode
        var lockTimeout: Double?
        var context: String?
        /// SQLite's message: by default one whose shape is shown (`SQLiteMessage`), so
        /// that the role's own words are what is compared.
        var sqliteMessage = SQLiteErrorMappingTests.named
        let kind: StewardError.Kind
        let message: String

        var testDescription: String { "\(role) \(code)\(lockTimeout.map { " timeout \($0)" } ?? "") -> \(kind)" }
    }

    static let path = "/data/app.sqlite"
    static let place = "0002_add_title.sql:3"
    static let copy = "/out/bundles/.steward-backup-1.sqlite"
    static let named = "no such table: m"
    static let hidden = "(SQLite error \(ResultCode.corrupt); SQLite's own message is not shown, as it can quote row data)"

    static let cases: [Case] = [
        // A database the user named, read.
        .init(role: .database, code: .busy, kind: .busy, message: "the database is locked: \(path) (\(named))"),
        .init(role: .database, code: .busy, lockTimeout: 5, kind: .busy,
              message: "\(path) is locked by another connection; gave up after 5 s (\(named))"),
        .init(role: .database, code: .corrupt, kind: .badInput, message: "the database is damaged: \(path) (\(named))"),
        .init(role: .database, code: .notADatabase, kind: .badInput, message: "not a SQLite database: \(path) (\(named))"),
        .init(role: .database, code: .readOnly, kind: .badInput, message: "cannot read the database \(path): \(named)"),
        .init(role: .database, code: .cantOpen, kind: .badInput, message: "cannot read the database \(path): \(named)"),
        .init(role: .database, code: .ioErrorRead, kind: .inputOutput, message: "cannot read \(path): \(named)"),
        .init(role: .database, code: .noMemory, kind: .inputOutput,
              message: "out of memory while reading \(path); nothing changed"),
        .init(role: .database, code: .readOnlyRollback, kind: .badInput,
              message: "\(path) has a hot journal from an interrupted write (\(path)-journal): it must be rolled back "
                  + "through a read-write connection first, which Steward does not open here; "
                  + "for example: sqlite3 \(path) 'PRAGMA quick_check'"),
        // backup's source.
        .init(role: .sourceDatabase, code: .busy, lockTimeout: 0.5, kind: .busy,
              message: "\(path) is locked by another connection; gave up after 0.5 s (\(named))"),
        .init(role: .sourceDatabase, code: .corruptIndex, kind: .badInput, message: "the database is damaged: \(path) (\(named))"),
        .init(role: .sourceDatabase, code: .notADatabase, kind: .badInput, message: "not a SQLite database: \(path) (\(named))"),
        .init(role: .sourceDatabase, code: .cantOpen, kind: .notFound, message: "cannot open \(path): \(named)"),
        .init(role: .sourceDatabase, code: .readOnly, kind: .notFound,
              message: "cannot read \(path): \(named); a database in WAL mode needs its -wal and -shm files, or a directory where SQLite can create them"),
        // The database migrate changes.
        .init(role: .migratedDatabase, code: .locked, lockTimeout: 30, context: "0003_x.sql", kind: .busy,
              message: "0003_x.sql: \(path) is locked by another connection; gave up after 30 s (\(named))"),
        .init(role: .migratedDatabase, code: .corrupt, sqliteMessage: "m", kind: .badInput,
              message: "\(path): database disk image is malformed \(hidden)"),
        .init(role: .migratedDatabase, code: .readOnly, kind: .cannotCreate, message: "cannot write to \(path): \(named)"),
        .init(role: .migratedDatabase, code: .full, kind: .inputOutput, message: "\(path): \(named)"),
        .init(role: .migratedDatabase, code: .noMemory, context: "quick_check", kind: .inputOutput,
              message: "quick_check: out of memory while migrating \(path); nothing changed"),
        .init(role: .migratedDatabase, code: .constraintForeignKey, kind: .badInput,
              message: "\(path): \(named) (SQLite error \(ResultCode.constraintForeignKey))"),
        // One statement of a migration: a running statement's message can quote rows.
        .init(role: .migrationStatement(preparing: false), code: .busy, kind: .busy,
              message: "\(place): the database is locked (\(named))"),
        .init(role: .migrationStatement(preparing: false), code: .corrupt, sqliteMessage: "m", kind: .badInput,
              message: "\(place): the statement failed: database disk image is malformed \(hidden)"),
        .init(role: .migrationStatement(preparing: false), code: .constraintNotNull, kind: .badInput,
              message: "\(place): the statement failed: \(named) (SQLite error \(ResultCode.constraintNotNull))"),
        .init(role: .migrationStatement(preparing: true), code: .error, kind: .badInput,
              message: "\(place): \(named) (SQLite error \(ResultCode.error))"),
        .init(role: .migrationStatement(preparing: false), code: .noMemory, kind: .inputOutput,
              message: "\(place): out of memory; nothing changed"),
        // backup's private copy: its directory is named.
        .init(role: .copy, code: .full, kind: .inputOutput, message: "no space left in /out/bundles for the copy (\(named))"),
        .init(role: .copy, code: .readOnly, kind: .cannotCreate, message: "cannot write the copy in /out/bundles: \(named)"),
        .init(role: .copy, code: .cantOpen, kind: .cannotCreate, message: "cannot write the copy in /out/bundles: \(named)"),
        .init(role: .copy, code: .busy, lockTimeout: 5, kind: .inputOutput,
              message: "cannot write the copy in /out/bundles: \(named) (SQLite error \(ResultCode.busy))"),
        .init(role: .copy, code: .corrupt, kind: .inputOutput,
              message: "cannot write the copy in /out/bundles: \(named) (SQLite error \(ResultCode.corrupt))"),
        // Checks on a copy before it is published.
        .init(role: .checkedCopy(refusal: "the copy cannot be checked"), code: .corrupt, kind: .checkFailed,
              message: "refusing to publish: the copy cannot be checked: \(named)"),
        .init(role: .checkedCopy(refusal: "the copy cannot be checked"), code: .notADatabase, kind: .checkFailed,
              message: "refusing to publish: the copy cannot be checked: \(named)"),
        // restore's staged database: a failed statement fails its check.
        .init(role: .restoredDatabase, code: .notADatabase, kind: .badInput,
              message: "the payload is not a SQLite database (\(named))"),
        .init(role: .restoredDatabase, code: .corruptVirtualTable, kind: .checkFailed, message: "\(named) (SQLite error \(ResultCode.corruptVirtualTable))"),
        .init(role: .restoredDatabase, code: .busy, kind: .checkFailed, message: "\(named) (SQLite error \(ResultCode.busy))"),
        .init(role: .restoredDatabase, code: .readOnly, kind: .checkFailed, message: "\(named) (SQLite error \(ResultCode.readOnly))"),
        // The database restore --replace takes the place of: SQLite's message and code,
        // never the SQL it ran.
        .init(role: .replacedDatabase(timeout: 3), code: .busy, lockTimeout: nil, kind: .busy,
              message: "\(path) is in use by another connection: still locked after 3 s; nothing was replaced"),
        .init(role: .replacedDatabase(timeout: 3), code: .notADatabase, context: "cannot lock \(path) to replace it",
              kind: .badInput, message: "cannot lock \(path) to replace it: \(named) (SQLite error \(ResultCode.notADatabase))"),
        .init(role: .replacedDatabase(timeout: 3), code: .cantOpen, context: "cannot open \(path) to replace it",
              kind: .badInput, message: "cannot open \(path) to replace it: \(named) (SQLite error \(ResultCode.cantOpen))"),
        .init(role: .replacedDatabase(timeout: 3), code: .ioErrorRead, context: "cannot lock \(path) to replace it",
              kind: .inputOutput, message: "cannot lock \(path) to replace it: \(named) (SQLite error \(ResultCode.ioErrorRead))"),
    ]

    static func path(for role: SQLiteErrorMapping.Role) -> String {
        switch role {
        case .migrationStatement: place
        case .copy: copy
        default: path
        }
    }

    @Test(arguments: cases)
    func mapsEachCodeForEachRole(_ item: Case) {
        let mapping = SQLiteErrorMapping(
            path: Self.path(for: item.role), role: item.role, cancellation: Cancellation(),
            lockTimeout: item.lockTimeout, context: item.context)
        let error = mapping.error(for: SQLiteError(extendedCode: item.code, message: item.sqliteMessage))
        #expect(error.kind == item.kind)
        #expect(error.message == item.message)
    }

    static let roles: [SQLiteErrorMapping.Role] = [
        .database, .sourceDatabase, .migratedDatabase, .migrationStatement(preparing: false),
        .migrationStatement(preparing: true), .copy, .checkedCopy(refusal: "the copy cannot be checked"), .restoredDatabase,
        .replacedDatabase(timeout: 3),
    ]

    /// An interrupt is the signal's, whatever the role; so is any failure once a signal
    /// arrived (the statement may have been stopped half way and answered otherwise).
    @Test(arguments: roles, [ResultCode.interrupt, .corrupt, .busy, .ioErrorWrite])
    func aSignalWinsInEveryRole(_ role: SQLiteErrorMapping.Role, _ code: ResultCode) {
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")
        let mapping = SQLiteErrorMapping(
            path: Self.path(for: role), role: role, cancellation: cancellation, interruptedDetail: "; nothing changed",
            lockTimeout: 5)
        let error = mapping.error(for: SQLiteError(extendedCode: code, message: "m"))
        #expect(error.kind == .interrupted)
        if case .migrationStatement = role {
            #expect(error.message == "interrupted by SIGINT while running \(Self.place)")
        } else {
            #expect(error.message == "interrupted by SIGINT; nothing changed")
        }
    }

    @Test(arguments: roles)
    func anInterruptWithoutASignalIsStillAnInterrupt(_ role: SQLiteErrorMapping.Role) {
        let mapping = SQLiteErrorMapping(path: Self.path(for: role), role: role)
        let error = mapping.error(for: SQLiteError(extendedCode: .interrupt))
        #expect(error.kind == .interrupted)
    }

    @Test func aCheckSummaryIsReturnedAndWhatEndsTheRunIsThrown() throws {
        let mapping = SQLiteErrorMapping(path: "", role: .restoredDatabase, cancellation: Cancellation())
        #expect(try mapping.checkSummary(for: SQLiteError(extendedCode: .corrupt, message: Self.named))
                == "\(Self.named) (SQLite error \(ResultCode.corrupt))")
        #expect(throws: StewardError(.badInput, "the payload is not a SQLite database (\(Self.named))")) {
            try mapping.checkSummary(for: SQLiteError(extendedCode: .notADatabase, message: Self.named))
        }
        #expect(throws: StewardError(.interrupted, "interrupted by a signal")) {
            try mapping.checkSummary(for: SQLiteError(extendedCode: .interrupt))
        }
    }

    @Test func runTurnsOnlySQLiteErrors() throws {
        let mapping = SQLiteErrorMapping(path: Self.path, role: .database)
        #expect(throws: StewardError(.badInput, "the database is damaged: \(Self.path) (database disk image is malformed)")) {
            try mapping.run { throw SQLiteError(extendedCode: .corrupt) }
        }
        #expect(throws: StewardError(.usage, "left alone")) {
            try mapping.run { throw StewardError(.usage, "left alone") }
        }
        #expect(try mapping.run { 7 } == 7)
    }

    /// The error SQLite really returns for a file that is no database maps by its code.
    @Test func aRealNotADatabaseErrorMaps() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/junk.sqlite"
        try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
        let failure = #expect(throws: SQLiteError.self) {
            let connection = try Connection(path: path, mode: .readOnly)
            _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
        }
        let error = try #require(failure)
        let mapped = SQLiteErrorMapping(path: path, role: .database).error(for: error)
        #expect(mapped.kind == .badInput)
        #expect(mapped.message.hasPrefix("not a SQLite database: \(path) ("))
    }
}

import Foundation
@testable import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// `steward migrate` on a database that is already current (issue 14's per-database
/// floor): answered on the run's one connection in one read transaction, without the
/// read-only look, the set's check on an empty database or the write lock, and still
/// with the checks the full run makes (foreign keys, `quick_check`).
@Suite struct CurrentDatabaseRunTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(database: "tickets.db", layout: "steward")
        try write("0001_ticket.sql", """
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT);
            INSERT INTO ticket(title) VALUES ('printer jammed'), (NULL);
            """)
        try write("0002_search.sql", "CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');")
        var create = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        create.create = true
        _ = try Migrator(options: create, cancellation: Cancellation()).run()
    }

    /// The plain one-database run, as `steward migrate --db … --migrations …` makes it.
    func run(cache: MigrationSetCache = MigrationSetCache(), timeout: Double = 2) throws -> Migrator.Report {
        var options = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        options.timeout = timeout
        options.setCache = cache
        return try Migrator(options: options, cancellation: Cancellation(), progress: { _ in }).run()
    }

    @Test func aCurrentDatabaseIsAnsweredWithoutCheckingTheSetAgain() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let cache = MigrationSetCache()
        let report = try run(cache: cache)
        #expect(report.migration.outcome == .current)
        #expect(report.migration.mode == .apply)
        #expect(report.migration.fromVersion == 2 && report.migration.toVersion == 2)
        #expect(report.migration.foreignKeys?.violationsBefore == 0)
        #expect(report.schema == nil)
        #expect(cache.setReads == 1)
        // The full run checked the whole set on an empty database first, for nothing.
        #expect(cache.setChecks == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    }

    @Test func aCurrentDatabaseIsAnsweredWhileAnotherConnectionWrites() throws {
        let writer = try Connection(path: database)
        try writer.execute(sql: "BEGIN IMMEDIATE; INSERT INTO ticket(title) VALUES ('not yet committed')")
        defer { writer.rollbackIfNeeded() }
        // The full run waited for the write lock and gave up (75) after the timeout.
        let report = try run(timeout: 0.2)
        #expect(report.migration.outcome == .current)
    }

    @Test func aCurrentDatabaseThatFailsQuickCheckIsStillRefused() throws {
        let connection = try Connection(path: database)
        try connection.setConfiguration(1010 /* SQLITE_DBCONFIG_DEFENSIVE */, enabled: false)
        try connection.execute(sql: """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = 'CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL)' WHERE name = 'ticket';
            PRAGMA writable_schema = OFF;
            """)
        let error = try #require(throws: StewardError.self) { try run() }
        #expect(error.kind == .checkFailed)
        #expect(error.message.contains("PRAGMA quick_check fails"))
    }

    @Test func aDatabaseWithPendingMigrationsStillGetsTheDriftCheck() throws {
        try write("0003_index.sql", "CREATE INDEX ticket_title ON ticket(title);")
        let cache = MigrationSetCache()
        let report = try run(cache: cache)
        #expect(report.migration.outcome == .migrated)
        #expect(report.schema?.status == .match)
        #expect(cache.setChecks == 1)
    }
}

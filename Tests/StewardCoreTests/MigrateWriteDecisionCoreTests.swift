import Foundation
import SQLiteKit
import Testing
@testable import StewardCore
import TestSupport

/// The drift check and the backup are decided by the run's own plan
/// (`Migrator.run(beforeMigrating:)`), and the drift check says what went wrong.
@Suite struct MigrateWriteDecisionCoreTests {
    let directory: TemporaryDirectory
    var database: String { directory.file("tickets.db") }
    var migrations: String { directory.file("migrations") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        try Data("CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT);".utf8)
            .write(to: URL(fileURLWithPath: migrations + "/0001_ticket.sql"))
        try Data("CREATE INDEX ticket_title ON ticket(title);".utf8).write(to: URL(fileURLWithPath: migrations + "/0002_index.sql"))
        var create = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        create.create = true
        create.targetVersion = 1
        _ = try Migrator(options: create).run()
    }

    /// The hook runs once, on the run's connection inside its write transaction, with the
    /// plan that the write follows; a current database never reaches it.
    @Test func theHookSeesTheRunsOwnPlanInsideItsWriteTransaction() throws {
        var calls: [(pending: [String], applied: [String], inTransaction: Bool)] = []
        let options = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        let report = try Migrator(options: options).run(beforeMigrating: { write in
            calls.append((write.plan.pending.map(\.fileName), write.plan.applied.map(\.fileName), !write.connection.isAutocommit))
        })
        #expect(report.outcome == "migrated")
        #expect(calls.count == 1)
        #expect(calls.first?.pending == ["0002_index.sql"])
        #expect(calls.first?.applied == ["0001_ticket.sql"])
        #expect(calls.first?.inTransaction == true)

        calls = []
        #expect(try Migrator(options: options).run(beforeMigrating: { _ in calls.append(([], [], false)) }).outcome == "current")
        #expect(calls.isEmpty)
    }

    /// Regression: a failure to load an extension into the drift check's scratch database
    /// was reported as "the set cannot be built from an empty database: SQLite error 1".
    @Test func anExtensionTheDriftCheckCannotLoadIsSaidSo() throws {
        let set = try DialectSet(directory: migrations, dialect: .steward)
        let bogus = directory.file("no-such-extension")
        let check = SchemaDriftCheck(extensions: [bogus])
        let connection = try Connection(path: database)
        let comparison = check.compare(on: connection, set: set, cancellation: Cancellation())
        #expect(comparison.status == "skipped")
        let reason = try #require(comparison.reason)
        #expect(reason.contains("cannot load the SQLite extension \(bogus)"), "\(reason)")
        #expect(!reason.contains("cannot be built"), "\(reason)")
    }
}

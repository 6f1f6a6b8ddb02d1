import Foundation
import SQLiteKit
import Testing
import TestSupport

/// A two-file dbmate migration set in a directory of its own, and databases as the real
/// `dbmate` leaves them: every file in its ledger, `user_version` left at 0.
struct DbmateSetFixture {
    let directory: TemporaryDirectory
    var set: String { directory.file("dbmate-set") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: set, withIntermediateDirectories: true)
        try "-- migrate:up\nCREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT);\n-- migrate:down\nDROP TABLE customer;\n"
            .write(toFile: set + "/20240105093000_create_customer.sql", atomically: true, encoding: .utf8)
        try "-- migrate:up\nALTER TABLE customer ADD COLUMN email TEXT;\n-- migrate:down\nALTER TABLE customer DROP COLUMN email;\n"
            .write(toFile: set + "/20240212141500_add_email.sql", atomically: true, encoding: .utf8)
    }

    /// A database dbmate migrated, named `name` in the directory.
    func migratedByTheRunner(_ name: String) throws -> String {
        let path = directory.file(name)
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--db", path, "--create", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        try Connection(path: path).setUserVersion(0)
        return path
    }

    /// A database Steward migrated before the set had dbmate's ledger: `user_version` 2 and
    /// no `schema_migrations`, so a run's only write is the ledger's rows (a backfill).
    func recordedByUserVersionOnly(_ name: String) throws -> String {
        let path = try migratedByTheRunner(name)
        let connection = try Connection(path: path)
        try connection.execute(sql: "DROP TABLE schema_migrations")
        try connection.setUserVersion(2)
        return path
    }
}

/// A suite whose tests each have a `DbmateSetFixture` of their own, reached by the names
/// the tests use.
protocol DbmateSetSuite {
    var fixture: DbmateSetFixture { get }
}

extension DbmateSetSuite {
    var directory: TemporaryDirectory { fixture.directory }
    var set: String { fixture.set }

    /// A database dbmate migrated: every file in its ledger, `user_version` left at 0.
    func migratedByTheRunner(_ name: String) throws -> String {
        try fixture.migratedByTheRunner(name)
    }
}

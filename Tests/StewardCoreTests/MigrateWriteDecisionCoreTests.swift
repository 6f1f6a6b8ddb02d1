import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import Synchronization
import TestSupport
import Testing

/// The drift check and the backup are decided by the run's own plan, inside its write
/// transaction (`Migrator.migrate`), and the drift check says what went wrong.
@Suite struct MigrateWriteDecisionCoreTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(database: "tickets.db", layout: "steward")
        try write("0001_ticket.sql", "CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT);")
        try write("0002_index.sql", "CREATE INDEX ticket_title ON ticket(title);")
        var create = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        create.create = true
        create.targetVersion = 1
        _ = try Migrator(options: create).run()
    }

    /// The run's connection is used by one thread only, so it is opened without SQLite's
    /// per-connection mutex (an FTS5 rebuild or check entered it for every page).
    @Test func theRunsConnectionHasNoMutexOfItsOwn() throws {
        let migrator = Migrator(options: Migrator.Options(databasePath: database, migrationsDirectory: migrations))
        #expect(try migrator.openExisting(readOnly: false).isSerialized == false)
        var create = Migrator.Options(databasePath: directory.file("new.db"), migrationsDirectory: migrations)
        create.create = true
        let (connection, created) = try Migrator(options: create).createOrOpen()
        #expect(created)
        #expect(connection.isSerialized == false, "a database the run creates too")
    }

    /// The drift check and the backup run once, with the plan that the write follows: the
    /// bundle holds the version before the run and is named by it; a current database
    /// gets neither.
    @Test func theDriftCheckAndTheBackupFollowTheRunsOwnPlan() throws {
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        var options = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        options.backupDirectory = bundles
        let result = try Migrator(options: options).run()
        #expect(result.outcome == .migrated)
        #expect(result.migration.applied.map(\.file) == ["0002_index.sql"])
        #expect(result.schema?.status == .match)
        #expect(result.schema?.newestApplied == "1")
        #expect(result.bundle?.userVersion == 1)
        #expect(result.bundle.map { ($0.path as NSString).lastPathComponent.contains("-v1-") } == true)

        let again = try Migrator(options: options).run()
        #expect(again.outcome == .current)
        #expect(again.schema == nil)
        #expect(again.bundle == nil)
        #expect(again.backupRequested)
    }

    /// Regression: `--backup-dir`'s backup runs inside the migration's write transaction.
    /// Its kernel copy's descriptor on the database, closed at the end of the snapshot,
    /// dropped every POSIX lock of this process on the file, the migration's RESERVED lock
    /// among them: another process could then write the database under the migration.
    @Test func theBackupInsideTheMigrationKeepsItsWriteLock() throws {
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        var options = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        options.backupDirectory = bundles
        let database = self.database
        let attempts = Mutex<[String]>([])
        let result = try Migrator(options: options, progress: { event in
            guard case .applying = event else { return }
            // Another process that tries to write while the migration applies.
            let script = """
                import sqlite3, sys
                c = sqlite3.connect(sys.argv[1], timeout=0, isolation_level=None)
                try:
                    c.execute("BEGIN IMMEDIATE")
                    print("wrote")
                    c.execute("ROLLBACK")
                except sqlite3.OperationalError as e:
                    print("locked" if "locked" in str(e) else str(e))
                """
            let outcome = (try? systemTool(["python3", "-c", script, database]).output) ?? "python3 did not run"
            attempts.withLock { $0.append(outcome.trimmingCharacters(in: .whitespacesAndNewlines)) }
        }).run()
        #expect(result.outcome == .migrated)
        #expect(result.bundle?.userVersion == 1)
        #expect(attempts.withLock { $0 } == ["locked"])
    }

    /// Regression: a failure to load an extension into the drift check's scratch database
    /// was reported as "the set cannot be built from an empty database: SQLite error 1".
    @Test func anExtensionTheDriftCheckCannotLoadIsSaidSo() throws {
        let set = try DialectSet(directory: migrations, dialect: .steward)
        let bogus = directory.file("no-such-extension")
        let check = SchemaDriftCheck(extensions: [bogus])
        let connection = try Connection(path: database)
        let comparison = check.compare(on: connection, set: set, cancellation: Cancellation())
        #expect(comparison.status == .skipped)
        let reason = try #require(comparison.reason)
        #expect(reason.contains("cannot load the SQLite extension \(bogus)"), "\(reason)")
        #expect(!reason.contains("cannot be built"), "\(reason)")
    }

    /// Regression: the drift check built the applied migrations on a scratch database of
    /// its own, beside the run's check of the set (a third build with `--baseline`).
    @Test func theDriftCheckUsesTheRunsBuildOfTheSet() throws {
        let cache = MigrationSetCache()
        var options = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        options.setCache = cache
        let result = try Migrator(options: options).run()
        #expect(result.outcome == .migrated)
        #expect(result.schema?.status == .match)
        #expect(cache.setChecks == 1)
        #expect(cache.driftCheck(extensions: []).setBuilds == 0)
    }

    /// The build records the schema after each migration; a data migration between two
    /// schema changes does not change it, and a set that fails keeps the steps before.
    @Test func theBuildKeepsTheSchemaAfterEachMigration() throws {
        try Data("INSERT INTO ticket(title) VALUES ('x');".utf8).write(to: URL(fileURLWithPath: migrations + "/0003_rows.sql"))
        try Data("CREATE TABLE broken(;".utf8).write(to: URL(fileURLWithPath: migrations + "/0004_broken.sql"))
        let migrator = Migrator(options: Migrator.Options(databasePath: database, migrationsDirectory: migrations))
        let source = try migrator.loadSource()
        let build = try migrator.buildSet(source)
        #expect(build.failure?.message.contains("0004_broken.sql") == true)
        #expect(build.steps.map(\.migration.fileName) == ["0001_ticket.sql", "0002_index.sql", "0003_rows.sql"])
        #expect(build.steps[1].schema == build.steps[2].schema)
        #expect(build.steps[0].schema != build.steps[1].schema)
        #expect(build.schema(after: Array(source.set.migrations.prefix(2))) == build.steps[1].schema)
        #expect(build.schema(after: []) == build.empty)
        #expect(build.schema(after: Array(source.set.migrations)) == nil)
        #expect(build.fails(building: Array(source.set.migrations)))
        // Not the set's first migrations: the caller builds them itself.
        #expect(build.schema(after: [source.set.migrations[1]]) == nil)
    }
}

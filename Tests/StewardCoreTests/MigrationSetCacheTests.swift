import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// The set cache of a fleet run: the migration files are read and checked on an empty
/// database once per run, not once per database, and a new run reads them again.
@Suite struct MigrationSetCacheTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(layout: "steward")
        try write("0001_ticket.sql", "CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL);")
        try write("0002_search.sql", "CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');")
    }

    /// `count` databases at version 1, migrated by one run sharing `cache`, as the jobs of
    /// a fleet run do (the read-only look, the drift check, then the migration).
    func migrateFleet(_ count: Int, cache: MigrationSetCache, create: Bool) throws -> [Migrator.Report] {
        try (0..<count).map { index in
            var options = Migrator.Options(databasePath: directory.file("\(index).db"), migrationsDirectory: migrations)
            options.timeout = 2
            options.setCache = cache
            if create {
                options.create = true
                options.targetVersion = 1
            }
            return try Migrator(options: options, cancellation: Cancellation()).run()
        }
    }

    @Test func theSetIsReadAndCheckedOncePerRunForManyDatabases() throws {
        _ = try migrateFleet(5, cache: MigrationSetCache(), create: true)
        let cache = MigrationSetCache()
        let results = try migrateFleet(5, cache: cache, create: false)
        #expect(results.map(\.outcome) == Array(repeating: .migrated, count: 5))
        #expect(results.allSatisfy { $0.migration.toVersion == 2 && $0.schema?.status == .match })
        // Without the cache: 2 reads per database (the look and the run) and one check.
        #expect(cache.setReads == 1)
        #expect(cache.setChecks == 1)
    }

    @Test func aFileChangedBetweenRunsIsSeenByTheNextRun() throws {
        _ = try migrateFleet(2, cache: MigrationSetCache(), create: true)
        let first = try migrateFleet(2, cache: MigrationSetCache(), create: false)
        #expect(first.map(\.migration.toVersion) == [2, 2])
        try write("0003_index.sql", "CREATE INDEX ticket_title ON ticket(title);")
        let cache = MigrationSetCache()
        let second = try migrateFleet(2, cache: cache, create: false)
        #expect(second.map(\.outcome) == [.migrated, .migrated])
        #expect(second.map(\.migration.toVersion) == [3, 3])
        #expect(second.allSatisfy { $0.migration.applied.map(\.file) == ["0003_index.sql"] })
        #expect(cache.setReads == 1)
    }

    @Test func aSetRefusedOnAnEmptyDatabaseIsRefusedForEveryDatabaseOfTheRun() throws {
        _ = try migrateFleet(1, cache: MigrationSetCache(), create: true)
        try write("0003_broken.sql", "CREATE TABLE broken(;")
        var options = Migrator.Options(databasePath: directory.file("0.db"), migrationsDirectory: migrations)
        options.setCache = MigrationSetCache()
        for _ in 0..<2 {
            #expect(throws: StewardError.self) { try Migrator(options: options, cancellation: Cancellation()).run() }
        }
        #expect(options.setCache?.setChecks == 1)
        #expect(try Connection(path: directory.file("0.db")).userVersion() == 1)
    }

    /// The backup directory's stale temporaries are removed once for the run, not by the
    /// backup of every database (each would list a directory full of bundles).
    @Test func theBackupDirectoryIsSweptOncePerRun() throws {
        _ = try migrateFleet(2, cache: MigrationSetCache(), create: true)
        let bundles = directory.file("bundles")
        let stale = (bundles as NSString).appendingPathComponent(".steward-tmp-1-aaaaaa")
        func leaveStale() throws {
            try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: true)
            try Data().write(to: URL(fileURLWithPath: (stale as NSString).appendingPathComponent(".lock")))
        }
        try leaveStale()
        #expect(Migrator.removeStaleTemporaries(in: bundles) == [".steward-tmp-1-aaaaaa"])
        // Left by a run killed after the sweep: this run's backups leave it to the next run.
        try leaveStale()
        let cache = MigrationSetCache()
        for index in 0..<2 {
            var options = Migrator.Options(databasePath: directory.file("\(index).db"), migrationsDirectory: migrations)
            options.setCache = cache
            options.backupDirectory = bundles
            options.backupDirectorySwept = true
            let result = try Migrator(options: options, cancellation: Cancellation()).run()
            #expect(result.bundle != nil)
        }
        #expect(FileManager.default.fileExists(atPath: stale))
        #expect(Migrator.removeStaleTemporaries(in: bundles) == [".steward-tmp-1-aaaaaa"])
        #expect(Migrator.removeStaleTemporaries(in: directory.file("missing")).isEmpty)
    }
}

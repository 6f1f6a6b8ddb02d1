import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Regression (review of 2026-12-01): fleet runs and `--backup-dir` looked at the database
/// read-only (`--status`) and decided from that look; a database whose only write was
/// `user_version` (the runner applied every file itself) or a ledger backfill was "current"
/// there, left unchanged and without a backup, while a plain run wrote it. Now the run's
/// own plan, in its write transaction, decides the drift check, the backup and the write.
/// (Issue 26: a `user_version` behind the runner's complete ledger is no write by itself.)
@Suite struct MigrateWriteDecisionTests: DbmateSetSuite {
    let fixture: DbmateSetFixture

    init() throws { fixture = try DbmateSetFixture() }

    static func lines(_ run: StewardRun) throws -> [String: [String: Any]] { try run.databaseLines() }

    @Test func aFleetRunWritesWhatAPlainRunWritesAndDoesNotCallItCurrent() throws {
        let paths = try ["a.db", "b.db"].map(fixture.recordedByUserVersionOnly)
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--json"] + paths.flatMap { ["--db", $0] })
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = try Self.lines(run)
        for path in paths {
            #expect(lines[path]?["outcome"] as? String == "migrated", "\(lines[path] ?? [:])")
            #expect((lines[path]?["schema"] as? [String: Any])?["status"] as? String == "match")
            #expect(try Connection(path: path, mode: .readOnly).integer(sql: "SELECT count(*) FROM schema_migrations") == 2)
        }
        // Now there is nothing to write: current, and nothing changes.
        let before = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        let again = try Self.lines(StewardProcess.run(["migrate", "--migrations", set, "--json"] + paths.flatMap { ["--db", $0] }))
        #expect(paths.allSatisfy { again[$0]?["outcome"] as? String == "current" })
        #expect(try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } == before)
    }

    /// A database the runner migrated is current (its ledger is the record, user_version
    /// only Steward's mirror): no bundle. The next run that writes backs it up, under the
    /// runner's version, and rewrites user_version.
    @Test func backupDirLeavesARunnerMigratedDatabaseAndNamesTheNextBundleByTheRunnersVersion() throws {
        let path = try migratedByTheRunner("app.db")
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--json", "--backup-dir", bundles, "--db", path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let report = try run.json()
        #expect(report["outcome"] as? String == "current", "\(report)")
        #expect(report["bundle"] == nil)
        #expect(try Connection(path: path, mode: .readOnly).userVersion() == 0)
        #expect(try directory.contents(of: "bundles").isEmpty)

        try "-- migrate:up\nCREATE INDEX customer_email ON customer(email);\n-- migrate:down\nDROP INDEX customer_email;\n"
            .write(toFile: set + "/20240301080000_index_email.sql", atomically: true, encoding: .utf8)
        let again = try StewardProcess.run(["migrate", "--migrations", set, "--json", "--backup-dir", bundles, "--db", path])
        #expect(again.status == 0, "\(again.stdout)\(again.stderr)")
        let migrated = try again.json()
        #expect(migrated["outcome"] as? String == "migrated")
        let bundle = try #require(migrated["bundle"] as? [String: Any], "\(migrated)")
        #expect(bundle["userVersion"] as? Int == 0)
        let name = try #require(try directory.contents(of: "bundles").first)
        #expect(name.contains("-v20240212141500-"), "\(name)")
        #expect((migrated["notes"] as? [String])?.contains { $0.hasPrefix("user_version is 0, behind schema_migrations") && $0.hasSuffix("this run rewrote it: it is now 3, in line with schema_migrations") } == true,
                "\(migrated["notes"] ?? "")")
        #expect(try Connection(path: path, mode: .readOnly).userVersion() == 3)
    }

    @Test func aLedgerBackfillIsAWriteToo() throws {
        // Migrated by Steward before the set had a runner's ledger: user_version only.
        let path = try fixture.recordedByUserVersionOnly("old.db")
        let connection = try Connection(path: path)
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--json", "--backup-dir", bundles, "--db", path, "--jobs", "1"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let line = try #require(try Self.lines(run)[path])
        #expect(line["outcome"] as? String == "migrated", "\(line)")
        #expect(line["bundle"] != nil)
        #expect((line["ledger"] as? [String: Any])?["backfilled"] as? [String] == [
            "20240105093000_create_customer.sql", "20240212141500_add_email.sql",
        ])
        #expect(try connection.integer(sql: "SELECT count(*) FROM schema_migrations") == 2)
    }

    /// The plain run's text does not say "nothing to do" when it wrote the records.
    @Test func aPlainRunThatOnlyRecordsSaysSo() throws {
        let path = try fixture.recordedByUserVersionOnly("plain.db")
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--db", path])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Version     20240212141500: no migration to apply; what was applied is now recorded"), "\(run.stdout)")
        #expect(!run.stdout.contains("nothing to do"))
    }

    /// A run that cannot load an extension is refused before anything, backup included;
    /// the look that failed on it was taken as "could not read", and the backup was made
    /// for a database that was then not migrated.
    @Test func anExtensionThatCannotBeLoadedLeavesNoBackupBehind() throws {
        let path = directory.file("tickets.db")
        let create = try StewardProcess.run(["migrate", "--migrations", Fixtures.exampleMigrations.path, "--db", path,
                                             "--create", "--to", "1", "--quiet"])
        #expect(create.status == 0, "\(create.stderr)")
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["migrate", "--migrations", Fixtures.exampleMigrations.path, "--backup-dir", bundles,
                                          "--load-extension", directory.file("no-such-extension"), "--db", path])
        #expect(run.status == 65, "\(run.allOutput)")
        #expect(run.stderr.contains("cannot load the SQLite extension"), "\(run.stderr)")
        #expect(try directory.contents(of: "bundles").isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}

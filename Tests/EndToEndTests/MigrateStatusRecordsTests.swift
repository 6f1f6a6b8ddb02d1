import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Regression (review of 2026-12-01): `--status` said "Pending none: the database is up to
/// date" and outcome `current` for a database whose only write in a run is its records (a
/// ledger to backfill), so a fleet `--status` called it current while a run wrote it. It
/// now asks the run's own question (`Migrator.writes`): outcome `pending`,
/// `recordsPending: true`. Issue 26: a database the runner migrated itself (its ledger
/// complete, `user_version` left at 0) is current in both, since the ledger is the record
/// and `user_version` only Steward's mirror of it, rewritten by the next run that writes.
@Suite struct MigrateStatusRecordsTests: DbmateSetSuite {
    let fixture: DbmateSetFixture

    init() throws { fixture = try DbmateSetFixture() }

    func current(_ name: String) throws -> String {
        let path = try migratedByTheRunner(name)
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--db", path, "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        return path
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: path)) }

    @Test func aDatabaseTheRunnerMigratedIsCurrentInStatusAndInARun() throws {
        let path = try migratedByTheRunner("app.db")
        let before = try bytes(path)
        let text = try StewardProcess.run(["migrate", "--status", "--migrations", set, "--db", path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Version     20240212141500 (2 of 2 migrations applied; newest migration: 20240212141500)"), "\(text.stdout)")
        #expect(text.stdout.contains("Pending     none: the database is up to date"), "\(text.stdout)")
        #expect(text.stdout.contains("Note        user_version is 0, behind schema_migrations, which records 2 applied migrations"), "\(text.stdout)")

        let json = try StewardProcess.run(["migrate", "--status", "--json", "--migrations", set, "--db", path])
        #expect(json.status == 0, "\(json.stderr)")
        let report = try json.json()
        #expect(report["outcome"] as? String == "current", "\(report)")
        #expect(report["recordsPending"] as? Bool == false)
        #expect(report["fromVersionText"] as? String == "20240212141500")
        #expect(report["appliedCountBefore"] as? Int == 2 && report["migrationCount"] as? Int == 2)

        // What --status announced is what a run does: nothing.
        let run = try StewardProcess.run(["migrate", "--json", "--migrations", set, "--db", path])
        #expect(try run.json()["outcome"] as? String == "current")
        #expect(try bytes(path) == before)
    }

    @Test func statusOfADatabaseWhoseLedgerIsToBeBackfilledIsPending() throws {
        let path = try fixture.recordedByUserVersionOnly("old.db")
        let run = try StewardProcess.run(["migrate", "--status", "--json", "--migrations", set, "--db", path])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        #expect(report["outcome"] as? String == "pending", "\(report)")
        #expect(report["recordsPending"] as? Bool == true)
    }

    /// Regression: `--status` on a database without the runner's ledger said the ledger
    /// was "created by this run", though `--status` creates nothing.
    @Test func statusSaysALedgerIsNotThereYet() throws {
        let path = try migratedByTheRunner("bare.db")
        try Connection(path: path).execute(sql: "DROP TABLE schema_migrations; PRAGMA user_version = 2")
        let before = try bytes(path)
        let status = try StewardProcess.run(["migrate", "--status", "--migrations", set, "--db", path])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("schema_migrations: not there yet (a run creates it)"), "\(status.stdout)")
        #expect(!status.stdout.contains("created by this run"), "\(status.stdout)")
        let dryRun = try StewardProcess.run(["migrate", "--dry-run", "--migrations", set, "--db", path])
        #expect(dryRun.stdout.contains("schema_migrations: would be created by this run"), "\(dryRun.stdout)\(dryRun.stderr)")
        #expect(try bytes(path) == before)
    }

    @Test func aFleetStatusDoesNotCallSuchADatabaseCurrent() throws {
        let behind = try fixture.recordedByUserVersionOnly("behind.db")
        let upToDate = try current("current.db")
        let json = try StewardProcess.run(["migrate", "--status", "--json", "--migrations", set, "--db", behind, "--db", upToDate])
        #expect(json.status == 0, "\(json.stdout)\(json.stderr)")
        let lines = try MigrateWriteDecisionTests.lines(json)
        #expect(lines[behind]?["outcome"] as? String == "pending", "\(lines[behind] ?? [:])")
        #expect(lines[behind]?["recordsPending"] as? Bool == true)
        #expect(lines[upToDate]?["outcome"] as? String == "current", "\(lines[upToDate] ?? [:])")

        let text = try StewardProcess.run(["migrate", "--status", "--migrations", set, "--db", behind, "--db", upToDate])
        #expect(text.status == 0, "\(text.stderr)")
        let line = try #require(text.stdout.split(separator: "\n").first { $0.contains("behind.db") }, "\(text.stdout)")
        #expect(line.contains("pending"), "\(line)")
        #expect(line.contains("no migration to apply; a run records what is applied"), "\(line)")
        #expect(!line.contains("0 pending"), "\(line)")
    }

    /// The same false "current" in `--dry-run`: its copy got the records, yet the outcome
    /// was `current` and the text "nothing to do".
    @Test func aDryRunThatOnlyRecordsWouldMigrate() throws {
        let path = try fixture.recordedByUserVersionOnly("dry.db")
        let before = try bytes(path)
        let text = try StewardProcess.run(["migrate", "--dry-run", "--migrations", set, "--db", path])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Version     20240212141500: no migration to apply; what was applied would be recorded (2 of 2 migrations applied"), "\(text.stdout)")
        #expect(!text.stdout.contains("nothing to do"), "\(text.stdout)")
        let report = try StewardProcess.run(["migrate", "--dry-run", "--json", "--migrations", set, "--db", path]).json()
        #expect(report["outcome"] as? String == "would-migrate", "\(report)")
        #expect(try bytes(path) == before)

        for current in [try current("current.db"), try migratedByTheRunner("runner.db")] {
            let again = try StewardProcess.run(["migrate", "--dry-run", "--json", "--migrations", set, "--db", current]).json()
            #expect(again["outcome"] as? String == "current", "\(again)")
        }
    }

    /// No change for a database a run leaves as it is.
    @Test func aCurrentDatabaseIsStillCurrent() throws {
        let path = try current("current.db")
        let text = try StewardProcess.run(["migrate", "--status", "--migrations", set, "--db", path])
        #expect(text.stdout.contains("Pending     none: the database is up to date"), "\(text.stdout)")
        let report = try StewardProcess.run(["migrate", "--status", "--json", "--migrations", set, "--db", path]).json()
        #expect(report["outcome"] as? String == "current", "\(report)")
        #expect(report["recordsPending"] as? Bool == false)
    }
}

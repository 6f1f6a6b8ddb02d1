import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `restore --replace PATH`: a rollback in place from a `migrate --backup-dir` bundle; the
/// lock it waits for, the side files of the replaced database, and a process killed at
/// every step.
@Suite struct RestoreReplaceTests {
    let directory: TemporaryDirectory
    var migrations: String { Fixtures.exampleMigrations.path }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A database of the example set at version 1.
    func makeDatabase(_ name: String, titles: [String] = ["Printer is on fire", "Coffee machine"]) throws -> String {
        let path = directory.file(name)
        try Fixtures.makeExampleSetDatabase(at: path, titles: titles)
        return path
    }

    /// Migrates `path` to version 2 with `--backup-dir`; returns the bundle and the
    /// rollback command the report printed.
    func migrateWithBackup(_ path: String) throws -> (bundle: String, command: String) {
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--backup-dir", bundles, "--db", path])
        #expect(run.status == 0, "\(run.allOutput)")
        let backup = try #require(try run.json()["bundle"] as? [String: Any])
        return (try #require(backup["path"] as? String), try #require(backup["rollbackCommand"] as? String))
    }

    static func dump(_ path: String) throws -> String {
        let result = try systemTool(["sqlite3", path, ".dump"])
        #expect(result.status == 0)
        return result.output
    }

    static func userVersion(_ path: String) throws -> Int32 {
        try Connection(path: path, mode: .readOnly).userVersion()
    }

    /// Leaves committed rows in a `-wal` that nobody checkpointed: a process that exits
    /// without closing its connection.
    static func leaveUncheckpointedWAL(_ path: String, title: String) throws {
        let script = """
            import os, sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA journal_mode=WAL")
            c.execute("PRAGMA wal_autocheckpoint=0")
            c.execute("INSERT INTO ticket(title, body) VALUES (?, 'in the wal')", (sys.argv[2],))
            os._exit(0)
            """
        let result = try systemTool(["python3", "-c", script, path, title])
        #expect(result.status == 0, "\(result.output)")
    }

    @Test func theMigrateReportsRollbackCommandPutsTheOldDatabaseBackInPlace() throws {
        let path = try makeDatabase("app.db")
        let before = try Self.dump(path)
        let (bundle, command) = try migrateWithBackup(path)
        #expect(command == "steward restore \(bundle) --replace \(path)", "\(command)")
        #expect(try Self.userVersion(path) == 2)
        let migrated = try Self.dump(path)

        let run = try StewardProcess.run(["restore", bundle, "--replace", path])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(try Self.dump(path) == before)
        #expect(try Self.userVersion(path) == 1)
        let kept = try #require(try directory.contents().first { $0.hasPrefix("app.db.replaced-") })
        #expect(run.stdout.contains("Kept        the replaced database as \(directory.file(kept))"), "\(run.stdout)")
        #expect(try Self.dump(directory.file(kept)) == migrated)
        #expect(try directory.contents().filter { $0.contains("steward-replace") }.isEmpty)
    }

    @Test func theTextReportOfMigratePrintsTheRollbackCommand() throws {
        let path = try makeDatabase("it's here.db")
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--backup-dir", bundles, "--db", path])
        #expect(run.status == 0, "\(run.allOutput)")
        let line = try #require(run.stdout.split(separator: "\n").first { $0.hasPrefix("Rollback    ") })
        #expect(line.contains("--replace '\(directory.path)/it'\\''s here.db'"), "\(line)")
        // The command, run by a shell, rolls the database back.
        let command = String(line.dropFirst("Rollback    ".count)).replacingOccurrences(of: "steward ", with: "\"$STEWARD\" ", options: .anchored)
        var environment = ProcessInfo.processInfo.environment
        environment["STEWARD"] = StewardProcess.executable.path
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: "/bin/sh")
        shell.arguments = ["-c", command + " --discard-replaced >/dev/null"]
        shell.environment = environment
        try shell.run()
        shell.waitUntilExit()
        #expect(shell.terminationStatus == 0)
        #expect(try Self.userVersion(path) == 1)
    }

    @Test func fleetLinesCarryTheRollbackCommandOfEachBundle() throws {
        let first = try makeDatabase("one.db")
        let second = try makeDatabase("two.db")
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--backup-dir", bundles, "--db", first, "--db", second])
        #expect(run.status == 0, "\(run.allOutput)")
        for line in run.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard object["kind"] as? String == "database", let path = (object["database"] as? [String: Any])?["path"] as? String else { continue }
            let backup = try #require(object["bundle"] as? [String: Any])
            let bundle = try #require(backup["path"] as? String)
            #expect(backup["rollbackCommand"] as? String == "steward restore \(bundle) --replace \(path)")
        }
        let text = try StewardProcess.run(["migrate", "--migrations", migrations, "--backup-dir", bundles, "--db", directory.file("one.db"),
                                           "--db", try makeDatabase("three.db")])
        #expect(text.stdout.contains("rollback: steward restore \(bundles)/"), "\(text.stdout)")
    }

    @Test func replaceWaitsForTheLockAndRefusesWithSeventyFiveLeavingEverythingAsItWas() throws {
        let path = try makeDatabase("app.db")
        let (bundle, _) = try migrateWithBackup(path)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // A reader in a transaction holds a shared lock.
        let holder = try Connection(path: path)
        try holder.execute(sql: "BEGIN")
        _ = try holder.integer(sql: "SELECT count(*) FROM ticket")
        let run = try StewardProcess.run(["restore", bundle, "--replace", path, "--timeout", "0.3"])
        #expect(run.status == 75, "\(run.allOutput)")
        #expect(run.stderr.contains("in use by another connection"), "\(run.stderr)")
        try holder.execute(sql: "ROLLBACK")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try directory.contents().filter { $0.contains("replaced") || $0.hasPrefix(".") }.isEmpty)

        // An application with the database open in WAL mode, idle, is seen too.
        try holder.execute(sql: "PRAGMA journal_mode=WAL")
        _ = try holder.integer(sql: "SELECT count(*) FROM ticket")
        let wal = try StewardProcess.run(["restore", bundle, "--replace", path, "--timeout", "0.3"])
        #expect(wal.status == 75, "\(wal.allOutput)")
        #expect(try Self.userVersion(path) == 2)
    }

    @Test func aWALFullOfCommittedRowsIsCheckpointedIntoTheKeptDatabaseAndNeverIntoTheNewOne() throws {
        let path = try makeDatabase("app.db")
        let (bundle, _) = try migrateWithBackup(path)
        try Self.leaveUncheckpointedWAL(path, title: "only in the wal")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        let keep = directory.file("kept")
        try FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["restore", bundle, "--replace", path, "--keep-replaced", keep, "--json"])
        #expect(run.status == 0, "\(run.allOutput)")
        let replacement = try #require(try run.json()["replacement"] as? [String: Any])
        #expect(replacement["journalModeBefore"] as? String == "wal")
        for side in ["-wal", "-shm", "-journal"] { #expect(!FileManager.default.fileExists(atPath: path + side), "\(side)") }
        #expect(try Self.userVersion(path) == 1)
        let kept = try #require(replacement["replacedKeptAs"] as? String)
        #expect(kept.hasPrefix(keep + "/app.db.replaced-"))
        #expect(try Connection(path: kept, mode: .readOnly).integer(sql: "SELECT count(*) FROM ticket WHERE title = 'only in the wal'") == 1)
        #expect(try Connection(path: path, mode: .readOnly).integer(sql: "SELECT count(*) FROM ticket WHERE title = 'only in the wal'") == 0)
    }

    @Test func aHotJournalIsRolledBackIntoTheReplacedDatabaseFirst() throws {
        let path = try makeDatabase("app.db")
        let (bundle, _) = try migrateWithBackup(path)
        let committed = try Self.dump(path)
        // A writer dies half way through a big transaction: its pages are in the file,
        // the old ones in a hot -journal.
        let script = """
            import os, sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("PRAGMA cache_size=1")
            c.execute("BEGIN")
            for i in range(3000):
                c.execute("INSERT INTO ticket(title, body) VALUES (?, ?)", ("t%d" % i, "x" * 500))
            os._exit(0)
            """
        #expect(try systemTool(["python3", "-c", script, path]).status == 0)
        #expect(FileManager.default.fileExists(atPath: path + "-journal"))
        let run = try StewardProcess.run(["restore", bundle, "--replace", path, "--json"])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        let kept = try #require((try run.json()["replacement"] as? [String: Any])?["replacedKeptAs"] as? String)
        #expect(try Self.dump(kept) == committed)
        #expect(try Self.userVersion(path) == 1)
    }

    @Test func aJournalKeptByPersistModeIsRemovedSoThatOnlyTheNewFileIsLeft() throws {
        let path = try makeDatabase("app.db")
        let (bundle, _) = try migrateWithBackup(path)
        let connection = try Connection(path: path)
        #expect(try connection.setJournalMode("persist") == "persist")
        try connection.execute(sql: "INSERT INTO ticket(title, body) VALUES ('persisted', 'x')")
        #expect(FileManager.default.fileExists(atPath: path + "-journal"))
        let run = try StewardProcess.run(["restore", bundle, "--replace", path, "--discard-replaced"])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(run.stdout.contains("-journal (not hot"), "\(run.stdout)")
        #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        #expect(try Self.userVersion(path) == 1)
    }

    @Test(arguments: ["locked", "resolved", "linked", "renamed", "synced"])
    func aProcessKilledAtEveryStepLeavesTheOldOrTheNewDatabaseWhole(step: String) throws {
        let path = try makeDatabase("app.db")
        let (bundle, _) = try migrateWithBackup(path)
        try Self.leaveUncheckpointedWAL(path, title: "only in the wal")
        let old = try DatabaseState(path: directory.file("app.db"))
        #expect(old.userVersion == 2)

        let killed = try StewardProcess.run(["restore", bundle, "--replace", path, "--keep-replaced", directory.path],
                                            environment: ["STEWARD_TEST_HOOK_REPLACE_KILL_AT": step])
        #expect(killed.status == SIGKILL, "\(killed.allOutput)")
        // Whatever is at PATH now opens, passes integrity_check, and is one of the two.
        let connection = try Connection(path: path)
        #expect(try connection.integrityCheck() == ["ok"])
        let now = try DatabaseState(path: path)
        if ["renamed", "synced"].contains(step) {
            #expect(now.userVersion == 1)
            #expect(!now.tables["ticket", default: []].contains { $0.contains(.text("only in the wal")) })
        } else {
            #expect(now == old)
        }

        // A run after the crash finishes the job and removes the killed run's workspace.
        let again = try StewardProcess.run(["restore", bundle, "--replace", path, "--discard-replaced"])
        #expect(again.status == 0, "\(again.allOutput)")
        #expect(try Self.userVersion(path) == 1)
        #expect(try directory.contents().filter { $0.contains("steward-replace") }.isEmpty)
    }

    @Test func foreignKeyViolationsAlreadyThereAreRecordedInTheBundleAndDoNotBlockTheMigration() throws {
        let set = directory.file("set")
        try FileManager.default.createDirectory(atPath: set, withIntermediateDirectories: true)
        try """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));
            """.write(toFile: set + "/0001_tables.sql", atomically: true, encoding: .utf8)
        try "CREATE TABLE extra(x);".write(toFile: set + "/0002_extra.sql", atomically: true, encoding: .utf8)
        let path = directory.file("fk.db")
        let connection = try Connection(path: path)
        try connection.execute(sql: "CREATE TABLE parent(id INTEGER PRIMARY KEY)")
        try connection.execute(sql: "CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id))")
        try connection.execute(sql: "INSERT INTO child VALUES (1, 42), (2, 43)")
        try connection.setUserVersion(1)
        let before = try Self.dump(path)
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)

        let run = try StewardProcess.run(["migrate", "--migrations", set, "--json", "--backup-dir", bundles, "--db", path])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(try Self.userVersion(path) == 2)
        let backup = try #require(try run.json()["bundle"] as? [String: Any])
        let recorded = try #require(backup["recordedFailures"] as? [String: Any])
        let violations = try #require(recorded["foreignKeyViolations"] as? [[String: Any]])
        #expect(violations.first?["count"] as? Int == 2, "\(recorded)")
        #expect((recorded["integrity"] as? [String: Any])?["problems"] as? Int == 0, "\(recorded)")
        let bundle = try #require(backup["path"] as? String)
        let command = try #require(backup["rollbackCommand"] as? String)
        #expect(command == "steward restore \(bundle) --replace \(path) --accept-recorded-failures")

        let inspect = try StewardProcess.run(["inspect", bundle, "--json"])
        #expect(inspect.stdout.contains("recordedFailures"), "\(inspect.stdout)")
        let refused = try StewardProcess.run(["restore", bundle, "--replace", path])
        #expect(refused.status == 1, "\(refused.allOutput)")
        #expect(try Self.userVersion(path) == 2)
        let rolledBack = try StewardProcess.run(["restore", bundle, "--replace", path, "--accept-recorded-failures", "--discard-replaced"])
        #expect(rolledBack.status == 0, "\(rolledBack.allOutput)")
        #expect(try Self.dump(path) == before)
    }

    @Test func badCombinationsAreUsageErrorsAndAMissingTargetIsSixtySix() throws {
        let path = try makeDatabase("app.db")
        let (bundle, _) = try migrateWithBackup(path)
        for arguments in [["--replace", path, "--into", directory.file("x")], ["--replace", path, "--check-only"],
                          ["--replace", path, "--discard-replaced", "--keep-replaced", directory.path],
                          ["--into", directory.file("x"), "--discard-replaced"]] {
            let run = try StewardProcess.run(["restore", bundle] + arguments)
            #expect(run.status == 64, "\(arguments): \(run.allOutput)")
        }
        let missing = try StewardProcess.run(["restore", bundle, "--replace", directory.file("none.db")])
        #expect(missing.status == 66, "\(missing.allOutput)")
    }
}

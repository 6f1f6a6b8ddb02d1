import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `migrate`, `verify` and `backup` over many databases: the list, duplicates, NDJSON and
/// its summary, exit statuses, resumption, `--backup-dir`, `--fail-fast` and shards (also
/// under GNU parallel).
@Suite struct FleetCommandTests {
    let directory: TemporaryDirectory
    var migrations: String { Fixtures.exampleMigrations.path }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A database of the example set at `version` (1 or 2).
    func makeDatabase(_ name: String, version: Int32, titles: [String] = ["Printer is on fire"]) throws -> String {
        let path = directory.file(name)
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Fixtures.makeExampleSetDatabase(at: path, version: version, titles: titles)
        return path
    }

    func makeCorrupt(_ name: String) -> String {
        let path = directory.file(name)
        _ = FileManager.default.createFile(atPath: path, contents: Data(repeating: 0x41, count: 4096))
        return path
    }

    /// stdout as NDJSON: one object a line.
    static func lines(_ run: StewardRun) throws -> [[String: Any]] { try run.jsonLines() }

    static func databases(_ lines: [[String: Any]]) -> [String: [String: Any]] { StewardRun.databases(in: lines) }

    static func userVersion(_ path: String) throws -> Int32 {
        try Connection(path: path, mode: .readOnly).userVersion()
    }

    // MARK: - migrate

    /// Regression: a fleet run read the set in Steward's own layout for its drift check,
    /// so a set in another runner's layout (dbmate's markers here) was refused with 65
    /// for every database, although each one alone migrated fine.
    @Test func aFleetOfAnotherRunnersDatabasesIsMigratedInItsLayout() throws {
        let set = directory.file("dbmate-set")
        try FileManager.default.createDirectory(atPath: set, withIntermediateDirectories: true)
        try "-- migrate:up\nCREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT);\n-- migrate:down\nDROP TABLE customer;\n"
            .write(toFile: set + "/20240105093000_create_customer.sql", atomically: true, encoding: .utf8)
        try "-- migrate:up\nALTER TABLE customer ADD COLUMN email TEXT;\n-- migrate:down\nALTER TABLE customer DROP COLUMN email;\n"
            .write(toFile: set + "/20240212141500_add_email.sql", atomically: true, encoding: .utf8)
        let paths = [directory.file("a.db"), directory.file("b.db")]
        for path in paths {
            let first = try StewardProcess.run(["migrate", "--migrations", set, "--db", path, "--create", "--to", "20240105093000"])
            #expect(first.status == 0, "\(first.stderr)")
        }
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--json"] + paths.flatMap { ["--db", $0] })
        #expect(run.status == 0, "\(run.stderr)")
        let lines = try Self.databases(Self.lines(run))
        for path in paths {
            #expect(lines[path]?["outcome"] as? String == "migrated", "\(path): \(lines[path] ?? [:])")
            let ledger = try Connection(path: path, mode: .readOnly)
            #expect(try ledger.integer(sql: "SELECT count(*) FROM schema_migrations") == 2)
        }
    }

    @Test func migrateReportsEachDatabaseOnceWithItsOwnStatusAndTheSharedExitRule() throws {
        let current = try makeDatabase("current.db", version: 2)
        let old = try makeDatabase("old.db", version: 1)
        let broken = makeCorrupt("broken.db")
        try FileManager.default.createSymbolicLink(atPath: directory.file("again.db"), withDestinationPath: old)
        let missing = directory.file("missing.db")

        let run = try StewardProcess.run([
            "migrate", "--migrations", migrations, "--json", "--jobs", "2",
            "--db", current, "--db", old, "--db", broken, "--db", directory.file("again.db"), "--db", missing,
        ])
        // 65 and 66 differ, so the run exits 1.
        #expect(run.status == 1, "\(run.stderr)")
        let lines = try Self.lines(run)
        #expect(lines.count == 5)
        let summary = try #require(lines.last)
        #expect(summary["kind"] as? String == "summary")
        let byDatabase = Self.databases(lines)
        #expect(Set(byDatabase.keys) == [current, old, broken, missing])
        #expect(byDatabase[current]?["outcome"] as? String == "current")
        #expect(byDatabase[current]?["status"] as? String == "ok")
        #expect(byDatabase[current]?["exitCode"] as? Int == 0)
        #expect(byDatabase[old]?["outcome"] as? String == "migrated")
        #expect(byDatabase[old]?["toVersion"] as? Int == 2)
        #expect(byDatabase[old]?["command"] as? String == "migrate")
        #expect(byDatabase[broken]?["exitCode"] as? Int == 65)
        #expect(byDatabase[broken]?["status"] as? String == "error")
        #expect(byDatabase[missing]?["exitCode"] as? Int == 66)
        #expect(summary["listed"] as? Int == 5)
        #expect(summary["duplicates"] as? Int == 1)
        #expect(summary["processed"] as? Int == 4)
        #expect(summary["succeeded"] as? Int == 2)
        #expect(summary["failed"] as? Int == 2)
        #expect(summary["exitCode"] as? Int == 1)
        #expect(summary["exitCodes"] as? [String: Int] == ["65": 1, "66": 1])
        #expect(try Self.userVersion(old) == 2)

        // A run whose failures share a status exits with it; the migrated one is now current.
        let again = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--db", old, "--db", broken])
        #expect(again.status == 65)
        #expect(Self.databases(try Self.lines(again))[old]?["outcome"] as? String == "current")
    }

    @Test func aLockedDatabaseFailsWithSeventyFiveAndARerunFinishesOnlyWhatIsLeft() throws {
        let paths = try (0..<6).map { try makeDatabase("db\($0).db", version: $0 == 0 ? 2 : 1) }
        let holder = try Connection(path: paths[3])
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        let first = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--timeout", "0.2"] + paths.flatMap { ["--db", $0] })
        #expect(first.status == 75, "\(first.stdout)")
        let firstLines = Self.databases(try Self.lines(first))
        #expect(firstLines[paths[3]]?["exitCode"] as? Int == 75)
        #expect(firstLines.values.filter { $0["outcome"] as? String == "migrated" }.count == 4)
        try holder.execute(sql: "ROLLBACK")

        let second = try StewardProcess.run(["migrate", "--migrations", migrations, "--json"] + paths.flatMap { ["--db", $0] })
        #expect(second.status == 0, "\(second.stdout)")
        let secondLines = Self.databases(try Self.lines(second))
        #expect(secondLines.filter { $0.value["outcome"] as? String == "migrated" }.map(\.key) == [paths[3]])
        #expect(secondLines.values.filter { $0["outcome"] as? String == "current" }.count == 5)
        for path in paths { #expect(try Self.userVersion(path) == 2) }
    }

    @Test func textShowsOneLinePerDatabaseAndASummary() throws {
        let old = try makeDatabase("old.db", version: 1)
        let broken = makeCorrupt("broken.db")
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--db", old, "--db", broken])
        #expect(run.status == 65)
        let lines = run.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("ok ") && $0.contains("migrated") && $0.contains(old) && $0.contains("1 → 2") })
        #expect(lines.contains { $0.hasPrefix("FAIL ") && $0.contains("exit 65") && $0.contains(broken) })
        #expect(lines.contains("Exit status 65"))
    }

    @Test func listsComeFromAFileOrStandardInputInOrderAndNulSeparatedWithNull() throws {
        let names = ["a.db", "b c.db", "new\nline.db"]
        let paths = try names.map { try makeDatabase($0, version: 1) }
        let list = directory.file("list0")
        _ = FileManager.default.createFile(atPath: list, contents: Data(paths.joined(separator: "\0").utf8 + [0]))
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--jobs", "1", "--dbs-from", list, "--null"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let order = try Self.lines(run).compactMap { ($0["database"] as? [String: Any])?["path"] as? String }
        #expect(order == paths)

        let stdinList = paths.prefix(2).joined(separator: "\n")
        let piped = try systemTool(["sh", "-c", "printf '%s\\n' \"$1\" | \"$2\" verify --json --jobs 1 --dbs-from -", "sh",
                                    stdinList, StewardProcess.executable.path])
        #expect(piped.status == 0, "\(piped.output)")
        #expect(piped.output.components(separatedBy: "\"kind\":\"database\"").count - 1 == 2)
    }

    @Test func failFastStartsNoFurtherDatabaseAfterAFailure() throws {
        let broken = makeCorrupt("broken.db")
        let paths = try (0..<4).map { try makeDatabase("db\($0).db", version: 1) }
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--jobs", "1", "--fail-fast", "--db", broken]
                                         + paths.flatMap { ["--db", $0] })
        #expect(run.status == 65)
        let summary = try #require(try Self.lines(run).last)
        #expect(summary["processed"] as? Int == 1)
        #expect(summary["notStarted"] as? Int == 4)
        for path in paths { #expect(try Self.userVersion(path) == 1) }
    }

    @Test func aSignalStopsNewStartsAndTheRunExitsOneHundredThirty() throws {
        let paths = try (0..<300).map { try makeDatabase("db\($0).db", version: 1) }
        let list = directory.file("list")
        _ = FileManager.default.createFile(atPath: list, contents: Data(paths.joined(separator: "\n").utf8))
        let running = try StewardProcess.launch(["migrate", "--migrations", migrations, "--json", "--jobs", "1", "--dbs-from", list])
        usleep(500_000)
        running.send(SIGINT)
        let run = running.finish(timeout: 120)
        #expect(run.status == 130, "\(run.stderr)")
        let lines = try Self.lines(run)
        let summary = try #require(lines.last)
        #expect(summary["kind"] as? String == "summary")
        #expect(summary["exitCode"] as? Int == 130)
        let notStarted = try #require(summary["notStarted"] as? Int)
        #expect(notStarted > 0)
        // Every database is either migrated whole or untouched.
        var versions: [Int32: Int] = [:]
        for path in paths { versions[try Self.userVersion(path), default: 0] += 1 }
        #expect(Set(versions.keys).isSubset(of: [1, 2]))
        #expect(versions[1, default: 0] >= notStarted)
    }

    @Test(arguments: [
        (["--null", "--db", "a.db"], "'--null' needs '--dbs-from <file>'"),
        (["--fail-fast", "--db", "a.db"], "'--fail-fast' needs more than one database"),
        (["--shard", "0/4", "--db", "a.db"], "is invalid for '--shard <K/N>'"),
        (["--jobs", "0", "--db", "a.db"], "is invalid for '--jobs <n>'"),
        (["--jobs", "2"], "Missing expected argument '--db <path>'"),
        (["--db", "a.db", "--db", ""], "The value '' is invalid for '--db <path>'"),
        (["--db", "a.db", "--backup-dir", "b", "--status"], "'--backup-dir' cannot be used with"),
    ])
    func badFleetOptionsAreUsageErrors(arguments: [String], message: String) throws {
        let run = try StewardProcess.run(["migrate", "--migrations", migrations] + arguments, currentDirectory: directory.path)
        #expect(run.status == 64)
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    @Test func aMissingListIsSixtySixAndNulBytesWithoutNullAreSixtyFive() throws {
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--dbs-from", directory.file("nope.txt")])
        #expect(run.status == 66)
        let list = directory.file("list0")
        _ = FileManager.default.createFile(atPath: list, contents: Data("a.db\0b.db\0".utf8))
        let nul = try StewardProcess.run(["migrate", "--migrations", migrations, "--dbs-from", list])
        #expect(nul.status == 65)
        #expect(nul.stderr.contains("--null"), "\(nul.stderr)")
    }

    @Test func twoHundredDatabasesWithDriftALockACorruptAndAMissingOneEachFailWithTheirOwnStatus() throws {
        var paths = try (0..<200).map { try makeDatabase("srv/\($0)/app.db", version: $0 % 4 == 0 ? 2 : 1) }
        try Connection(path: paths[5]).execute(sql: "ALTER TABLE ticket ADD COLUMN email TEXT")
        try Connection(path: paths[9]).execute(sql: "CREATE INDEX by_hand ON ticket(title)")
        let holder = try Connection(path: paths[13])
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        try FileManager.default.removeItem(atPath: paths[17])
        _ = FileManager.default.createFile(atPath: paths[17], contents: Data(repeating: 0x41, count: 4096))
        paths.append(directory.file("srv/missing/app.db"))
        let list = directory.file("list")
        _ = FileManager.default.createFile(atPath: list, contents: Data(paths.joined(separator: "\n").utf8))

        let first = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--timeout", "0.2", "--dbs-from", list], timeout: 300)
        #expect(first.status == 1, "\(first.stderr)")
        let lines = Self.databases(try Self.lines(first))
        #expect(lines.count == 201)
        #expect(lines[paths[5]]?["exitCode"] as? Int == 65)
        #expect(lines[paths[9]]?["exitCode"] as? Int == 65)
        #expect(lines[paths[13]]?["exitCode"] as? Int == 75)
        #expect(lines[paths[17]]?["exitCode"] as? Int == 65)
        #expect(lines[paths[200]]?["exitCode"] as? Int == 66)
        let failed = Set([5, 9, 13, 17, 200].map { paths[$0] })
        #expect(Set(lines.filter { ($0.value["exitCode"] as? Int) != 0 }.keys) == failed)
        #expect(lines.values.filter { $0["outcome"] as? String == "current" }.count == 50)
        #expect(lines.values.filter { $0["outcome"] as? String == "migrated" }.count == 146)

        // The lock is gone and the drifted one fixed by hand: a re-run finishes only those.
        try holder.execute(sql: "ROLLBACK")
        try Connection(path: paths[9]).execute(sql: "DROP INDEX by_hand")
        let second = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--dbs-from", list], timeout: 300)
        let again = Self.databases(try Self.lines(second))
        #expect(Set(again.filter { $0.value["outcome"] as? String == "migrated" }.keys) == [paths[9], paths[13]])
        #expect(Set(again.filter { ($0.value["exitCode"] as? Int) != 0 }.keys) == Set([5, 17, 200].map { paths[$0] }))
        #expect(second.status == 1)
    }

    // MARK: - --backup-dir

    @Test func backupDirHoldsAVerifiedBundleOfEachChangedDatabaseThatRestoresToTheOldState() throws {
        // Two fleets share a file name: the path's hash keeps their bundles apart.
        let first = try makeDatabase("srv/one/app.db", version: 1, titles: ["one", "uno"])
        let second = try makeDatabase("srv/two/app.db", version: 1, titles: ["two"])
        let current = try makeDatabase("srv/three/app.db", version: 2)
        let before = try [first, second].map { try DatabaseState(path: $0) }
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)

        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--backup-dir", bundles,
                                          "--db", first, "--db", second, "--db", current])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let byDatabase = Self.databases(try Self.lines(run))
        #expect(byDatabase[current]?["bundle"] == nil)
        let names = try directory.contents(of: "bundles")
        #expect(names.count == 2)
        for (path, state) in zip([first, second], before) {
            let backup = try #require(byDatabase[path]?["bundle"] as? [String: Any])
            let bundle = try #require(backup["path"] as? String)
            let name = (bundle as NSString).lastPathComponent
            let tag = try systemTool(["sh", "-c", "printf %s \"$1\" | sha256sum", "sh", path]).output.prefix(12)
            #expect(name.hasPrefix("app-\(tag)-v1-"), "\(name)")
            #expect(backup["userVersion"] as? Int == 1)
            let into = directory.file("restored-\(tag)")
            let restore = try StewardProcess.run(["restore", bundle, "--into", into])
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(try DatabaseState(path: into + "/data/app.sqlite") == state)
            #expect(try Self.userVersion(path) == 2)
        }
    }

    @Test func aDatabaseWhoseBackupFailsIsNotMigrated() throws {
        let old = try makeDatabase("old.db", version: 1)
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--backup-dir", directory.file("no-such-dir"),
                                          "--db", old])
        #expect(run.status != 0)
        #expect(run.stdout.contains("not migrated"), "\(run.stdout)")
        #expect(try Self.userVersion(old) == 1)
    }

    @Test func oneDatabaseWithBackupDirPrintsItsUsualReportAndTheBundle() throws {
        let old = try makeDatabase("old.db", version: 1)
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--backup-dir", bundles, "--db", old])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        #expect(report["toVersion"] as? Int == 2)
        let backup = try #require(report["bundle"] as? [String: Any])
        #expect(FileManager.default.fileExists(atPath: try #require(backup["path"] as? String)))
        let again = try StewardProcess.run(["migrate", "--migrations", migrations, "--backup-dir", bundles, "--db", old])
        #expect(again.status == 0)
        #expect(again.stdout.contains("Backup      none"))
        #expect(try directory.contents(of: "bundles").count == 1)
    }

    // MARK: - Drift

    @Test func driftedDatabasesAreRefusedWithTheDifferenceAndTheOthersGoOn() throws {
        let old = try makeDatabase("old.db", version: 1)
        let column = try makeDatabase("column.db", version: 1)
        let index = try makeDatabase("index.db", version: 1)
        try Connection(path: column).execute(sql: "ALTER TABLE ticket ADD COLUMN email TEXT")
        try Connection(path: index).execute(sql: "CREATE INDEX by_hand ON ticket(title)")
        let before = try [column, index].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }

        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--db", old, "--db", column, "--db", index])
        #expect(run.status == 65, "\(run.stdout)")
        let lines = Self.databases(try Self.lines(run))
        #expect(lines[old]?["outcome"] as? String == "migrated")
        #expect((lines[old]?["schema"] as? [String: Any])?["status"] as? String == "match")
        let columnError = try #require((lines[column]?["error"] as? [String: Any])?["message"] as? String)
        #expect(columnError.contains("schema drift"), "\(columnError)")
        #expect(columnError.contains("table ticket: column email extra"), "\(columnError)")
        let indexError = try #require((lines[index]?["error"] as? [String: Any])?["message"] as? String)
        #expect(indexError.contains("index by_hand extra"), "\(indexError)")
        let after = try [column, index].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
        #expect(after == before)

        let allowed = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--allow-drift", "--db", column, "--db", index])
        #expect(allowed.status == 0, "\(allowed.stdout)")
        let allowedLines = Self.databases(try Self.lines(allowed))
        let schema = try #require(allowedLines[column]?["schema"] as? [String: Any])
        #expect(schema["status"] as? String == "drift")
        #expect(schema["differences"] as? [String] == ["table ticket: column email extra"])
        #expect(try Self.userVersion(column) == 2)
    }

    @Test func aPlainOneDatabaseMigrateRefusesDriftTooAndAllowDriftSaysWhatItMigrated() throws {
        let column = try makeDatabase("column.db", version: 1)
        try Connection(path: column).execute(sql: "ALTER TABLE ticket ADD COLUMN email TEXT")
        let before = try Data(contentsOf: URL(fileURLWithPath: column))
        let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--db", column])
        #expect(run.status == 65, "\(run.allOutput)")
        #expect(run.stderr.contains("schema drift, not migrated"), "\(run.stderr)")
        #expect(run.stderr.contains("table ticket: column email extra"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: column)) == before)

        let allowed = try StewardProcess.run(["migrate", "--migrations", migrations, "--db", column, "--allow-drift"])
        #expect(allowed.status == 0, "\(allowed.allOutput)")
        #expect(allowed.stdout.contains("Schema      drift: table ticket: column email extra"), "\(allowed.stdout)")
        #expect(try Self.userVersion(column) == 2)

        // A database that matches migrates as before; its JSON report has the check's finding.
        let plain = try makeDatabase("plain.db", version: 1)
        let json = try StewardProcess.run(["migrate", "--migrations", migrations, "--db", plain, "--json"])
        #expect(json.status == 0, "\(json.allOutput)")
        #expect((try json.json()["schema"] as? [String: Any])?["status"] as? String == "match")
    }

    @Test func theDriftCheckIsSkippedWithAReasonWhenTheSetCannotSayWhatTheVersionLooksLike() throws {
        // user_version 0 with a schema the set does not know: version 0 of the set is empty.
        let set = directory.file("set")
        try FileManager.default.createDirectory(atPath: set, withIntermediateDirectories: true)
        try "CREATE TABLE a(x);".write(toFile: set + "/0001_a.sql", atomically: true, encoding: .utf8)
        try "CREATE TABLE b(y);".write(toFile: set + "/0003_b.sql", atomically: true, encoding: .utf8)
        let odd = directory.file("odd.db")
        let connection = try Connection(path: odd)
        try connection.execute(sql: "CREATE TABLE a(x)")
        try connection.setUserVersion(2)
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--json", "--jobs", "1", "--db", odd])
        #expect(run.status == 0, "\(run.stdout)")
        let schema = try #require(Self.databases(try Self.lines(run))[odd]?["schema"] as? [String: Any])
        #expect(schema["status"] as? String == "skipped")
        #expect((schema["reason"] as? String)?.contains("no migration of the set has version 2") == true)
    }

    @Test func verifyHasTheSameSchemaCheck() throws {
        let good = try makeDatabase("good.db", version: 1)
        let drifted = try makeDatabase("drifted.db", version: 1)
        try Connection(path: drifted).execute(sql: "CREATE INDEX by_hand ON ticket(title)")
        let run = try StewardProcess.run(["verify", "--json", "--migrations", migrations, "--db", good, "--db", drifted])
        #expect(run.status == 1, "\(run.stdout)")
        let lines = Self.databases(try Self.lines(run))
        func schema(_ path: String) -> [String: Any]? {
            (lines[path]?["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "schema" }
        }
        #expect(schema(good)?["status"] as? String == "pass")
        #expect(schema(drifted)?["status"] as? String == "fail")
        #expect(schema(drifted)?["details"] as? [String] == ["index by_hand extra"])
        // The version check fails for both (the set's newest is 2): only the drifted one fails schema.
        #expect(lines[drifted]?["failedChecks"] as? [String] == ["version", "schema"])
    }

    // MARK: - verify and backup

    @Test func verifyAndBackupRunOverTheFleetToo() throws {
        let good = try makeDatabase("good.db", version: 2)
        let broken = makeCorrupt("broken.db")
        let verify = try StewardProcess.run(["verify", "--json", "--db", good, "--db", broken])
        #expect(verify.status != 0)
        let verified = Self.databases(try Self.lines(verify))
        #expect(verified[good]?["outcome"] as? String == "passed")
        #expect(verified[good]?["passed"] as? Bool == true)
        #expect(verified[broken]?["exitCode"] as? Int != 0)

        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--json", "--out", out, "--db", good, "--db", directory.file("good.db")])
        #expect(backup.status == 0, "\(backup.stdout)")
        let backedUp = try Self.lines(backup)
        #expect(backedUp.count == 2)
        #expect(backedUp.first?["outcome"] as? String == "backed-up")
        #expect(try directory.contents(of: "out").count == 1)

        let named = try StewardProcess.run(["backup", "--out", out, "--name", "x.tar.zst", "--db", good, "--db", broken])
        #expect(named.status == 64)
    }

    // MARK: - Shards

    @Test func shardsPartitionTheListAfterDuplicatesAreRemoved() throws {
        let paths = try (0..<10).map { try makeDatabase("db\($0).db", version: 1) }
        // A duplicate in the list must not shift the shares.
        let list = [paths[0], paths[1], paths[0]] + paths[2...]
        let file = directory.file("list")
        _ = FileManager.default.createFile(atPath: file, contents: Data(list.joined(separator: "\n").utf8))
        var seen: [String] = []
        for index in 1...3 {
            let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--status", "--dbs-from", file, "--shard", "\(index)/3"])
            #expect(run.status == 0)
            let share = try Self.lines(run).filter { $0["kind"] as? String == "database" }.compactMap { ($0["database"] as? [String: Any])?["path"] as? String }
            #expect(Set(share) == Set(paths.enumerated().filter { $0.offset % 3 == index - 1 }.map(\.element)))
            seen += share
        }
        #expect(seen.sorted() == paths.sorted())
    }

    // MARK: - report

    @Test func reportSummarisesShardsAndAReRunByTheLastLineOfEachDatabase() throws {
        let paths = try (0..<5).map { try makeDatabase("db\($0).db", version: 1) }
        let broken = makeCorrupt("broken.db")
        let list = directory.file("list")
        _ = FileManager.default.createFile(atPath: list, contents: Data((paths + [broken]).joined(separator: "\n").utf8))
        var files: [String] = []
        for index in 1...2 {
            let run = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--dbs-from", list, "--shard", "\(index)/2"])
            let file = directory.file("shard\(index).ndjson")
            try run.stdout.write(toFile: file, atomically: true, encoding: .utf8)
            files.append(file)
        }
        let report = try StewardProcess.run(["report", "--json"] + files)
        #expect(report.status == 65, "\(report.stdout)")
        let json = try report.json()
        #expect(json["databases"] as? Int == 6)
        #expect(json["summaries"] as? Int == 2)
        #expect(json["outcomes"] as? [String: Int] == ["migrated": 5, "failed": 1])
        let failures = try #require(json["failures"] as? [[String: Any]])
        #expect(failures.count == 1)
        #expect((failures.first?["database"] as? [String: Any])?["path"] as? String == broken)
        #expect(failures.first?["exitCode"] as? Int == 65)

        // The broken database is replaced and the run repeated: its last line counts.
        try FileManager.default.removeItem(atPath: broken)
        _ = try makeDatabase("broken.db", version: 1)
        let rerun = try StewardProcess.run(["migrate", "--migrations", migrations, "--json", "--dbs-from", list])
        let third = directory.file("rerun.ndjson")
        try rerun.stdout.write(toFile: third, atomically: true, encoding: .utf8)
        let text = try StewardProcess.run(["report"] + files + [third])
        #expect(text.status == 0, "\(text.stdout)")
        #expect(text.stdout.contains("6 succeeded, 0 failed"), "\(text.stdout)")
        #expect(text.stdout.contains("6 with more than one line"), "\(text.stdout)")
    }

    @Test func reportRefusesALineThatIsNotOfAFleetRunWithItsLine() throws {
        let file = directory.file("bad.ndjson")
        try "{\"kind\":\"summary\"}\n\nnot json\n".write(toFile: file, atomically: true, encoding: .utf8)
        let run = try StewardProcess.run(["report", file])
        #expect(run.status == 65)
        #expect(run.stderr.contains("bad.ndjson:3:"), "\(run.stderr)")
        #expect(try StewardProcess.run(["report", directory.file("none.ndjson")]).status == 66)
        #expect(try StewardProcess.run(["report"]).status == 64)
    }

    static let hasParallel = FileManager.default.isExecutableFile(atPath: "/usr/bin/parallel")

    @Test(.enabled(if: hasParallel, "GNU parallel (Debian package parallel) is not installed"))
    func fourShardsUnderGnuParallelMigrateEveryDatabaseExactlyOnce() throws {
        let paths = try (0..<40).map { try makeDatabase("srv/\($0)/app.db", version: $0 % 5 == 0 ? 2 : 1) }
        let file = directory.file("list")
        _ = FileManager.default.createFile(atPath: file, contents: Data(paths.joined(separator: "\n").utf8))
        let report = directory.file("fleet.ndjson")
        let result = try systemTool([
            "sh", "-c",
            "parallel --will-cite \"$1\" migrate --migrations \"$2\" --json --dbs-from \"$3\" --shard {}/4 ::: 1 2 3 4 > \"$4\"",
            "sh", StewardProcess.executable.path, migrations, file, report,
        ])
        #expect(result.status == 0, "\(result.output)")
        let text = try String(contentsOfFile: report, encoding: .utf8)
        let lines = try text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let databases = lines.filter { $0["kind"] as? String == "database" }.compactMap { ($0["database"] as? [String: Any])?["path"] as? String }
        #expect(databases.count == paths.count)
        #expect(Set(databases) == Set(paths))
        let summaries = lines.filter { $0["kind"] as? String == "summary" }
        #expect(Set(summaries.compactMap { $0["shard"] as? String }) == ["1/4", "2/4", "3/4", "4/4"])
        #expect(lines.filter { $0["outcome"] as? String == "migrated" }.count == 32)
        #expect(lines.filter { $0["outcome"] as? String == "current" }.count == 8)
        for path in paths { #expect(try Self.userVersion(path) == 2) }
    }
}

import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `verify --report` never replaces an input, and the private copy is
/// made only when a check needs it, and when it cannot be made only those checks fail.
@Suite struct VerifyReportAndCopyTests {
    let directory: TemporaryDirectory
    var database: String { directory.file("x.db") }
    var examples: String { Fixtures.exampleMigrations.path }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// Every file under the test's directory and its bytes.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: directory.path)
        while let relative = enumerator?.nextObject() as? String {
            let path = directory.file(relative)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue {
                files[relative] = FileManager.default.contents(atPath: path)
            }
        }
        return files
    }

    func makeExample() throws {
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--create", "--quiet"]).status == 0)
    }

    /// The inputs of one run, and where the report goes.
    struct Case: CustomStringConvertible, Sendable {
        let name: String
        /// Relative to the test's directory.
        let report: String
        let extraArguments: [String]
        var description: String { name }
    }

    static let reportCases: [Case] = [
        Case(name: "the database", report: "x.db", extraArguments: []),
        Case(name: "the database as ./x.db", report: "./x.db", extraArguments: []),
        Case(name: "the database through ../", report: "sub/../x.db", extraArguments: []),
        Case(name: "a symbolic link to the database", report: "link.db", extraArguments: []),
        Case(name: "a hard link to the database", report: "hard.db", extraArguments: []),
        Case(name: "a -wal that does not exist", report: "x.db-wal", extraArguments: []),
        Case(name: "a -shm that does not exist", report: "sub/../x.db-shm", extraArguments: []),
        Case(name: "a -journal that does not exist", report: "x.db-journal", extraArguments: []),
        Case(name: "the -wal of the database a link points to", report: "x.db-wal", extraArguments: ["--db", "link.db"]),
        Case(name: "an existing -wal by a hard link", report: "wal-link", extraArguments: ["--db", "live.db"]),
        Case(name: "an assertion file", report: "./checks.sql", extraArguments: ["--assert", "checks.sql"]),
        Case(name: "the contract", report: "m/contract.json", extraArguments: ["--migrations", "m", "--contract", "m/contract.json"]),
        Case(name: "a migration", report: "m/0001_create_ticket.sql", extraArguments: ["--migrations", "m"]),
        Case(name: "a new file in the migration directory", report: "m/report.json", extraArguments: ["--migrations", "m"]),
    ]

    @Test(arguments: reportCases)
    func theReportNeverReplacesAnInput(_ item: Case) throws {
        try makeExample()
        try FileManager.default.createDirectory(atPath: directory.file("sub"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory.file("link.db"), withDestinationPath: "x.db")
        try FileManager.default.linkItem(atPath: database, toPath: directory.file("hard.db"))
        try Data("SELECT 1;\n".utf8).write(to: URL(fileURLWithPath: directory.file("checks.sql")))
        try FileManager.default.copyItem(atPath: examples, toPath: directory.file("m"))
        try FileManager.default.moveItem(atPath: directory.file("m/ticket-search.contract.json"), toPath: directory.file("m/contract.json"))
        // A live WAL database, held open by a connection, with a hard link to its -wal.
        let live = try Connection(path: directory.file("live.db"))
        try live.execute(sql: "PRAGMA journal_mode = WAL; CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try FileManager.default.linkItem(atPath: directory.file("live.db-wal"), toPath: directory.file("wal-link"))
        let before = try snapshot()

        var arguments = ["verify", "--report", item.report, "--quiet"]
        if !item.extraArguments.contains("--db") { arguments += ["--db", "x.db"] }
        let run = try StewardProcess.run(arguments + item.extraArguments, currentDirectory: directory.path)
        #expect(run.status == 64, "\(item): \(run.stderr)")
        #expect(run.stderr.contains("a report never replaces an input"), "\(run.stderr)")
        #expect(try snapshot() == before, "every input is byte-identical, and nothing was added")
        _ = live
    }

    @Test func aReportThatIsNotARegularFileIsRefused() throws {
        try makeExample()
        let run = try StewardProcess.run(["verify", "--db", database, "--report", directory.path, "--quiet"])
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("is not a regular file"), "\(run.stderr)")
    }

    @Test func anOlderReportIsReplacedWholeAndNoTemporaryRemains() throws {
        try makeExample()
        let report = directory.file("out/verify.json")
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: false)
        try Data(String(repeating: "old report\n", count: 10_000).utf8).write(to: URL(fileURLWithPath: report))
        let run = try StewardProcess.run(["verify", "--db", database, "--report", report, "--json", "--quiet"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try String(contentsOfFile: report, encoding: .utf8) == run.stdout)
        #expect(try directory.contents(of: "out") == ["verify.json"])
    }

    // MARK: - The private copy

    /// A database without FTS5 tables.
    func makePlainDatabase(rows: Int = 10) throws {
        let connection = try Connection(path: database)
        try connection.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)")
        try connection.transaction {
            for index in 0..<rows {
                try connection.execute(sql: "INSERT INTO t(v) VALUES (?)", bindings: [.text(String(repeating: "v\(index)", count: 50))])
            }
        }
    }

    func check(_ run: StewardRun, _ name: String) throws -> [String: Any] {
        let checks = try #require(try run.json()["checks"] as? [[String: Any]])
        return try #require(checks.first { $0["name"] as? String == name })
    }

    @Test func noCopyIsMadeWhenNoCheckNeedsIt() throws {
        try makePlainDatabase()
        let run = try StewardProcess.run(
            ["verify", "--db", database, "--json", "--quiet"], environment: ["TMPDIR": directory.file("missing")])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try check(run, "fts-sync")["summary"] as? String == "no full-text tables (FTS3, FTS4 or FTS5)")
        #expect(try check(run, "assertions")["status"] as? String == "skipped")
    }

    @Test func aCopyThatCannotBeMadeFailsOnlyTheChecksThatNeedIt() throws {
        try makeExample()
        try Data("SELECT 1;\n".utf8).write(to: URL(fileURLWithPath: directory.file("checks.sql")))
        let missing = directory.file("missing")
        let run = try StewardProcess.run(
            ["verify", "--db", database, "--assert", directory.file("checks.sql"), "--json", "--quiet"],
            environment: ["TMPDIR": missing])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        for name in ["fts-sync", "assertions"] {
            let failed = try check(run, name)
            #expect(failed["status"] as? String == "fail")
            let summary = try #require(failed["summary"] as? String)
            #expect(summary.hasPrefix("cannot run: no private directory for the copy: cannot create a directory in \(missing)"), "\(summary)")
            let details = (failed["details"] as? [String]) ?? []
            #expect(details.contains { $0.hasPrefix("the copy needs 28672 bytes") }, "\(details)")
        }
        for name in ["sqlite", "integrity", "foreign-keys", "fts-triggers"] {
            #expect(try check(run, name)["status"] as? String == "pass", "\(name)")
        }
    }

    /// The example database, in WAL mode (its file's header says so; no -wal left): its
    /// FTS5 check runs on a private copy made with the backup API, never on a mapping.
    func makeWALExample() throws {
        try makeExample()
        #expect(try Connection(path: database).setJournalMode("wal") == "wal")
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
    }

    @Test(.enabled(if: SmallFileSystem.canMount, "a small TMPDIR needs a small tmpfs"))
    func aTemporaryDirectoryWithoutRoomFailsOnlyTheChecksThatNeedTheCopy() throws {
        try makeWALExample()
        do {
            let connection = try Connection(path: database)
            try connection.transaction {
                for index in 0..<3000 {
                    try connection.execute(
                        sql: "INSERT INTO ticket(title, body) VALUES (?, ?)",
                        bindings: [.text("ticket \(index)"), .text(String(repeating: "word\(index) ", count: 100))])
                }
            }
        }
        let small = directory.file("small")
        try #require(try SmallFileSystem.mount(at: small, megabytes: 1))
        defer { SmallFileSystem.unmount(small) }
        let run = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet"], environment: ["TMPDIR": small])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let failed = try check(run, "fts-sync")
        #expect(failed["status"] as? String == "fail")
        let summary = try #require(failed["summary"] as? String)
        #expect(summary.contains("no room for the private copy in \(small)") && summary.contains("the copy needs"), "\(summary)")
        // integrity_check of a WAL database without its -wal runs on the copy too.
        for name in ["foreign-keys", "fts-triggers"] {
            #expect(try check(run, name)["status"] as? String == "pass", "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: small).isEmpty, "nothing left in TMPDIR")
    }

    /// Room for the workspace and its lock but not for one more file: the copy itself
    /// cannot be made after the checks on free space passed.
    @Test(.enabled(if: SmallFileSystem.canMount, "a full TMPDIR needs a small tmpfs"))
    func aCopyThatFailsMidwayFailsOnlyTheChecksThatNeedItAndLeavesNothing() throws {
        try makeWALExample()
        let small = directory.file("inodes")
        try FileManager.default.createDirectory(atPath: small, withIntermediateDirectories: false)
        let mounted = try systemTool(["mount", "-t", "tmpfs", "-o", "size=4m,nr_inodes=3,mode=0755", "tmpfs", small])
        try #require(mounted.status == 0, "\(mounted.output)")
        defer { SmallFileSystem.unmount(small) }
        let run = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet"], environment: ["TMPDIR": small])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let failed = try check(run, "fts-sync")
        let summary = try #require(failed["summary"] as? String)
        #expect(summary.hasPrefix("cannot run: cannot make the private copy in \(small)"), "\(summary)")
        #expect(((failed["details"] as? [String]) ?? []).contains { $0.hasPrefix("the copy needs 28672 bytes") })
        for name in ["foreign-keys", "fts-triggers"] {
            #expect(try check(run, name)["status"] as? String == "pass", "\(name)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: small).isEmpty, "the workspace was removed")
    }

    // MARK: - The private mapping (a rollback-journal database, no assertions)

    /// Only FTS5's check needs a writable database, and a rollback-journal database gets
    /// it from a private mapping of its file: no copy, so no room, in TMPDIR. (Before, a
    /// TMPDIR that cannot hold a copy failed fts-sync.)
    @Test func theFTS5CheckOfARollbackJournalDatabaseNeedsNoTemporaryDirectory() throws {
        try makeExample()
        let missing = directory.file("missing")
        let run = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet"], environment: ["TMPDIR": missing])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let sync = try check(run, "fts-sync")
        #expect(sync["status"] as? String == "pass")
        #expect(sync["summary"] as? String == "FTS5 integrity-check passed for ticket_fts")
        #expect(try check(run, "assertions")["status"] as? String == "skipped")
        #expect(!FileManager.default.fileExists(atPath: missing))
    }

    /// Drift is found on the mapping as on the copy, and the file is left byte for byte
    /// as it was, its modification time too.
    @Test func driftIsFoundOnTheMappingAndTheFileIsUntouched() throws {
        try makeExample()
        do {
            let connection = try Connection(path: database)
            try connection.execute(sql: "INSERT INTO ticket(title, body) VALUES ('Printer jammed', 'paper')")
            try connection.execute(sql: "DROP TRIGGER ticket_fts_after_update")
            try connection.execute(sql: "UPDATE ticket SET title = 'Scanner offline'")
            #expect(try connection.integer(sql: "SELECT count(*) FROM ticket_fts WHERE ticket_fts MATCH 'printer'") == 1, "the drift")
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let modified = try FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date
        let run = try StewardProcess.run(
            ["verify", "--db", database, "--json", "--quiet"], environment: ["TMPDIR": directory.file("missing")])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let sync = try check(run, "fts-sync")
        #expect(sync["status"] as? String == "fail")
        #expect(sync["summary"] as? String == "full-text check failed: ticket_fts (drift from ticket)")
        #expect(((sync["details"] as? [String]) ?? []).contains { $0.hasPrefix("ticket_fts: the index is out of step with its content table ticket (drift") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
        #expect(try FileManager.default.attributesOfItem(atPath: database)[.modificationDate] as? Date == modified)
        #expect(try directory.contents() == ["x.db"], "no journal, WAL or copy next to the database")
    }

    /// A WAL database, and a run with assertions, still need the copy.
    @Test(arguments: ["wal", "assertions"])
    func aWALDatabaseOrAssertionsStillUseTheCopy(_ reason: String) throws {
        var arguments = ["verify", "--db", database, "--json", "--quiet"]
        if reason == "wal" {
            try makeWALExample()
        } else {
            try makeExample()
            try Data("SELECT 1;\n".utf8).write(to: URL(fileURLWithPath: directory.file("checks.sql")))
            arguments += ["--assert", directory.file("checks.sql")]
        }
        let missing = directory.file("missing")
        let failed = try StewardProcess.run(arguments, environment: ["TMPDIR": missing])
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        let summary = try #require(try check(failed, "fts-sync")["summary"] as? String)
        #expect(summary.hasPrefix("cannot run: no private directory for the copy"), "\(summary)")
        let run = try StewardProcess.run(arguments)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try check(run, "fts-sync")["summary"] as? String == "FTS5 integrity-check passed for ticket_fts")
    }

    /// A check that would grow the mapped database fails with SQLITE_FULL (injected): it
    /// runs again on a copy, made inside the read transaction the mapping holds, and only
    /// a copy that cannot be made fails it.
    @Test func aMappingThatWouldGrowFallsBackToTheCopy() throws {
        try makeExample()
        let full = ["STEWARD_TEST_HOOK_VERIFY_MAPPING_FULL": "1"]
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let run = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet"], environment: full)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try check(run, "fts-sync")["summary"] as? String == "FTS5 integrity-check passed for ticket_fts")
        let missing = directory.file("missing")
        let noCopy = try StewardProcess.run(
            ["verify", "--db", database, "--json", "--quiet"], environment: full.merging(["TMPDIR": missing]) { $1 })
        #expect(noCopy.status == 1, "\(noCopy.stdout)\(noCopy.stderr)")
        let summary = try #require(try check(noCopy, "fts-sync")["summary"] as? String)
        #expect(summary.hasPrefix("cannot run: no private directory for the copy"), "\(summary)")
        #expect(try check(noCopy, "integrity")["status"] as? String == "pass")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    }

    @Test func staleVerifyCopiesOfKilledRunsAreRemoved() throws {
        let database = directory.file("tickets.db")
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--create", "--quiet"]).status == 0)
        // A process id above any pid_max: no such process.
        let stale = FileManager.default.temporaryDirectory.appendingPathComponent("steward-verify-2147483646-\(UUID().uuidString.prefix(6))").path
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: false)
        try Data("copy".utf8).write(to: URL(fileURLWithPath: stale + "/copy.sqlite"))
        try Data().write(to: URL(fileURLWithPath: stale + "/.lock"))
        // A workspace whose lock is held (as a live run holds it) is left alone, whatever
        // its process id says.
        let live = FileManager.default.temporaryDirectory.appendingPathComponent("steward-verify-2147483645-\(UUID().uuidString.prefix(6))").path
        try FileManager.default.createDirectory(atPath: live, withIntermediateDirectories: false)
        try Data().write(to: URL(fileURLWithPath: live + "/.lock"))
        let lock = open(live + "/.lock", O_RDWR)
        #expect(lock >= 0 && flock(lock, LOCK_EX) == 0)
        defer { close(lock); try? FileManager.default.removeItem(atPath: live) }

        #expect(try StewardProcess.run(["verify", "--db", database, "--quiet"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(FileManager.default.fileExists(atPath: live))
    }
}

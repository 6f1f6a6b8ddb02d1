import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Behaviours that a review found missing: each test failed before its fix.
@Suite struct ReviewRegressionTests {
    let directory: TemporaryDirectory
    var examples: String { Fixtures.exampleMigrations.path }

    init() throws {
        directory = try TemporaryDirectory()
    }

    @Test func oneCharacterRelativePathsNeverCrash() throws {
        let cwd = directory.path
        let migrate = try StewardProcess.run(["migrate", "--db", "z", "--migrations", examples, "--create", "--quiet"], currentDirectory: cwd)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        let verify = try StewardProcess.run(["verify", "--db", "z", "--report", "q", "--quiet"], currentDirectory: cwd)
        #expect(verify.status == 0, "\(verify.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("q")))
        #expect(try StewardProcess.run(["inspect", "z"], currentDirectory: cwd).status == 0)
        let backup = try StewardProcess.run(["backup", "--db", "z", "--out", ".", "--name", "b.tar.zst", "--quiet"], currentDirectory: cwd)
        #expect(backup.status == 0, "\(backup.stderr)")
        let restore = try StewardProcess.run(["restore", "b.tar.zst", "--into", "a", "--quiet"], currentDirectory: cwd)
        #expect(restore.status == 0, "\(restore.stderr)")
        for run in [migrate, verify, backup, restore] {
            #expect(!run.stderr.contains("Illegal instruction") && !run.stderr.contains("Fatal error"))
        }
    }

    @Test func walWithoutShmIsReadWithoutCreatingIt() throws {
        let source = directory.file("live.db")
        let holder = try Fixtures.makeExampleDatabase(at: source, journalMode: "wal")
        try holder.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try holder.execute(sql: "INSERT INTO ticket(title) VALUES ('in the wal')")
        try FileManager.default.createDirectory(atPath: directory.file("copy"), withIntermediateDirectories: false)
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: source + suffix, toPath: directory.file("copy/live.db" + suffix))
        }
        let before = try directory.contents(of: "copy")
        #expect(before == ["live.db", "live.db-wal"])
        for arguments in [["inspect", "--json"], ["verify", "--json"]] {
            let path = directory.file("copy/live.db")
            let run = try StewardProcess.run(arguments + (arguments[0] == "verify" ? ["--db", path] : [path]))
            #expect(run.status == 0, "\(arguments[0]): \(run.stderr)")
            #expect(try directory.contents(of: "copy") == before, "\(arguments[0]) created nothing")
        }
        let inspect = try StewardProcess.run(["inspect", directory.file("copy/live.db")])
        #expect(inspect.stdout.contains("a -wal file exists without its -shm"))
    }

    @Test func hotJournalIsRefusedNotReadTorn() throws {
        let path = directory.file("hot.db")
        do {
            let connection = try Connection(path: path)
            try connection.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, payload TEXT)")
            try connection.execute(sql: "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 3000) INSERT INTO t(payload) SELECT printf('%0200d', x) FROM n")
        }
        // A writer that spills its changes into the file and then dies mid-transaction.
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        writer.arguments = [path]
        let input = Pipe()
        writer.standardInput = input
        writer.standardOutput = FileHandle.nullDevice
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        // The CLI then waits for more input, inside its transaction.
        input.fileHandleForWriting.write(Data("PRAGMA cache_size = 5;\nBEGIN;\nUPDATE t SET payload = upper(payload) || 'x';\n".utf8))
        var waited = 0.0
        while !FileManager.default.fileExists(atPath: path + "-journal") && waited < 10 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 0.05
        }
        Thread.sleep(forTimeInterval: 0.5)
        kill(writer.processIdentifier, SIGKILL)
        writer.waitUntilExit()
        try input.fileHandleForWriting.close()
        #expect(FileManager.default.fileExists(atPath: path + "-journal"), "a hot journal was left")

        for arguments in [["inspect", path], ["verify", "--db", path]] {
            let run = try StewardProcess.run(arguments)
            #expect(run.status == 65, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("hot journal"), "\(arguments[0]): \(run.stderr)")
        }
        // Untouched: the journal is still there for SQLite to roll back.
        #expect(FileManager.default.fileExists(atPath: path + "-journal"))
        let recovered = try Connection(path: path)
        #expect(try recovered.integer(sql: "SELECT count(*) FROM t WHERE payload LIKE '%x'") == 0)
    }

    @Test func migrateWaitsForAnExclusiveLockUntilTheTimeout() throws {
        let database = directory.file("tickets.db")
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--create", "--to", "1", "--quiet"]).status == 0)
        let holder = try Connection(path: database)
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        defer { holder.rollbackIfNeeded() }
        for extra in [[], ["--status"], ["--dry-run"]] {
            let started = Date()
            let run = try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--timeout", "1"] + extra)
            let elapsed = Date().timeIntervalSince(started)
            #expect(run.status == 75, "\(extra): \(run.stderr)")
            #expect(elapsed >= 0.9 && elapsed < 2.5, "\(extra): gave up after \(elapsed) s")
        }
    }

    @Test func assertionErrorsNeverQuoteRowData() throws {
        let database = directory.file("tickets.db")
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--create", "--quiet"]).status == 0)
        let marker = "ZQSECRET\(UUID().uuidString.prefix(6).filter(\.isLetter))"
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title) VALUES (?)", bindings: [.text("\(marker): secret words")])
        let assertions = directory.file("a.sql")
        // The title becomes an FTS5 query: its parse error would name the "column".
        try "-- name: every title is searchable\nSELECT count(*) >= 0 FROM ticket_fts WHERE ticket_fts MATCH (SELECT title FROM ticket LIMIT 1);\n"
            .write(toFile: assertions, atomically: true, encoding: .utf8)
        let report = directory.file("report.json")
        let run = try StewardProcess.run(["verify", "--db", database, "--assert", assertions, "--report", report, "--json"])
        #expect(run.status == 1)
        #expect(!run.allOutput.contains(marker))
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(!written.contains(marker))
        #expect(written.contains("every title is searchable"))
    }

    @Test func controlCharactersInNamesAreNotPrinted() throws {
        let path = directory.file("odd.db")
        try Connection(path: path).execute(sql: "CREATE TABLE \"evil\u{1B}[2Jname\"(x)")
        let run = try StewardProcess.run(["inspect", path])
        #expect(run.status == 0)
        #expect(!run.stdout.contains("\u{1B}"))
        #expect(run.stdout.contains("evil?[2Jname"))
        let json = try StewardProcess.run(["inspect", "--json", path])
        #expect((try json.json()["tables"] as? [[String: Any]])?.first?["name"] as? String == "evil\u{1B}[2Jname")
    }

    @Test func staleVerifyCopiesOfKilledRunsAreRemoved() throws {
        let database = directory.file("tickets.db")
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--create", "--quiet"]).status == 0)
        // A process id above any pid_max: no such process.
        let stale = FileManager.default.temporaryDirectory.appendingPathComponent("steward-verify-2147483646-\(UUID().uuidString.prefix(6))").path
        try FileManager.default.createDirectory(atPath: stale, withIntermediateDirectories: false)
        try Data("copy".utf8).write(to: URL(fileURLWithPath: stale + "/copy.sqlite"))
        #expect(try StewardProcess.run(["verify", "--db", database, "--quiet"]).status == 0)
        #expect(!FileManager.default.fileExists(atPath: stale))
    }
}

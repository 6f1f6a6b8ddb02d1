import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Database files as a live system leaves them, and paths as short as they get: a one-letter
/// relative path, a `-wal` without its `-shm`, a WAL database held in exclusive locking
/// mode, a hot journal, a lock held past the timeout. Each command copes or refuses,
/// without changing or creating anything beside the file.
@Suite struct DatabaseFileStateTests {
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

    @Test func walWithoutShmIsRefusedWithoutCreatingIt() throws {
        let source = directory.file("live.db")
        let holder = try Fixtures.makeExampleDatabase(at: source, journalMode: "wal")
        try holder.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try holder.execute(sql: "INSERT INTO ticket(title) VALUES ('in the wal')")
        try FileManager.default.createDirectory(atPath: directory.file("copy"), withIntermediateDirectories: false)
        try withExtendedLifetime(holder) {
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(atPath: source + suffix, toPath: directory.file("copy/live.db" + suffix))
            }
        }
        let before = try directory.contents(of: "copy")
        #expect(before == ["live.db", "live.db-wal"])
        let path = directory.file("copy/live.db")
        for arguments in [["inspect", path], ["verify", "--db", path], ["migrate", "--status", "--db", path, "--migrations", examples]] {
            let run = try StewardProcess.run(arguments)
            #expect(run.status == 65, "\(arguments[0]): \(run.stderr)")
            #expect(run.stderr.contains("a -wal file without its -shm"), "\(arguments[0]): \(run.stderr)")
            #expect(try directory.contents(of: "copy") == before, "\(arguments[0]) created nothing")
        }
    }

    @Test func exclusiveLockingWALDatabaseInUseIsBusy() throws {
        let path = directory.file("exclusive.db")
        let holder = try Connection(path: path)
        try holder.execute(sql: "PRAGMA locking_mode = EXCLUSIVE")
        try holder.setJournalMode("wal")
        try holder.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)")
        try withExtendedLifetime(holder) {
            #expect(!FileManager.default.fileExists(atPath: path + "-shm"), "exclusive mode keeps the WAL index in memory")
            let run = try StewardProcess.run(["inspect", path])
            #expect(run.status == 75, "\(run.stderr)")
            #expect(run.stderr.contains("is in use"))
            #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        }
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
        let output = Pipe()
        writer.standardOutput = output
        writer.standardError = FileHandle.nullDevice
        try writer.run()
        // The CLI then waits for more input, inside its transaction.
        input.fileHandleForWriting.write(Data("PRAGMA cache_size = 5;\nBEGIN;\nUPDATE t SET payload = upper(payload) || 'x';\nSELECT 'ready';\n".utf8))
        // 'ready' comes back once the UPDATE has finished, its changes spilled into the file.
        var answer = ""
        while !answer.contains("ready") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            answer += String(decoding: chunk, as: UTF8.self)
        }
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
            // The lower bound is the point; the upper one allows for a loaded machine.
            #expect(elapsed >= 0.9 && elapsed < 8, "\(extra): gave up after \(elapsed) s")
        }
    }
}

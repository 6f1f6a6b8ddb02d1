import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `steward backup` on real files: the bundle, refusals, and the faults a backup must
/// survive (locked source, unwritable directory, kill -9, full disk, signals). Each test
/// has its own directory; the bundle directory is `out` inside it.
@Suite struct BackupCommandTests: WorkspaceSuite {
    static let nobody: UInt32 = 65534

    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "tickets.sqlite", making: [.out]) }

    func backup(_ extra: [String] = [], environment: [String: String] = [:], asUser uid: UInt32? = nil) throws -> StewardRun {
        try StewardProcess.run(["backup", "--db", database, "--out", out] + extra, asUser: uid, environment: environment)
    }

    func outContents() throws -> [String] {
        try directory.contents(of: "out")
    }

    /// The files in this run's temporary workspaces in the output directory.
    func outTemporaries() throws -> [String] {
        try outContents().filter { $0.hasPrefix(".steward-tmp-") }.flatMap { (try? directory.contents(of: "out/" + $0)) ?? [] }
    }

    /// A database of about `megabytes` MiB of random, incompressible blobs.
    func makeBlobDatabase(megabytes: Double, path: String? = nil) throws {
        let connection = try Connection(path: path ?? database)
        let rows = Int(megabytes * 1024 * 1024 / 8000)
        try connection.execute(sql: """
            CREATE TABLE blob(id INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO blob(bytes) SELECT randomblob(8000) FROM n;
            PRAGMA user_version = 3;
            """)
    }

    /// A database of compressible text, slow to compress at level 19.
    func makeTextDatabase(megabytes: Int) throws {
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE note(id INTEGER PRIMARY KEY, text TEXT NOT NULL);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(megabytes * 4000))
            INSERT INTO note(text) SELECT printf('%d %s %s', i, hex(randomblob(40)), substr('the printer on floor three is jammed again after the update of the driver', 1 + i % 50)) FROM n;
            """)
    }

    /// A database of one page and a bundle with one foreign-key violation are said in the
    /// singular in backup's, inspect's and restore's text ("1 page", "1 foreign key
    /// violation", "1 byte" apart).
    @Test func oneOfAnythingIsSaidInTheSingular() throws {
        try Connection(path: database).execute(sql: "PRAGMA user_version = 3")
        #expect(try DatabaseHeader(bytes: Array(try #require(FileManager.default.contents(atPath: database)).prefix(100))).pageCount == 1)
        let made = try backup(["--name", "one.tar.zst"])
        #expect(made.status == 0, "\(made.allOutput)")
        #expect(made.stdout.contains("1 page of 4096 bytes"), "\(made.stdout)")
        let inspect = try StewardProcess.run(["inspect", out + "/one.tar.zst"])
        #expect(inspect.stdout.contains("1 page of 4096 bytes"), "\(inspect.stdout)")
        let restore = try StewardProcess.run(["restore", out + "/one.tar.zst", "--check-only"])
        #expect(restore.status == 0, "\(restore.allOutput)")
        #expect(restore.stdout.contains("4096 bytes = 1 page of 4096 bytes"), "\(restore.stdout)")
        #expect(restore.stdout.contains("1 page of 4096 bytes, as in the manifest"), "\(restore.stdout)")

        let orphan = directory.file("orphan.sqlite")
        try Connection(path: orphan).execute(sql: """
            CREATE TABLE customer(id INTEGER PRIMARY KEY);
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id));
            INSERT INTO ticket VALUES (1, 42);
            """)
        let kept = try StewardProcess.run(["backup", "--db", orphan, "--out", out, "--as-is"])
        #expect(kept.status == 0, "\(kept.allOutput)")
        #expect(kept.stdout.contains("1 foreign key violation,"), "\(kept.stdout)")
        for run in [made, inspect, restore, kept] {
            #expect(run.allOutput.range(of: #"\b1 (pages|bytes|foreign key violations|checks|rows|statements)\b"#, options: .regularExpression) == nil,
                    "\(run.allOutput)")
        }
    }

    // MARK: - The bundle

    @Test func bundlePassesSha256sumAfterSystemTarAndHoldsTheSameDatabase() throws {
        let titles = ["Printer is on fire", "Café au lait spilled", "客户工单搜索", "quote \" and 'apostrophe'"]
        try Fixtures.makeExampleDatabase(at: database, titles: titles)
        let run = try backup(["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "no progress when stderr is not a terminal")
        let report = try run.json()
        let bundlePath = try #require((report["bundle"] as? [String: Any])?["path"] as? String)
        let name = (bundlePath as NSString).lastPathComponent
        #expect(try outContents() == [name], "only the bundle is left")
        for title in titles { #expect(!run.allOutput.contains(title), "no row data in the output") }

        let extracted = directory.file("extracted")
        try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
        #expect(try systemTool(["tar", "-xf", bundlePath, "-C", extracted]).status == 0)
        let check = try systemTool(["sha256sum", "-c", "manifest-sha256.txt"], in: extracted)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output == "data/tickets.sqlite: OK\n")
        #expect(try systemTool(["tar", "-tf", bundlePath]).output == "manifest.json\nmanifest-sha256.txt\ndata/tickets.sqlite\n")

        let copy = extracted + "/data/tickets.sqlite"
        #expect(try DatabaseState(path: copy) == DatabaseState(path: database))
        let header = try #require(FileManager.default.contents(atPath: copy))
        #expect(Array(header[18...19]) == [1, 1], "rollback journal")
        #expect(try FileManager.default.contentsOfDirectory(atPath: extracted + "/data") == ["tickets.sqlite"], "no -wal, no -shm")

        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: extracted + "/manifest.json"))) as? [String: Any])
        #expect(manifest["formatVersion"] as? Int == 1)
        #expect((manifest["source"] as? [String: Any])?["userVersion"] as? Int == 2)
        #expect((manifest["source"] as? [String: Any])?["fileName"] as? String == "tickets.sqlite")
        #expect((manifest["checks"] as? [String: Any])?["integrityCheck"] as? String == "ok")
        #expect((manifest["snapshot"] as? [String: Any])?["restarts"] as? Int == 0)
        let files = try #require(manifest["files"] as? [[String: Any]])
        #expect(files.count == 1)
        #expect(files.first?["path"] as? String == "data/tickets.sqlite")
        #expect(files.first?["size"] as? Int == header.count)
        #expect(report["manifest"] as? NSDictionary == manifest as NSDictionary, "the report carries the manifest as written")

        let bundleHash = try systemTool(["sha256sum", bundlePath]).output.prefix(64)
        #expect((report["bundle"] as? [String: Any])?["sha256"] as? String == String(bundleHash))
    }

    @Test func defaultNameCarriesTheDatabaseUserVersionAndUTCTime() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let run = try backup()
        #expect(run.status == 0, "\(run.stderr)")
        let names = try outContents()
        #expect(names.count == 1)
        let name = try #require(names.first)
        #expect(name.wholeMatch(of: /tickets-v2-\d{8}T\d{6}Z\.tar\.zst/) != nil, "\(name)")
        #expect(run.stdout.contains("Bundle      \(out)/\(name)"), "\(run.stdout)")
        #expect(run.stdout.contains("integrity_check ok"))
    }

    @Test func walSourceWithCommitsOnlyInTheWalIsCopiedWhole() throws {
        let writer = try Fixtures.makeExampleDatabase(at: database, journalMode: "wal")
        try writer.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        for index in 0..<50 {
            try writer.execute(sql: "INSERT INTO ticket(title) VALUES (?)", bindings: [.text("only in the wal \(index)")])
        }
        #expect(FileManager.default.fileExists(atPath: database + "-wal"))
        let run = try backup(["--json", "--name", "wal.tar.zst"])
        #expect(run.status == 0, "\(run.stderr)")
        let manifest = try #require(try run.json()["manifest"] as? [String: Any])
        #expect((manifest["source"] as? [String: Any])?["journalMode"] as? String == "wal")
        // Part of a WAL database is in its -wal: the online backup API copies it, in its steps.
        #expect((manifest["snapshot"] as? [String: Any])?["pagesPerStep"] as? Int == 4096, "\(manifest)")
        let contents = try BundleContents(reading: out + "/wal.tar.zst", extractingInto: directory.path)
        #expect(try DatabaseState(path: contents.databasePath) == DatabaseState(path: database))
        let bytes = try #require(FileManager.default.contents(atPath: contents.databasePath))
        #expect(Array(bytes[18...19]) == [1, 1])
        #expect(try Connection(path: contents.databasePath).integer(sql: "SELECT count(*) FROM ticket") == 52)
    }

    /// A rollback-journal source is copied whole by the kernel (one 64 MiB chunk here),
    /// byte for byte, and cut to its pages: bytes a file holds past its last page are no
    /// part of the database, and restore refuses a payload that is not exactly its pages.
    @Test func rollbackJournalSourceIsCopiedByTheKernelAndCutToItsPages() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let original = try #require(FileManager.default.contents(atPath: database))
        let handle = try #require(FileHandle(forWritingAtPath: database))
        handle.seekToEndOfFile()
        handle.write(Data(repeating: 0x5A, count: 3000))
        try handle.close()
        let run = try backup(["--json", "--name", "kernel.tar.zst"])
        #expect(run.status == 0, "\(run.stderr)")
        let manifest = try #require(try run.json()["manifest"] as? [String: Any])
        let snapshot = try #require(manifest["snapshot"] as? [String: Any])
        #expect(snapshot["steps"] as? Int == 1, "\(snapshot)")
        #expect(snapshot["pagesPerStep"] as? Int == (64 << 20) / 4096, "\(snapshot)")
        #expect(snapshot["restarts"] as? Int == 0)
        let contents = try BundleContents(reading: out + "/kernel.tar.zst", extractingInto: directory.path)
        let payload = try #require(FileManager.default.contents(atPath: contents.databasePath))
        #expect(payload == original, "the payload is the source's pages, byte for byte")
        let restored = try StewardProcess.run(["restore", "--check-only", out + "/kernel.tar.zst"])
        #expect(restored.status == 0, "\(restored.allOutput)")
    }

    /// The payload is compressed behind the kernel copy; when that copy fails after the
    /// compression has read it, the online backup API copies the source again and the
    /// payload is compressed again, from the start: one payload in the bundle, the source's.
    @Test func aKernelCopyThatFailsIsCopiedAndCompressedAgain() throws {
        try Fixtures.makeExampleDatabase(at: database)
        // 6 MiB that zstd cannot shrink: compressed bytes reach the frame before the
        // kernel copy is made to fail.
        try Connection(path: database).execute(sql: """
            CREATE TABLE filler(b BLOB);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 1536)
            INSERT INTO filler SELECT randomblob(4000) FROM c;
            """)
        let original = try #require(FileManager.default.contents(atPath: database))
        let run = try backup(["--json", "--name", "again.tar.zst"], environment: ["STEWARD_TEST_HOOK_KERNEL_COPY_FAILS": "1"])
        #expect(run.status == 0, "\(run.stderr)")
        let manifest = try #require(try run.json()["manifest"] as? [String: Any])
        let snapshot = try #require(manifest["snapshot"] as? [String: Any])
        #expect(snapshot["pagesPerStep"] as? Int == 4096, "the online backup API made the copy: \(snapshot)")
        let contents = try BundleContents(reading: out + "/again.tar.zst", extractingInto: directory.path)
        let payload = try #require(FileManager.default.contents(atPath: contents.databasePath))
        // The online backup API sets the header's change counters: every page past the
        // 100-byte header is the source's, once.
        #expect(payload.count == original.count)
        #expect(payload.dropFirst(100) == original.dropFirst(100))
        let restored = try StewardProcess.run(["restore", "--check-only", out + "/again.tar.zst"])
        #expect(restored.status == 0, "\(restored.allOutput)")
        #expect(try outContents() == ["again.tar.zst"])
    }

    /// stderr of a backup run under a pseudo-terminal (`script`), stdout discarded.
    func stderrOnATerminal(_ extra: String) throws -> String {
        let command = "'\(StewardProcess.executable.path)' backup --db '\(database)' --out '\(out)' \(extra) > /dev/null"
        return try systemTool(["script", "-qec", command, "/dev/null"]).output
    }

    @Test func progressOnlyOnATerminalAndNeverWithQuiet() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let shown = try stderrOnATerminal("--name a.tar.zst")
        #expect(shown.contains("copying 7 of 7 pages (100%)"), "\(shown)")
        #expect(shown.contains("compressing the copy"), "\(shown)")
        #expect(shown.hasSuffix("\r\u{1B}[2K"), "the progress line is cleared at the end")
        let quiet = try stderrOnATerminal("--name b.tar.zst --quiet")
        #expect(quiet.isEmpty, "\(quiet)")
        #expect(try outContents() == ["a.tar.zst", "b.tar.zst"])
    }

    // MARK: - Refusals

    @Test func anExistingTargetIsNeverReplaced() throws {
        try Fixtures.makeExampleDatabase(at: database)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: out + "/keep.tar.zst"))
        let run = try backup(["--name", "keep.tar.zst", "--json"])
        #expect(run.status == 73)
        #expect(run.stderr.contains("already exists"))
        #expect(try run.json()["exitCode"] as? Int == 73)
        #expect(FileManager.default.contents(atPath: out + "/keep.tar.zst") == Data("precious".utf8))
        #expect(try outContents() == ["keep.tar.zst"])
    }

    @Test func missingDatabaseExits66() throws {
        let run = try backup()
        #expect(run.status == 66)
        #expect(run.stderr.contains(database))
        #expect(try outContents().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: database), "nothing is created")
    }

    @Test func notADatabaseExits65() throws {
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: database))
        let run = try backup()
        #expect(run.status == 65)
        #expect(run.stderr.contains("not a SQLite database"))
        #expect(try outContents().isEmpty)
    }

    @Test func emptyFileExits65() throws {
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        let run = try backup()
        #expect(run.status == 65)
        #expect(run.stderr.contains("empty"))
        #expect(try outContents().isEmpty)
    }

    @Test func missingOutputDirectoryExits73() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let run = try StewardProcess.run(["backup", "--db", database, "--out", directory.file("nowhere")])
        #expect(run.status == 73)
        #expect(run.stderr.contains("does not exist"))
    }

    @Test(arguments: [["--name", "a/b.tar.zst"], ["--name", ".hidden.tar.zst"], ["--name", "backup.zip"],
                      ["--level", "0"], ["--level", "20"], ["--timeout", "soon"], ["--pages-per-step", "0"]])
    func badOptionValuesAreUsageErrors(arguments: [String]) throws {
        try Fixtures.makeExampleDatabase(at: database)
        let run = try backup(arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("Usage: steward backup"))
        #expect(try outContents().isEmpty)
    }

    @Test func usageErrorsAreThreeLinesWithASuggestion() throws {
        let run = try StewardProcess.run(["backup", "--db", database, "--out", out, "--levle", "3"])
        #expect(run.status == 64)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "Error: Unknown option '--levle'. Did you mean '--level'?")
        #expect(lines.dropFirst().first?.hasPrefix("Usage: steward backup [--db <path> ...] --out <dir>") == true)
        #expect(lines.count == 3)
        let missing = try StewardProcess.run(["backup", "--out", out])
        #expect(missing.status == 64)
        #expect(missing.stderr.hasPrefix("Error: Missing expected argument '--db <path>'"), "\(missing.stderr)")
    }

    @Test func aCopyThatFailsItsChecksIsNotPublished() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE comment(id INTEGER PRIMARY KEY, ticket_id INTEGER NOT NULL REFERENCES ticket(id));
            INSERT INTO comment(ticket_id) VALUES (1), (999);
            """)
        let run = try backup()
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("refusing to publish"))
        #expect(run.stderr.contains("foreign-keys: comment → ticket: 1"), "\(run.stderr)")
        #expect(try outContents().isEmpty)
    }

    // MARK: - Faults

    @Test func writeLockHeldPastTheTimeoutExits75InTimeAndLeavesNothing() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let holder = try Connection(path: database)
        // In rollback-journal mode only an EXCLUSIVE lock keeps readers out.
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        defer { holder.rollbackIfNeeded() }
        let started = Date()
        let run = try backup(["--timeout", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 75, "\(run.stderr)")
        #expect(run.stderr.contains("locked by another connection; gave up after 1 s"), "\(run.stderr)")
        #expect(elapsed < 3, "gave up after \(elapsed) s")
        #expect(try outContents().isEmpty)
    }

    @Test func unwritableOutputDirectoryExits73AndLeavesNothing() throws {
        try Fixtures.makeExampleDatabase(at: database)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: database)
        let run = try backup(asUser: Self.nobody)
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("Permission denied"), "\(run.stderr)")
        #expect(try outContents().isEmpty)
        #expect(try directory.contents() == ["out", "tickets.sqlite"], "nothing beside the source either")
    }

    @Test func walDatabaseInAReadOnlyDirectoryWithoutItsSideFilesExits66() throws {
        // No -wal and no -shm, and no way to create them: SQLite cannot pin a snapshot.
        let sub = directory.file("sub")
        try FileManager.default.createDirectory(atPath: sub, withIntermediateDirectories: true)
        let path = sub + "/tickets.sqlite"
        do { try Fixtures.makeExampleDatabase(at: path, journalMode: "wal") }
        #expect(try directory.contents(of: "sub") == ["tickets.sqlite"])
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: sub)
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: out)
        let run = try StewardProcess.run(["backup", "--db", path, "--out", out], asUser: Self.nobody)
        #expect(run.status == 66, "\(run.stderr)")
        #expect(run.stderr.contains("WAL mode"), "\(run.stderr)")
        #expect(try outContents().isEmpty)
        #expect(try directory.contents(of: "sub") == ["tickets.sqlite"])
    }

    /// Starts a backup slow enough to be caught in the middle: level 19 on text.
    func launchSlowBackup(name: String) throws -> RunningSteward {
        try makeTextDatabase(megabytes: 24)
        let running = try StewardProcess.launch(["backup", "--db", database, "--out", out, "--name", name, "--level", "19"])
        // Wait until the payload is being compressed (while the copy is checked).
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, !(try outTemporaries().contains { $0.hasSuffix(".payload.zst") }) {
            Thread.sleep(forTimeInterval: 0.01)
        }
        Thread.sleep(forTimeInterval: 0.3)
        return running
    }

    @Test func killedMidBackupLeavesOnlyTemporariesAndTheNextRunRemovesThem() throws {
        let running = try launchSlowBackup(name: "first.tar.zst")
        running.send(SIGKILL)
        let killed = running.finish(timeout: 10)
        #expect(killed.status != 0)
        let left = try outContents()
        #expect(!left.contains("first.tar.zst"), "no file under a final name")
        #expect(left.count == 1 && left.allSatisfy { $0.hasPrefix(".steward-tmp-") }, "one workspace: \(left)")

        let next = try backup(["--json", "--name", "second.tar.zst"])
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try next.json()["staleTemporariesRemoved"] as? [String] == left)
        #expect(try outContents() == ["second.tar.zst"])
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func signalMidBackupExits130AndLeavesNothing(signal: Int32) throws {
        let running = try launchSlowBackup(name: "b.tar.zst")
        running.send(signal)
        let run = running.finish(timeout: 20)
        #expect(run.status == 130, "\(run.stderr)")
        #expect(run.stderr.contains("interrupted"))
        #expect(try outContents().isEmpty)
    }

    @Test func signalWhileWaitingForALockExits130Promptly() throws {
        try Fixtures.makeExampleDatabase(at: database)
        let holder = try Connection(path: database)
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        defer { holder.rollbackIfNeeded() }
        let running = try StewardProcess.launch(["backup", "--db", database, "--out", out, "--timeout", "60"])
        Thread.sleep(forTimeInterval: 0.5)
        let started = Date()
        running.send(SIGTERM)
        let run = running.finish(timeout: 20)
        #expect(run.status == 130, "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(try outContents().isEmpty)
    }

    // MARK: - Full disk

    @Test(.enabled(if: SmallFileSystem.canMount, "a full disk needs a small tmpfs"))
    func diskFullWhileCopyingExits74AndLeavesNothing() throws {
        try makeBlobDatabase(megabytes: 3)
        #expect(try SmallFileSystem.mount(at: out))
        defer { SmallFileSystem.unmount(out) }
        let run = try backup()
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("no space left"), "\(run.stderr)")
        #expect(try outContents().isEmpty)
    }

    @Test func diskFullWhileBundlingExits74AndLeavesNothing() throws {
        // The copy (1.2 MiB of random bytes) fits in 2 MiB; copy and bundle together do not.
        try makeBlobDatabase(megabytes: 1.2)
        var environment: [String: String] = [:]
        // Where no tmpfs can be mounted, the same failure is injected.
        let mounted = try SmallFileSystem.mount(at: out)
        defer { if mounted { SmallFileSystem.unmount(out) } }
        if !mounted {
            environment["STEWARD_TEST_HOOK_BUNDLE_ENOSPC_AFTER_BYTES"] = "500000"
        }
        let run = try backup(environment: environment)
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")
        #expect(try outContents().isEmpty)
    }

    @Test func injectedWriteFailureExits74AndLeavesNothing() throws {
        try makeBlobDatabase(megabytes: 1)
        let run = try backup(environment: ["STEWARD_TEST_HOOK_BUNDLE_ENOSPC_AFTER_BYTES": "100000"])
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")
        #expect(try outContents().isEmpty)
    }
}

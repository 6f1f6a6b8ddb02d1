import ArchiveKit
import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `steward restore` on real files: round trips, refusals of hostile bundles, the target
/// directory's rules, signals. Each test has its own directory; the bundle is made there by
/// `steward backup` and restored into `restored` beside it.
@Suite struct RestoreCommandTests {
    static let nobody: UInt32 = 65534
    static let titles = ["Printer is on fire", "Café au lait spilled", "客户工单搜索"]

    let directory: TemporaryDirectory
    var database: String { directory.file("tickets.sqlite") }
    var into: String { directory.file("restored") }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The example database backed up by the binary into `bundles/NAME`.
    func makeBundle(_ name: String = "tickets.tar.zst", journalMode: String = "delete") throws -> String {
        try Fixtures.makeExampleDatabase(at: database, titles: Self.titles, journalMode: journalMode)
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let run = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", name, "--quiet"])
        try #require(run.status == 0, "\(run.stderr)")
        return out + "/" + name
    }

    func restore(_ bundle: String, into: String? = nil, _ extra: [String] = [], asUser uid: UInt32? = nil) throws -> StewardRun {
        try StewardProcess.run(["restore", bundle, "--into", into ?? self.into] + extra, asUser: uid)
    }

    /// The payload of `bundle` as the system `tar` extracts it.
    func payloadBySystemTar(_ bundle: String) throws -> String {
        let extracted = directory.file("tar-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
        let tar = try systemTool(["tar", "-xf", bundle, "-C", extracted])
        try #require(tar.status == 0, "\(tar.output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: extracted + "/data")
        return extracted + "/data/" + (try #require(names.first))
    }

    // MARK: - Round trips

    @Test func theExampleDatabaseRoundTrips() throws {
        let bundle = try makeBundle()
        let run = try restore(bundle, ["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.isEmpty, "no progress when stderr is not a terminal")
        let report = try run.json()
        #expect(report["command"] as? String == "restore")
        #expect(report["published"] as? Bool == true)
        #expect((report["database"] as? [String: Any])?["path"] as? String == into + "/data/tickets.sqlite")
        #expect(report["walConverted"] as? Bool == false)
        let checks = try #require(report["checks"] as? [[String: Any]])
        #expect(checks.count == 15)
        #expect(checks.allSatisfy { $0["status"] as? String == "pass" && $0["durationSeconds"] is Double })
        let files = try #require(report["files"] as? [[String: Any]])
        #expect(files.first?["matches"] as? Bool == true)
        #expect((report["manifest"] as? [String: Any])?["formatVersion"] as? Int == 1)

        #expect(try directory.contents() == ["bundles", "restored", "tickets.sqlite"])
        #expect(try directory.contents(of: "restored") == ["data", "manifest-sha256.txt", "manifest.json"])
        #expect(try directory.contents(of: "restored/data") == ["tickets.sqlite"], "no -wal, -shm or -journal")
        let restored = into + "/data/tickets.sqlite"
        #expect(FileManager.default.contents(atPath: restored) == FileManager.default.contents(atPath: try payloadBySystemTar(bundle)))
        #expect(try DatabaseState(path: restored) == DatabaseState(path: database))
        let check = try systemTool(["sha256sum", "-c", "manifest-sha256.txt"], in: into)
        #expect(check.status == 0 && check.output == "data/tickets.sqlite: OK\n", "\(check.output)")
        for title in Self.titles { #expect(!run.allOutput.contains(title), "no row data in the output") }
    }

    @Test func theTextReportShowsEveryCheckAndTheFinalPath() throws {
        let bundle = try makeBundle()
        let run = try restore(bundle)
        #expect(run.status == 0, "\(run.stderr)")
        for name in ["sha256", "header", "payload-size", "journal-mode", "integrity", "foreign-keys", "version",
                     "application-id", "page-count", "tables", "fts-sync", "read-write-probe", "side-files"] {
            #expect(run.stdout.contains("  pass  \(name) "), "\(name) in \(run.stdout)")
        }
        #expect(run.stdout.contains("Restored    \(into)/data/tickets.sqlite"))
        #expect(run.stdout.contains("sha256 "))
        for title in Self.titles { #expect(!run.allOutput.contains(title), "no row data in the output") }
    }

    @Test func aWALDatabaseWrittenDuringTheBackupRoundTrips() throws {
        try BatchWriter.createSchema(at: database, journalMode: "wal")
        let writer = BatchWriter(path: database)
        writer.start()
        while writer.committedSoFar < 100 { Thread.sleep(forTimeInterval: 0.005) }
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "live.tar.zst", "--pages-per-step", "4"])
        let committed = try writer.stop()
        try #require(backup.status == 0, "\(backup.stderr)")

        let bundle = out + "/live.tar.zst"
        let run = try restore(bundle, ["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let restored = into + "/data/tickets.sqlite"
        let snapshot = try payloadBySystemTar(bundle)
        #expect(try DatabaseState(path: restored) == DatabaseState(path: snapshot), "the same tables and rows as the snapshot")
        let connection = try Connection(path: restored, mode: [.readOnly])
        let batches = try connection.integer(sql: "SELECT count(*) FROM batch")
        #expect(batches >= 100 && batches <= committed)
        #expect(try connection.integer(sql: """
            SELECT count(*) FROM batch WHERE expected != (SELECT count(*) FROM line WHERE line.batch_id = batch.id)
            """) == 0, "whole batches only")
        let bytes = try #require(FileManager.default.contents(atPath: restored))
        #expect(Array(bytes[18...19]) == [1, 1])
        #expect(try directory.contents(of: "restored/data") == ["tickets.sqlite"])
    }

    @Test func anEmptyExistingDirectoryIsFilled() throws {
        let bundle = try makeBundle()
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: false)
        let run = try restore(bundle + "", into: into + "/")
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try directory.contents(of: "restored") == ["data", "manifest-sha256.txt", "manifest.json"])
    }

    // MARK: - The target directory

    @Test func aNonEmptyDirectoryExits73AndIsLeftAlone() throws {
        let bundle = try makeBundle()
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: false)
        try Data("precious".utf8).write(to: URL(fileURLWithPath: into + "/keep"))
        let run = try restore(bundle, ["--json"])
        #expect(run.status == 73)
        #expect(run.stderr.contains("is not empty"), "\(run.stderr)")
        #expect(try run.json()["exitCode"] as? Int == 73)
        #expect(try directory.contents(of: "restored") == ["keep"])
        #expect(try directory.contents() == ["bundles", "restored", "tickets.sqlite"])
    }

    @Test func aTargetThatIsAFileOrHasNoParentExits73() throws {
        let bundle = try makeBundle()
        try Data("x".utf8).write(to: URL(fileURLWithPath: into))
        #expect(try restore(bundle).status == 73)
        let orphan = try restore(bundle, into: directory.file("missing/restored"))
        #expect(orphan.status == 73)
        #expect(orphan.stderr.contains("does not exist"), "\(orphan.stderr)")
        #expect(try directory.contents() == ["bundles", "restored", "tickets.sqlite"])
    }

    @Test func anUnwritableParentExits73AndNothingIsCreated() throws {
        let bundle = try makeBundle()
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: bundle)
        let parent = directory.file("locked")
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: false)
        let run = try restore(bundle, into: parent + "/restored", asUser: Self.nobody)
        #expect(run.status == 73, "\(run.stderr)")
        #expect(run.stderr.contains("Permission denied"), "\(run.stderr)")
        #expect(try directory.contents(of: "locked").isEmpty)
    }

    @Test func aMissingBundleExits66AndADirectoryExits65() throws {
        let missing = try restore(directory.file("nope.tar.zst"))
        #expect(missing.status == 66)
        #expect(missing.stderr.contains("no such bundle"))
        try FileManager.default.createDirectory(atPath: directory.file("dir.tar.zst"), withIntermediateDirectories: false)
        #expect(try restore(directory.file("dir.tar.zst")).status == 65)
        #expect(try directory.contents() == ["dir.tar.zst"])
    }

    @Test(arguments: [[], ["--into"], ["--into", ""], ["b.tar.zst", "--into", "x", "--intoo", "y"]])
    func usageErrorsExit64(arguments: [String]) throws {
        let run = try StewardProcess.run(["restore"] + arguments)
        #expect(run.status == 64, "\(run.stderr)")
        #expect(run.stderr.contains("Usage: steward restore"), "\(run.stderr)")
    }

    // MARK: - Signals and killed runs

    /// A bundle of about 96 MiB of random blobs in `large/`, slow enough to be caught
    /// in the middle; returns its path and the payload's size.
    func makeLargeBundle() throws -> (path: String, payloadSize: Int64) {
        let large = directory.file("large")
        try FileManager.default.createDirectory(atPath: large, withIntermediateDirectories: true)
        let database = large + "/blobs.sqlite"
        do {
            let connection = try Connection(path: database)
            try connection.execute(sql: """
                CREATE TABLE blob(id INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 12000)
                INSERT INTO blob(bytes) SELECT randomblob(8000) FROM n;
                """)
        }
        let run = try StewardProcess.run(["backup", "--db", database, "--out", large, "--name", "large.tar.zst", "--quiet"])
        try #require(run.status == 0, "\(run.stderr)")
        let size = try #require(FileManager.default.attributesOfItem(atPath: database)[.size] as? Int)
        return (large + "/large.tar.zst", Int64(size))
    }

    /// Starts restoring `bundle` and returns once `condition` holds for the staging
    /// directory (or after 20 s).
    func launchRestore(of bundle: String, until condition: (String) -> Bool) throws -> RunningSteward {
        let running = try StewardProcess.launch(["restore", bundle, "--into", into])
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let workspace = try directory.contents().first(where: { $0.contains(".steward-restore-") }),
               condition(directory.file(workspace + "/tree")) {
                break
            }
            usleep(200)
        }
        return running
    }

    func payloadSize(in staging: String) -> Int64 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: staging + "/data/blobs.sqlite")
        return Int64((attributes?[.size] as? Int) ?? -1)
    }

    /// SIGINT while the payload is being extracted; SIGTERM once it is all there, while the
    /// checks run.
    @Test(arguments: [(SIGINT, "SIGINT", false), (SIGTERM, "SIGTERM", true)])
    func aSignalWhileExtractingOrCheckingExits130AndLeavesNothing(signal: Int32, name: String, whileChecking: Bool) throws {
        let large = try makeLargeBundle()
        let running = try launchRestore(of: large.path) {
            whileChecking ? payloadSize(in: $0) == large.payloadSize : payloadSize(in: $0) > 0
        }
        running.send(signal)
        let run = running.finish(timeout: 30)
        #expect(run.status == 130, "\(run.stderr)")
        #expect(run.stderr.contains("interrupted by \(name)"), "\(run.stderr)")
        #expect(try directory.contents() == ["large"], "no staging directory, no target")
    }

    @Test func aKilledRunLeavesOnlyItsStagingDirectoryAndTheNextRunRemovesIt() throws {
        let large = try makeLargeBundle()
        let running = try launchRestore(of: large.path) { payloadSize(in: $0) > 0 }
        running.send(SIGKILL)
        _ = running.finish(timeout: 30)
        let left = try directory.contents().filter { $0 != "large" }
        #expect(left.count == 1 && left.allSatisfy { $0.hasPrefix(".restored.steward-restore-") }, "\(left)")

        let bundle = try makeBundle()
        let run = try restore(bundle, into: directory.file("again"), ["--json"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try run.json()["staleStagingRemoved"] as? [String] == left)
        #expect(try directory.contents() == ["again", "bundles", "large", "tickets.sqlite"])
    }

    // MARK: - Full disk

    /// A bundle of `megabytes` MiB of random blobs in `blobs/`.
    func makeBlobBundle(megabytes: Double) throws -> String {
        let blobs = directory.file("blobs")
        try FileManager.default.createDirectory(atPath: blobs, withIntermediateDirectories: true)
        do {
            let connection = try Connection(path: blobs + "/blobs.sqlite")
            try connection.execute(sql: """
                CREATE TABLE blob(id INTEGER PRIMARY KEY, bytes BLOB NOT NULL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(Int(megabytes * 131)))
                INSERT INTO blob(bytes) SELECT randomblob(8000) FROM n;
                """)
        }
        let run = try StewardProcess.run(["backup", "--db", blobs + "/blobs.sqlite", "--out", blobs, "--name", "b.tar.zst", "--quiet"])
        try #require(run.status == 0, "\(run.stderr)")
        return blobs + "/b.tar.zst"
    }

    @Test(.enabled(if: SmallFileSystem.canMount, "a full disk needs a small tmpfs"), arguments: [3.0])
    func aFullDiskExits74AndLeavesNothing(megabytes: Double) throws {
        // 3 MiB do not fit at all. (The read-write probe makes no copy any more: what
        // fits once fits with the probe's few journal pages.)
        let bundle = try makeBlobBundle(megabytes: megabytes)
        #expect(try SmallFileSystem.mount(at: directory.file("small")))
        defer { SmallFileSystem.unmount(directory.file("small")) }
        let run = try restore(bundle, into: directory.file("small/restored"))
        #expect(run.status == 74, "\(run.stderr)")
        #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")
        #expect(try directory.contents(of: "small").isEmpty)
    }

    /// A disk that runs out at each page in turn, from the payload's last page to past
    /// what the read-write probe's journal needs: every run either publishes or exits 74
    /// leaving nothing, and one of them runs out in the probe's journal, which ends the
    /// restore with 74 and says so (steward-restore(1), "read-write probe"), instead of
    /// reporting the probe as failed.
    @Test(.enabled(if: SmallFileSystem.canMount, "a full disk needs a small tmpfs"))
    func noRoomForTheProbesJournalExits74AndLeavesNothing() throws {
        let bundle = try makeBundle()
        let size = try #require(FileManager.default.attributesOfItem(atPath: database)[.size] as? Int)
        let pages = (size + 4095) / 4096
        let small = directory.file("small")
        var outcomes: [String] = []
        var probeRanOut = false
        var published = false
        // From the payload's pages alone to 10 pages more: the manifest and its checksum
        // list take a page each, the probe's journal a 4 KiB header and a record per page.
        for extra in 0...10 {
            let kilobytes = (pages + extra) * 4
            try #require(try SmallFileSystem.mount(at: small, kilobytes: kilobytes))
            defer { SmallFileSystem.unmount(small) }
            let run = try restore(bundle, into: small + "/restored")
            outcomes.append("\(kilobytes) KiB: \(run.status)")
            if run.status == 0 {
                published = true
                #expect(try directory.contents(of: "small") == ["restored"])
                continue
            }
            #expect(run.status == 74, "\(kilobytes) KiB: \(run.stderr)")
            #expect(run.stderr.contains("No space left on device"), "\(kilobytes) KiB: \(run.stderr)")
            #expect(try directory.contents(of: "small").isEmpty, "\(kilobytes) KiB: nothing is left behind")
            if run.stderr.contains("no room left in") && run.stderr.contains("for the read-write probe's journal") {
                probeRanOut = true
            }
            for title in Self.titles { #expect(!run.allOutput.contains(title), "no row data in the output") }
        }
        #expect(probeRanOut, "\(outcomes)")
        #expect(published, "with room enough the restore publishes: \(outcomes)")
    }

    // MARK: - Progress

    @Test func progressOnlyOnATerminalAndNeverWithQuiet() throws {
        let bundle = try makeBundle()
        func stderrOnATerminal(_ target: String, _ extra: String) throws -> String {
            let command = "'\(StewardProcess.executable.path)' restore '\(bundle)' --into '\(target)' \(extra) > /dev/null"
            return try systemTool(["script", "-qec", command, "/dev/null"]).output
        }
        let shown = try stderrOnATerminal(directory.file("a"), "")
        #expect(shown.contains("extracting and hashing: 100%"), "\(shown)")
        #expect(shown.contains("checking the database"), "\(shown)")
        #expect(shown.hasSuffix("\r\u{1B}[2K"), "the progress line is cleared at the end")
        let quiet = try stderrOnATerminal(directory.file("b"), "--quiet")
        #expect(quiet.isEmpty, "\(quiet)")
        #expect(try directory.contents() == ["a", "b", "bundles", "tickets.sqlite"])
    }
}

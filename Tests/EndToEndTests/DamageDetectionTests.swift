import ArchiveKit
import Foundation
import SQLiteKit
import Testing
import TestSupport

/// "Proven" when it was not: a row that violates a CHECK
/// constraint, a payload padded after its last page, damaged pages in an FTS5 shadow table.
@Suite struct DamageDetectionTests {
    let directory: TemporaryDirectory
    var database: String { directory.file("tickets.sqlite") }
    var into: String { directory.file("restored") }
    var bundles: String { directory.file("bundles") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("bundles"), withIntermediateDirectories: true)
    }

    func backup(_ path: String, name: String, _ extra: [String] = []) throws -> StewardRun {
        try StewardProcess.run(["backup", "--db", path, "--out", bundles, "--name", name, "--quiet"] + extra)
    }

    /// A healthy bundle of the example database, taken apart.
    func exampleParts() throws -> BundleParts {
        try Fixtures.makeExampleDatabase(at: database)
        let run = try backup(database, name: "good.tar.zst")
        try #require(run.status == 0, "\(run.stderr)")
        return try BundleParts(reading: bundles + "/good.tar.zst")
    }

    /// `parts` with `bytes` as the payload, the manifest telling the truth about it (as an
    /// attacker, or an older Steward, would write it).
    func bundle(_ parts: BundleParts, payload bytes: [UInt8], name: String) throws -> String {
        var parts = parts
        try parts.replaceDatabase(with: bytes)
        let path = bundles + "/" + name
        try parts.bundle(to: path)
        return path
    }

    func restore(_ bundle: String, _ extra: [String] = []) throws -> StewardRun {
        try StewardProcess.run(["restore", bundle, "--into", into, "--json"] + extra)
    }

    func check(_ run: StewardRun, _ name: String) throws -> [String: Any]? { try run.check(name) }

    // MARK: - CHECK constraints

    /// The example database with a row that violates a CHECK constraint, written as a
    /// migration with `PRAGMA ignore_check_constraints = ON` would.
    func makeCheckViolation(at path: String, journalMode: String = "delete") throws {
        let connection = try Fixtures.makeExampleDatabase(at: path, journalMode: journalMode)
        try connection.execute(sql: "PRAGMA ignore_check_constraints = ON")
        try connection.execute(sql: "INSERT INTO ticket(title, status) VALUES ('Secret title', 'bogus')")
        try connection.execute(sql: "PRAGMA ignore_check_constraints = OFF")
    }

    @Test func theSQLiteCLIReportsTheViolationThatSQLiteReadOnlyMisses() throws {
        try makeCheckViolation(at: database)
        let cli = try systemTool(["sqlite3", database, "PRAGMA integrity_check"])
        #expect(cli.output.contains("CHECK constraint failed"), "the reference: \(cli.output)")
        let readOnly = try Connection(path: "file:\(database)?mode=ro", mode: [.readOnly, .uri])
        #expect(try readOnly.integrityCheck() == ["ok"], "SQLite 3.40 read-only skips CHECK constraints")
    }

    @Test(arguments: ["delete", "wal"])
    func verifyFailsARowThatViolatesACheckConstraintAndLeavesTheFileAlone(journalMode: String) throws {
        // WAL: the database is closed, its -wal gone, so verify reads it immutable and
        // checks CHECK constraints on its private copy; rollback journal: in place.
        try makeCheckViolation(at: database, journalMode: journalMode)
        let before = try directory.contents()
        let bytes = FileManager.default.contents(atPath: database)
        let run = try StewardProcess.run(["verify", "--db", database, "--json"])
        #expect(run.status == 1, "\(run.stdout)")
        let integrity = try #require(try check(run, "integrity"))
        #expect(integrity["status"] as? String == "fail")
        #expect((integrity["details"] as? [String])?.contains { $0.contains("CHECK constraint failed in ticket") } == true, "\(integrity)")
        #expect(!run.allOutput.contains("Secret title"), "no row data")
        #expect(FileManager.default.contents(atPath: database) == bytes, "the file is not modified")
        #expect(try directory.contents() == before, "no -wal, -shm or -journal created")

        let quick = try StewardProcess.run(["verify", "--db", database, "--quick"])
        #expect(quick.status == 1, "\(quick.stdout)")
        #expect(FileManager.default.contents(atPath: database) == bytes)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run the binary as an unprivileged user"))
    func verifyOfAFileItCannotWriteChecksCheckConstraintsOnItsCopy() throws {
        // SQLite would open the file read-only without a word, and skip CHECK constraints.
        try makeCheckViolation(at: database)
        let bytes = FileManager.default.contents(atPath: database)
        let run = try StewardProcess.run(["verify", "--db", database, "--json"], asUser: 65534)
        #expect(run.status == 1, "\(run.allOutput)")
        let integrity = try #require(try check(run, "integrity"))
        #expect((integrity["details"] as? [String])?.contains { $0.contains("CHECK constraint failed in ticket") } == true, "\(integrity)")
        #expect(FileManager.default.contents(atPath: database) == bytes)
    }

    @Test func backupRefusesARowThatViolatesACheckConstraint() throws {
        try makeCheckViolation(at: database)
        let run = try backup(database, name: "bad.tar.zst")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("CHECK constraint failed"), "\(run.stderr)")
        #expect(try directory.contents(of: "bundles").isEmpty, "no bundle, no temporary")
    }

    @Test func restoreRefusesABundleHoldingARowThatViolatesACheckConstraint() throws {
        let parts = try exampleParts()
        let bad = directory.file("bad.sqlite")
        try makeCheckViolation(at: bad)
        let path = try bundle(parts, payload: Array(try #require(FileManager.default.contents(atPath: bad))), name: "bad.tar.zst")
        let run = try restore(path)
        #expect(run.status == 1, "\(run.stdout)")
        #expect(try run.json()["failedChecks"] as? [String] == ["integrity"])
        #expect(try check(run, "read-write-probe")?["status"] as? String == "skipped", "no copy of a refused file")
        #expect(!FileManager.default.fileExists(atPath: into))
        #expect(!run.allOutput.contains("Secret title"), "no row data")
    }

    // MARK: - A payload padded after its last page

    @Test(arguments: [false, true])
    func aPayloadLongerThanItsPagesIsRefusedBeforeAnyCopy(manifestCountsThePadding: Bool) throws {
        var parts = try exampleParts()
        let pageSize = 4096
        let padded = parts.payload + [UInt8](repeating: 0, count: 64 * pageSize)
        try parts.replacePayload(with: padded)
        if manifestCountsThePadding { parts.setSource("pageCount", padded.count / pageSize) }
        let path = bundles + "/padded.tar.zst"
        try parts.bundle(to: path)

        let run = try restore(path)
        #expect(run.status == 1, "\(run.stdout)")
        let report = try run.json()
        #expect(report["failedChecks"] as? [String] == ["payload-size"])
        let size = try #require(try check(run, "payload-size"))
        #expect((size["summary"] as? String)?.contains("\(padded.count) bytes") == true, "\(size)")
        let names = (report["checks"] as? [[String: Any]])?.compactMap { $0["name"] as? String }
        #expect(names == ["sha256", "header", "payload-size"], "refused before SQLite opens it or the probe copies it")
        #expect(!FileManager.default.fileExists(atPath: into))
        #expect(try directory.contents().sorted() == ["bundles", "tickets.sqlite"], "no staging left")
    }

    // MARK: - FTS5's own integrity-check

    /// The example database with the leaf block of its FTS5 index zeroed: every b-tree
    /// page is sound (integrity_check says ok), the index is not.
    func damageFTSIndex(_ path: String) throws {
        let connection = try Connection(path: path)
        try connection.execute(sql: "UPDATE ticket_fts_data SET block = zeroblob(length(block)) WHERE id = (SELECT max(id) FROM ticket_fts_data)")
        #expect(try connection.integrityCheck() == ["ok"])
    }

    /// A bundle of the example database with its FTS5 index damaged, as a Steward that ran
    /// the full-text check only with --check-fts published it without.
    func bundleWithDamagedFTS5Index() throws -> String {
        var parts = try exampleParts()
        try damageFTSIndex(database)
        try parts.replaceDatabase(with: Array(try #require(FileManager.default.contents(atPath: database))))
        parts.recordNoFullTextCheck()
        let path = bundles + "/fts.tar.zst"
        try parts.bundle(to: path)
        return path
    }

    @Test func restoreRefusesDamagedFTS5PagesThatPassIntegrityCheck() throws {
        let path = try bundleWithDamagedFTS5Index()

        let run = try restore(path)
        #expect(run.status == 1, "\(run.stdout)")
        #expect(try run.json()["failedChecks"] as? [String] == ["fts-sync"])
        #expect(try check(run, "integrity")?["status"] as? String == "pass")
        let fts = try #require(try check(run, "fts-sync"))
        #expect((fts["details"] as? [String])?.first?.hasPrefix("ticket_fts: the index is damaged") == true, "\(fts)")
        #expect(try run.json()["fts5CheckSkipped"] as? Bool == false)
        #expect(!FileManager.default.fileExists(atPath: into))

        let skipped = try restore(path, ["--skip-fts-check"])
        #expect(skipped.status == 0, "\(skipped.stdout)")
        #expect(try skipped.json()["fts5CheckSkipped"] as? Bool == true)
        #expect(try check(skipped, "fts-sync")?["status"] as? String == "skipped")
        try FileManager.default.removeItem(atPath: into)
        let text = try StewardProcess.run(["restore", path, "--into", into, "--skip-fts-check"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("skip  fts-sync"), "\(text.stdout)")
    }

    @Test(arguments: [[], ["--check-fts"]])
    func backupRunsTheFTS5CheckAndTheManifestRecordsIt(_ asked: [String]) throws {
        // --check-fts, which it once took to run it, changes nothing.
        try Fixtures.makeExampleDatabase(at: database)
        let run = try backup(database, name: "checked.tar.zst", asked)
        #expect(run.status == 0, "\(run.stderr)")
        let parts = try BundleParts(reading: bundles + "/checked.tar.zst")
        let checks = try #require(parts.manifest["checks"] as? [String: Any])
        #expect(checks["checksRun"] as? [String] == ["integrity_check", "foreign_key_check", "user_version", "journal_mode", "fts5_integrity"])
        #expect(checks["fts5Tables"] as? [String] == ["ticket_fts"])

        let inspect = try StewardProcess.run(["inspect", bundles + "/checked.tar.zst"])
        #expect(inspect.stdout.contains("ran: integrity (CHECK constraints included), foreign-keys, version, journal-mode, fts-sync (1 FTS5 table)"), "\(inspect.stdout)")
        let restored = try StewardProcess.run(["restore", bundles + "/checked.tar.zst", "--into", into])
        #expect(restored.status == 0, "\(restored.allOutput)")
        #expect(restored.stdout.contains("checked at backup: integrity (CHECK constraints included)"), "\(restored.stdout)")
        #expect(restored.stdout.contains("fts-sync (1 FTS5 table)"))
    }

    /// Restore refuses such a database (above): backup does not publish it, asked or not.
    @Test(arguments: [[], ["--check-fts"]])
    func backupRefusesDamagedFTS5Pages(_ asked: [String]) throws {
        try Fixtures.makeExampleDatabase(at: database)
        try damageFTSIndex(database)
        let run = try backup(database, name: "fts.tar.zst", asked)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("full-text integrity-check: ticket_fts"), "\(run.stderr)")
        #expect(try directory.contents(of: "bundles").isEmpty)
    }

    @Test func aBundleThatDoesNotRecordItsChecksSaysSo() throws {
        var parts = try exampleParts()
        var checks = try #require(parts.manifest["checks"] as? [String: Any])
        checks["checksRun"] = nil
        checks["fts5Tables"] = nil
        parts.manifest["checks"] = checks
        let path = bundles + "/old.tar.zst"
        try parts.bundle(to: path)
        let inspect = try StewardProcess.run(["inspect", path])
        #expect(inspect.status == 0, "\(inspect.allOutput)")
        #expect(inspect.stdout.contains("ran: not recorded"), "\(inspect.stdout)")
        let run = try StewardProcess.run(["restore", path, "--into", into])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(run.stdout.contains("checked at backup: not recorded"))

        // A name Steward does not know is a malformed manifest.
        checks["checksRun"] = ["integrity_check", "magic"]
        parts.manifest["checks"] = checks
        try parts.bundle(to: bundles + "/odd.tar.zst")
        let odd = try StewardProcess.run(["restore", bundles + "/odd.tar.zst", "--into", directory.file("odd")])
        #expect(odd.status == 65, "\(odd.allOutput)")
        #expect(odd.stderr.contains("checks.checksRun names 'magic'"))
    }
}

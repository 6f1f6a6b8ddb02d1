import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `backup --as-is` and `restore --accept-recorded-failures`: bundles of
/// broken databases, for analysis, with the failures recorded and never row data.
@Suite struct AsIsBundleTests: WorkspaceSuite {
    static let secret = "Secret orphan title"

    let workspace: Workspace
    var into: String { directory.file("restored") }

    init() throws { workspace = try Workspace(making: [.bundles]) }

    /// The orphan-row fixture: tickets whose customer does not exist.
    func makeOrphans(_ name: String, orphans: Int) throws -> String {
        let path = directory.file(name)
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            PRAGMA foreign_keys = OFF;
            CREATE TABLE customer(id INTEGER PRIMARY KEY, name TEXT);
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customer(id), title TEXT);
            INSERT INTO customer VALUES (1, 'Ada');
            INSERT INTO ticket(customer_id, title) VALUES (1, 'fine');
            """)
        for index in 0..<orphans {
            try connection.execute(sql: "INSERT INTO ticket(customer_id, title) VALUES (?, ?)", bindings: [.integer(Int64(100 + index)), .text(Self.secret)])
        }
        return path
    }

    func backup(_ database: String, _ extra: [String] = []) throws -> StewardRun {
        try StewardProcess.run(["backup", "--db", database, "--out", bundles, "--json"] + extra)
    }

    func restore(_ bundle: String, _ extra: [String] = []) throws -> StewardRun {
        try StewardProcess.run(["restore", bundle, "--into", into, "--json"] + extra)
    }

    func check(_ run: StewardRun, _ name: String) throws -> [String: Any]? { try run.check(name) }

    @Test func theOrphanRowFixtureIsBundledAsIsAndRestoredOnlyWhenAccepted() throws {
        let database = try makeOrphans("orphans.sqlite", orphans: 2)
        let refused = try backup(database)
        #expect(refused.status == 1, "without --as-is the checks refuse it")
        #expect(try directory.contents(of: "bundles").isEmpty)

        let run = try backup(database, ["--as-is"])
        #expect(run.status == 0, "\(run.stderr)")
        let report = try run.json()
        let path = try #require((report["bundle"] as? [String: Any])?["path"] as? String)
        #expect(path.hasSuffix("-as-is.tar.zst"), "the name says so: \(path)")
        let recorded = try #require((report["manifest"] as? [String: Any])?["recordedFailures"] as? [String: Any])
        #expect(try check(run, "foreign-keys")?["status"] as? String == "fail", "a recorded failure is still a failure")
        #expect(report["failedChecks"] as? [String] == ["foreign-keys"])
        let keys = try #require(recorded["foreignKeyViolations"] as? [[String: Any]])
        #expect(keys.count == 1 && keys[0]["table"] as? String == "ticket" && keys[0]["parent"] as? String == "customer" && keys[0]["count"] as? Int == 2)
        #expect((recorded["integrity"] as? [String: Any])?["problems"] as? Int == 0)
        let manifest = try systemTool(["tar", "--zstd", "-xOf", path, "manifest.json"])
        #expect(manifest.output.contains("\"recordedFailures\""))
        #expect(!manifest.output.contains(Self.secret) && !run.allOutput.contains(Self.secret), "no row data")

        let plain = try restore(path)
        #expect(plain.status == 1)
        #expect(plain.stderr.contains("--accept-recorded-failures"), "\(plain.stderr)")
        #expect(!FileManager.default.fileExists(atPath: into))

        let accepted = try restore(path, ["--accept-recorded-failures"])
        #expect(accepted.status == 0, "\(accepted.allOutput)")
        #expect(try check(accepted, "foreign-keys")?["status"] as? String == "accepted")
        #expect(try check(accepted, "content-digest")?["status"] as? String == "pass")
        #expect(FileManager.default.fileExists(atPath: into + "/data/orphans.sqlite"))
        #expect(!accepted.allOutput.contains(Self.secret))

        let text = try StewardProcess.run(["restore", path, "--check-only", "--accept-recorded-failures"])
        #expect(text.status == 0)
        #expect(text.stdout.contains("made with --as-is"), "\(text.stdout)")
    }

    @Test func aFailureTheManifestDidNotRecordIsRefused() throws {
        let database = try makeOrphans("orphans.sqlite", orphans: 1)
        let run = try backup(database, ["--as-is", "--name", "o-as-is.tar.zst"])
        try #require(run.status == 0, "\(run.stderr)")
        let worse = try makeOrphans("worse.sqlite", orphans: 3)
        var parts = try BundleParts(reading: bundles + "/o-as-is.tar.zst")
        let bytes = Array(try #require(FileManager.default.contents(atPath: worse)))
        try parts.replacePayload(with: bytes)
        let header = try DatabaseHeader(bytes: Array(bytes.prefix(100)))
        parts.setSource("pageCount", Int(header.pageCount))
        let path = bundles + "/worse-as-is.tar.zst"
        try parts.bundle(to: path)

        let restored = try restore(path, ["--accept-recorded-failures"])
        #expect(restored.status == 1, "\(restored.allOutput)")
        #expect(try check(restored, "foreign-keys")?["status"] as? String == "fail", "3 violations, 1 recorded")
        #expect(!FileManager.default.fileExists(atPath: into))
    }

    @Test func anIntegrityFailureIsRecordedByTable() throws {
        let path = directory.file("check.sqlite")
        try Connection(path: path).execute(sql: """
            CREATE TABLE amount(value INTEGER CHECK (value > 0));
            INSERT INTO amount VALUES (5);
            PRAGMA ignore_check_constraints = ON;
            INSERT INTO amount VALUES (-1);
            """)
        let run = try backup(path, ["--as-is"])
        #expect(run.status == 0, "\(run.stderr)")
        let integrity = try #require(((try run.json()["manifest"] as? [String: Any])?["recordedFailures"] as? [String: Any])?["integrity"] as? [String: Any])
        #expect(try check(run, "integrity")?["status"] as? String == "fail")
        #expect(try run.json()["failedChecks"] as? [String] == ["integrity"])
        #expect((integrity["problems"] as? Int ?? 0) >= 1)
        #expect(integrity["tables"] as? [String] == ["amount"])
        let bundle = try #require(((try run.json())["bundle"] as? [String: Any])?["path"] as? String)
        let restored = try restore(bundle, ["--accept-recorded-failures"])
        #expect(restored.status == 0, "\(restored.allOutput)")
        #expect(try check(restored, "integrity")?["status"] as? String == "accepted")
    }

    @Test func aDatabaseThatCannotBeReadIsStillRefused() throws {
        let path = directory.file("garbage.sqlite")
        var bytes = Array("SQLite format 3\u{0}".utf8)
        bytes += [UInt8](repeating: 0xA5, count: 8192)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let run = try backup(path, ["--as-is"])
        #expect(run.status != 0, "\(run.allOutput)")
        #expect(try directory.contents(of: "bundles").isEmpty)
    }

    @Test func aNameWithoutTheMarkerIsAUsageError() throws {
        let run = try StewardProcess.run(["backup", "--db", "x.db", "--out", bundles, "--as-is", "--name", "x.tar.zst"])
        #expect(run.status == 64)
    }
}

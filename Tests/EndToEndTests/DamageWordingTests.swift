import Foundation
import SQLiteKit
import Testing
import TestSupport

/// What damage reads like (issue 25 item 15): integrity_check's findings as the sqlite3
/// shell shows them, never "cannot run: database disk image is malformed"; inspect warns
/// after a quick_check; an FTS5 index that drifted from its content table is drift, with
/// its remedy, not a damaged file.
@Suite struct DamageWordingTests {
    let directory: TemporaryDirectory
    var database: String { directory.file("damaged.db") }

    init() throws {
        directory = try TemporaryDirectory()
    }

    func check(_ run: StewardRun, _ name: String) throws -> [String: Any] { try #require(try run.check(name), "\(run.stdout)") }

    /// A table and an index over 3000 rows, then the first bytes of page 2 (the table's
    /// root) overwritten: integrity_check reports the page, then stops on the damage.
    func makeDamagedFile() throws {
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT);
            CREATE INDEX tv ON t(v);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000) INSERT INTO t(v) SELECT 'value ' || i FROM n;
            """)
        let handle = try #require(FileHandle(forUpdatingAtPath: database))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(try connection.integer(sql: "PRAGMA page_size")))
        try handle.write(contentsOf: Data([0xff, 0xff]))
    }

    /// What the sqlite3 shell prints for `PRAGMA integrity_check`, heading left out.
    func shellFindings() throws -> [String] {
        let run = try systemTool(["sqlite3", database, "PRAGMA integrity_check"])
        return run.output.split(separator: "\n").map(String.init)
            .filter { !$0.hasPrefix("*** in database") && !$0.hasPrefix("Error:") }
    }

    @Test func verifyShowsTheFindingsSqlite3Shows() throws {
        try makeDamagedFile()
        let findings = try shellFindings()
        try #require(findings.first == "Page 2: btreeInitPage() returns error code 11", "\(findings)")
        let run = try StewardProcess.run(["verify", "--db", database, "--json"])
        #expect(run.status == 1, "\(run.stdout)")
        let integrity = try check(run, "integrity")
        #expect(!((integrity["summary"] as? String) ?? "").contains("cannot run"), "\(integrity)")
        let details = integrity["details"] as? [String] ?? []
        #expect(Array(details.prefix(findings.count)) == findings, "\(details)")
        #expect(details.last == "integrity_check stopped here: database disk image is malformed (SQLite error 11)", "\(details)")
        #expect(integrity["summary"] as? String == "integrity_check found \(findings.count) problems")
    }

    @Test func inspectWarnsAfterAQuickCheckAndStillDescribesTheFile() throws {
        try makeDamagedFile()
        let run = try StewardProcess.run(["inspect", database, "--json"])
        #expect(run.status == 0, "inspect describes the file; verify proves it: \(run.allOutput)")
        let report = try run.json()
        let quick = try #require(report["quickCheck"] as? [String: Any])
        #expect(quick["passed"] as? Bool == false)
        #expect((quick["problems"] as? [String])?.first == "Page 2: btreeInitPage() returns error code 11", "\(quick)")
        #expect((report["warnings"] as? [String])?.contains { $0.hasPrefix("quick_check found problems: the file is damaged") } == true)
        let text = try StewardProcess.run(["inspect", database])
        #expect(text.stdout.contains("Quick check found problems: the file is damaged"), "\(text.stdout)")

        let sound = directory.file("sound.db")
        try Connection(path: sound).execute(sql: "CREATE TABLE t(x)")
        let ok = try StewardProcess.run(["inspect", sound, "--json"])
        #expect((try ok.json()["quickCheck"] as? [String: Any])?["passed"] as? Bool == true)
        #expect((try ok.json()["warnings"] as? [String]) == [])
    }

    /// The example database after a title changed without its update trigger: the file is
    /// sound, the index is out of step, and every command says which, with the remedy.
    @Test func ftsDriftIsWordedAsDriftWithItsRemedy() throws {
        let path = directory.file("tickets.sqlite")
        let connection = try Fixtures.makeExampleDatabase(at: path)
        try connection.execute(sql: """
            DROP TRIGGER ticket_fts_after_update;
            UPDATE ticket SET title = 'Renamed' WHERE id = 1;
            """)
        let remedy = "rebuild it with INSERT INTO \"ticket_fts\"(\"ticket_fts\") VALUES('rebuild'), or with "
            + "'-- steward: rebuild-fts ticket_fts' in the migration that changes ticket"
        let verify = try StewardProcess.run(["verify", "--db", path, "--json"])
        let sync = try check(verify, "fts-sync")
        #expect(sync["summary"] as? String == "full-text check failed: ticket_fts (drift from ticket)")
        let line = try #require((sync["details"] as? [String])?.first)
        #expect(line.hasPrefix("ticket_fts: the index is out of step with its content table ticket (drift, not damage to the file; SQLite error 267)"), "\(line)")
        #expect(line.hasSuffix(remedy), "\(line)")
        #expect(!verify.stdout.contains("malformed"), "\(verify.stdout)")

        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", path, "--out", bundles, "--name", "b.tar.zst", "--check-fts", "--quiet"])
        #expect(backup.status == 1)
        #expect(backup.stderr.contains("(drift, not damage to the file") && backup.stderr.contains(remedy), "\(backup.stderr)")
        #expect(!backup.stderr.contains("malformed"), "\(backup.stderr)")
    }
}

import Foundation
import SQLiteKit
import Testing
import TestSupport

/// FTS3 and FTS4 tables are checked by their own module in verify, backup and restore, as FTS5 tables are: an external-content index that drifted from its content
/// table, and damaged segments that `PRAGMA integrity_check` does not see.
@Suite struct FTS4CheckTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "notes.sqlite", making: [.bundles]) }

    func check(_ run: StewardRun, _ name: String) throws -> [String: Any] { try #require(try run.check(name), "\(run.stdout)") }

    func details(_ check: [String: Any]) -> [String] {
        check["details"] as? [String] ?? []
    }

    func verify(_ extra: [String] = []) throws -> StewardRun {
        try StewardProcess.run(["verify", "--db", database, "--json"] + extra)
    }

    func backup(_ name: String, _ extra: [String] = []) throws -> StewardRun {
        try StewardProcess.run(["backup", "--db", database, "--out", bundles, "--name", name, "--quiet"] + extra)
    }

    func restore(_ name: String) throws -> StewardRun {
        try StewardProcess.run(["restore", bundles + "/" + name, "--into", directory.file("restored-" + name), "--json"])
    }

    /// What each command must find in a database: the lines of fts-sync's details, one per table.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case drift, segments
        var testDescription: String { rawValue }

        func apply(to path: String) throws {
            switch self {
            case .drift: try Fixtures.driftFTS4ExternalContent(at: path)
            case .segments:
                try Fixtures.damageFTS4Segments(of: "note3", at: path)
                try Fixtures.damageFTS4Segments(of: "note4", at: path)
            }
        }

        /// The beginning of each detail line fts-sync must give.
        var expected: [String] {
            switch self {
            case .drift: ["doc_fts: the index is out of step with its content table doc (drift, not damage to the file"]
            case .segments: ["note3: the index is damaged", "note4: the index is damaged"]
            }
        }
    }

    // MARK: - Sound tables

    @Test func soundFTS3AndFTS4TablesPassAndAreNamed() throws {
        try Fixtures.makeFTS4Database(at: database)
        let run = try verify()
        #expect(run.status == 0, "\(run.stdout)")
        let sync = try check(run, "fts-sync")
        #expect(sync["summary"] as? String == "FTS3/FTS4 integrity-check passed for doc_fts, note3, note4", "\(sync)")
        #expect(try check(run, "fts-triggers")["summary"] as? String == "insert, delete and update sync triggers present for doc_fts")

        let made = try backup("sound.tar.zst")
        #expect(made.status == 0, "\(made.stderr)")
        let manifest = try BundleParts(reading: bundles + "/sound.tar.zst").manifest
        let checks = try #require(manifest["checks"] as? [String: Any])
        #expect(checks["fts4Tables"] as? [String] == ["doc_fts", "note3", "note4"])
        #expect(checks["fts5Tables"] as? [String] == [])
        let restored = try restore("sound.tar.zst")
        #expect(restored.status == 0, "\(restored.stdout)")
        #expect(try check(restored, "fts-sync")["summary"] as? String == "FTS3/FTS4 integrity-check passed for 3 tables: doc_fts, note3, note4")
        let inspected = try StewardProcess.run(["inspect", bundles + "/sound.tar.zst"])
        #expect(inspected.stdout.contains("fts-sync (3 FTS3/FTS4 tables)"), "\(inspected.stdout)")
        // The manifest's new field is in the schema (additionalProperties false).
        if JSONValidator.isInstalled {
            let inspectJSON = try StewardProcess.run(["inspect", bundles + "/sound.tar.zst", "--json"])
            let problems = try JSONValidator.problems(
                [("verify", run.stdout), ("restore", restored.stdout), ("inspect", inspectJSON.stdout)], in: directory)
            #expect(problems == [], "\(problems)")
        }
    }

    // MARK: - Each command finds each damage

    @Test(arguments: Damage.allCases)
    func verifyFindsIt(_ damage: Damage) throws {
        try Fixtures.makeFTS4Database(at: database)
        try damage.apply(to: database)
        #expect(try Connection(path: database).integrityCheck() == ["ok"], "PRAGMA integrity_check does not see it")
        let run = try verify()
        #expect(run.status == 1, "\(run.stdout)")
        #expect(try check(run, "integrity")["status"] as? String == "pass")
        let sync = try check(run, "fts-sync")
        #expect(sync["status"] as? String == "fail")
        let lines = details(sync)
        #expect(lines.count == damage.expected.count, "\(lines)")
        for (line, prefix) in zip(lines, damage.expected) {
            #expect(line.hasPrefix(prefix), "\(line)")
        }
        #expect(try run.json()["failedChecks"] as? [String] == ["fts-sync"])
    }

    /// Restore refuses it (below), so backup does not publish it, with or without the
    /// --check-fts it once took to look.
    @Test(arguments: Damage.allCases)
    func backupRefusesIt(_ damage: Damage) throws {
        try Fixtures.makeFTS4Database(at: database)
        try damage.apply(to: database)
        let run = try backup("damaged.tar.zst")
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr.contains("refusing to publish"), "\(run.stderr)")
        for prefix in damage.expected {
            #expect(run.stderr.contains(prefix), "\(run.stderr)")
        }
        #expect(try directory.contents(of: "bundles").isEmpty)
    }

    @Test(arguments: Damage.allCases)
    func restoreRefusesIt(_ damage: Damage) throws {
        // As a Steward that ran the full-text check only with --check-fts published it without.
        try Fixtures.makeFTS4Database(at: database)
        let made = try backup("sound.tar.zst")
        try #require(made.status == 0, "\(made.stderr)")
        var parts = try BundleParts(reading: bundles + "/sound.tar.zst")
        try damage.apply(to: database)
        try parts.replaceDatabase(with: Array(try #require(FileManager.default.contents(atPath: database))))
        parts.recordNoFullTextCheck()
        try parts.bundle(to: bundles + "/unchecked.tar.zst")
        let run = try restore("unchecked.tar.zst")
        #expect(run.status == 1, "\(run.stdout)")
        #expect(try run.json()["failedChecks"] as? [String] == ["fts-sync"])
        let lines = details(try check(run, "fts-sync"))
        for (line, prefix) in zip(lines, damage.expected) {
            #expect(line.hasPrefix(prefix), "\(line)")
        }
        #expect(lines.count == damage.expected.count, "\(lines)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("restored-unchecked.tar.zst")))
    }

    // MARK: - Sync triggers

    /// FTS4 reads the text it removes from the content table: a delete trigger that runs
    /// after the row is gone leaves the old words found.
    @Test func aDeleteTriggerThatRunsAfterTheDeleteIsNamed() throws {
        let connection = try Fixtures.makeFTS4Database(at: database, rows: 10)
        try connection.execute(sql: """
            DROP TRIGGER doc_bd;
            CREATE TRIGGER doc_ad AFTER DELETE ON doc BEGIN DELETE FROM doc_fts WHERE docid = old.rowid; END;
            """)
        let run = try verify()
        #expect(run.status == 1, "\(run.stdout)")
        let triggers = try check(run, "fts-triggers")
        #expect(triggers["status"] as? String == "fail")
        #expect(details(triggers) == [
            "doc_fts: no delete trigger on doc that writes to it",
            "doc_fts: trigger doc_ad deletes from it AFTER DELETE on doc; FTS4 reads the text to remove from doc, so it must run BEFORE DELETE",
        ], "\(triggers)")
    }

    @Test func missingFTS4SyncTriggersAreNamed() throws {
        let connection = try Fixtures.makeFTS4Database(at: database, rows: 10)
        try connection.execute(sql: "DROP TRIGGER doc_au; DROP TRIGGER doc_ai")
        let triggers = try check(try verify(), "fts-triggers")
        #expect(triggers["status"] as? String == "fail")
        #expect(details(triggers) == ["doc_fts: no insert, update trigger on doc that writes to it"], "\(triggers)")
    }

    // MARK: - Tables without text

    /// A contentless FTS4 table keeps no text for the module's check to read: its index is
    /// read in full instead, which finds damage, and the details say so.
    @Test func aContentlessFTS4TableIsReadInFull() throws {
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE VIRTUAL TABLE bare USING fts4(content='', body);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
                INSERT INTO bare(docid, body) SELECT i, 'word' || i || ' alpha beta ' || (i * 7) FROM n;
            """)
        let run = try verify()
        #expect(run.status == 0, "\(run.stdout)")
        let sync = try check(run, "fts-sync")
        #expect(sync["summary"] as? String == "FTS3/FTS4 integrity-check passed for bare")
        #expect(details(sync).first?.hasPrefix("bare: contentless (content=''): FTS4's integrity-check needs the text") == true, "\(sync)")

        try Fixtures.damageFTS4Segments(of: "bare", at: database)
        let damaged = try check(try verify(), "fts-sync")
        #expect(damaged["status"] as? String == "fail")
        #expect(details(damaged).first?.hasPrefix("bare: the index is damaged") == true, "\(damaged)")
    }

    /// A pass says what it looked at: "no full-text tables" only when there is none of any kind.
    @Test func aPassOverNoTableSaysSo() throws {
        try Connection(path: database).execute(sql: "CREATE TABLE plain(x)")
        let run = try verify()
        #expect(try check(run, "fts-sync")["summary"] as? String == "no full-text tables (FTS3, FTS4 or FTS5)")
        #expect(try check(run, "fts-triggers")["summary"] as? String == "no full-text tables (FTS3, FTS4 or FTS5)")
        #expect(try backup("plain.tar.zst").status == 0)
        let restored = try restore("plain.tar.zst")
        #expect(try check(restored, "fts-sync")["summary"] as? String == "no full-text tables (FTS3, FTS4 or FTS5)")
    }
}

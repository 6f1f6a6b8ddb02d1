import Foundation
import SQLiteKit
import Testing
import TestSupport

/// A view or trigger that no longer compiles passes `integrity_check`; verify must prove
/// what restore checks (issue 25 item 4): every view, trigger and virtual table prepares,
/// by one check, `schema-objects`, that verify, backup and restore share.
@Suite struct SchemaObjectsTests {
    let directory: TemporaryDirectory
    var set: String { directory.file("set") }
    var database: String { directory.file("tickets.db") }

    init() throws {
        directory = try TemporaryDirectory()
        try directory.write("""
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open');
            CREATE VIEW open_ticket AS SELECT id, title FROM ticket WHERE status = 'open';
            CREATE TABLE note(id INTEGER PRIMARY KEY, ticket_id INTEGER, body TEXT);
            CREATE TABLE note_log(title TEXT);
            CREATE TRIGGER note_logged AFTER INSERT ON note BEGIN
                INSERT INTO note_log SELECT title FROM ticket WHERE id = new.ticket_id;
            END;

            """, to: "set/0001_ticket.sql")
        // The rename-first order: ALTER TABLE … RENAME rewrites the view and the trigger to
        // name ticket_old, which is then dropped. Every statement succeeds. migrate's guard
        // refuses it (`theGuardRefusesTheRebuild`); the allowances make the broken file the
        // other checks must find.
        try directory.write("""
            -- steward: allow drop-view open_ticket
            -- steward: allow drop-trigger note_logged
            ALTER TABLE ticket RENAME TO ticket_old;
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL DEFAULT 'open',
                                priority INTEGER NOT NULL DEFAULT 0);
            INSERT INTO ticket(id, title, status) SELECT id, title, status FROM ticket_old;
            DROP TABLE ticket_old;

            """, to: "set/0002_rebuild.sql")
        try directory.declareLayout(of: "set")
    }

    /// The database at version 1 with rows, then migrated by the rebuild.
    func makeRebuiltDatabase() throws {
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", set, "--create", "--to", "1", "--quiet"]).status == 0)
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title) VALUES ('printer'), ('scanner')")
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", set, "--quiet"]).status == 0)
        #expect(try Connection(path: database).integrityCheck() == ["ok"], "integrity_check does not see it")
    }

    @Test func theGuardRefusesTheRebuildUnlessItsLossesAreAllowed() throws {
        let text = try String(contentsOfFile: set + "/0002_rebuild.sql", encoding: .utf8)
        try directory.write(text.split(separator: "\n").filter { !$0.hasPrefix("-- steward:") }.joined(separator: "\n") + "\n",
                            to: "set/0002_rebuild.sql")
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", set, "--create", "--to", "1", "--quiet"]).status == 0)
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title) VALUES ('printer'), ('scanner')")
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        let run = try StewardProcess.run(["migrate", "--db", database, "--migrations", set, "--quiet"])
        #expect(run.status == 1, "\(run.allOutput)")
        #expect(run.stderr.contains("view open_ticket no longer compiles against the new schema (no such table: main.ticket_old)"), "\(run.stderr)")
        #expect(run.stderr.contains("trigger note_logged no longer compiles"), "\(run.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    }

    static let expectedDetails = [
        "view open_ticket: no such table: main.ticket_old",
        "trigger note_logged: no such table: main.ticket_old",
    ]

    func check(_ run: StewardRun, _ name: String) throws -> [String: Any] {
        let checks = try #require(try run.json()["checks"] as? [[String: Any]], "\(run.stdout)")
        return try #require(checks.first { $0["name"] as? String == name })
    }

    @Test func verifyFindsTheViewAndTheTriggerTheRebuildBroke() throws {
        try makeRebuiltDatabase()
        let run = try StewardProcess.run(["verify", "--db", database, "--migrations", set, "--json"])
        #expect(run.status == 1, "\(run.stdout)")
        #expect(try run.json()["failedChecks"] as? [String] == ["schema-objects"])
        let objects = try check(run, "schema-objects")
        #expect(objects["details"] as? [String] == Self.expectedDetails, "\(objects)")
        #expect(objects["summary"] as? String
            == "cannot be prepared on SQLite \(SQLiteLibrary.version): view open_ticket, trigger note_logged (of 1 view, 1 trigger and 0 virtual tables)")
        #expect(try check(run, "integrity")["status"] as? String == "pass")
    }

    /// restore refuses such a file by the same check, with the same lines: what verify
    /// passes, restore accepts, and what it fails, restore refuses.
    @Test func restoreRefusesItByTheSameCheck() throws {
        let healthy = directory.file("healthy.db")
        #expect(try StewardProcess.run(["migrate", "--db", healthy, "--migrations", set, "--create", "--to", "1", "--quiet"]).status == 0)
        let bundles = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: bundles, withIntermediateDirectories: true)
        #expect(try StewardProcess.run(["backup", "--db", healthy, "--out", bundles, "--name", "healthy.tar.zst", "--quiet"]).status == 0)
        let restoredHealthy = try StewardProcess.run(["restore", bundles + "/healthy.tar.zst", "--check-only", "--json"])
        #expect(restoredHealthy.status == 0, "\(restoredHealthy.stdout)")
        #expect(try check(restoredHealthy, "schema-objects")["summary"] as? String
            == "1 view, 1 trigger and 0 virtual tables prepare on SQLite \(SQLiteLibrary.version)")

        // The broken file in a bundle that tells the truth about it (as an older Steward made them).
        try makeRebuiltDatabase()
        var parts = try BundleParts(reading: bundles + "/healthy.tar.zst")
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: database)))
        try parts.replacePayload(with: bytes)
        let header = try DatabaseHeader(bytes: Array(bytes.prefix(100)))
        parts.setSource("pageCount", Int(header.pageCount))
        parts.setSource("userVersion", Int(header.userVersion))
        parts.manifest["contentDigests"] = nil
        try parts.bundle(to: bundles + "/broken.tar.zst")
        let run = try StewardProcess.run(["restore", bundles + "/broken.tar.zst", "--check-only", "--json"])
        #expect(run.status == 1, "\(run.stdout)")
        let objects = try check(run, "schema-objects")
        #expect(objects["status"] as? String == "fail")
        #expect(objects["details"] as? [String] == Self.expectedDetails, "\(objects)")
    }

    /// The rollback that locks out: `migrate --backup-dir` took a bundle of such a
    /// database that the `restore` it printed then refused. backup runs the same check, so
    /// the migration stops before its first change and no unrestorable bundle is written.
    @Test func migrateBackupDirTakesNoBundleThatRestoreWouldRefuse() throws {
        try makeRebuiltDatabase()
        try directory.write("CREATE INDEX ticket_priority ON ticket(priority);\n", to: "set/0003_index.sql")
        let backups = directory.file("backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: true)
        let before = try [UInt8](Data(contentsOf: URL(fileURLWithPath: database)))
        let run = try StewardProcess.run(["migrate", "--db", database, "--migrations", set, "--backup-dir", backups, "--quiet"])
        #expect(run.status == 1, "\(run.allOutput)")
        #expect(run.stderr.contains("schema-objects"), "\(run.stderr)")
        #expect(run.stderr.contains("view open_ticket: no such table: main.ticket_old"), "\(run.stderr)")
        #expect(try directory.contents(of: "backups").isEmpty)
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: database))) == before, "nothing was migrated")
    }

    /// Triggers of every kind are reached by the statement that fires them, never run: an
    /// INSTEAD OF trigger on a view, an UPDATE OF trigger, a WITHOUT ROWID table's.
    @Test func healthyViewsTriggersAndVirtualTablesPass() throws {
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE TABLE item(code TEXT PRIMARY KEY, price INTEGER) WITHOUT ROWID;
            CREATE TABLE price_log(code TEXT, price INTEGER);
            CREATE VIEW item_view AS SELECT code, price FROM item;
            CREATE TRIGGER item_view_insert INSTEAD OF INSERT ON item_view BEGIN INSERT INTO item VALUES (new.code, new.price); END;
            CREATE TRIGGER item_price AFTER UPDATE OF price ON item BEGIN INSERT INTO price_log VALUES (new.code, new.price); END;
            CREATE TRIGGER item_gone BEFORE DELETE ON item BEGIN DELETE FROM price_log WHERE code = old.code; END;
            CREATE VIRTUAL TABLE item_fts USING fts5(code);
            INSERT INTO item VALUES ('a', 1);
            """)
        let before = try [UInt8](Data(contentsOf: URL(fileURLWithPath: database)))
        let run = try StewardProcess.run(["verify", "--db", database, "--json"])
        #expect(run.status == 0, "\(run.stdout)")
        #expect(try check(run, "schema-objects")["summary"] as? String
            == "1 view, 3 triggers and 1 virtual table prepare on SQLite \(SQLiteLibrary.version)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: database))) == before, "nothing was run")
        #expect(try connection.integer(sql: "SELECT count(*) FROM price_log") == 0)
    }
}

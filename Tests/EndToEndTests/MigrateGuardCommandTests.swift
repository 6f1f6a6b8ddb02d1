import Foundation
import SQLiteKit
import Testing
import TestSupport

/// The issue's own trial, through the binary: a ticket table with an index and an
/// external-content FTS5 table with its three sync triggers, three rows, and a rebuild
/// whose copy has a WHERE. Before the guard, migrate exited 0 with one row, the index and
/// the triggers gone.
@Suite struct MigrateGuardCommandTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(layout: "steward")
        try directory.write("""
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT);
            CREATE INDEX ticket_status ON ticket(status);
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');
            CREATE TRIGGER ticket_ai AFTER INSERT ON ticket BEGIN INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END;
            CREATE TRIGGER ticket_ad AFTER DELETE ON ticket BEGIN INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title); END;
            CREATE TRIGGER ticket_au AFTER UPDATE ON ticket BEGIN INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title); INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END;

            """, to: "migrations/0001_ticket.sql")
        #expect(try migrate(["--create", "--quiet"]).status == 0)
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title, status) VALUES ('printer jammed', 'open'), ('secret customer text', NULL), ('scanner', 'done')")
        try directory.write(Self.rebuild, to: "migrations/0002_rebuild.sql")
    }

    static let rebuild = """
        CREATE TABLE ticket_new(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT NOT NULL);
        INSERT INTO ticket_new SELECT id, title, status FROM ticket WHERE status IS NOT NULL;
        DROP TABLE ticket;
        ALTER TABLE ticket_new RENAME TO ticket;

        """

    func migrate(_ extra: [String]) throws -> StewardRun {
        try StewardProcess.run(["migrate", "--db", database, "--migrations", migrations] + extra)
    }

    func bytes() -> Data? { FileManager.default.contents(atPath: database) }

    @Test func theRebuildIsRefusedNamingEveryLossAndNothingChanges() throws {
        let before = bytes()
        for extra in [[String](), ["--dry-run"], ["--json"]] {
            let run = try migrate(extra)
            #expect(run.status == 1, "\(extra): \(run.allOutput)")
            let message = extra == ["--json"] ? run.stdout : run.stderr
            for fragment in [
                "index ticket_status on ticket lost with its table: DROP TABLE ticket at 0002_rebuild.sql:3",
                "trigger ticket_ai on ticket lost", "trigger ticket_ad on ticket lost", "trigger ticket_au on ticket lost",
                "table ticket lost 1 of its 3 rows",
                "the FTS5 index of ticket_fts no longer matches its content table ticket",
            ] {
                #expect(message.contains(fragment), "\(extra): \(fragment) not in \(message)")
            }
            // Names and counts, never a row's text.
            #expect(!run.allOutput.contains("secret"), "\(run.allOutput)")
        }
        #expect(bytes() == before)
    }

    @Test func allowedOnTheCommandLineItMigratesAndReportsTheAllowances() throws {
        let allow = ["drop-index:ticket_status", "drop-trigger:ticket_ai", "drop-trigger:ticket_ad", "drop-trigger:ticket_au", "row-loss:ticket"]
            .flatMap { ["--allow", $0] }
        // Drift in the search index is not allowed, it is mended: rebuild-fts in the file.
        try directory.write("-- steward: rebuild-fts ticket_fts\n" + Self.rebuild, to: "migrations/0002_rebuild.sql")
        let run = try migrate(allow + ["--json"])
        #expect(run.status == 0, "\(run.allOutput)")
        let json = try run.json()
        let accounting = try #require(json["accounting"] as? [String: Any], "\(run.stdout)")
        let tables = try #require(accounting["tables"] as? [[String: Any]])
        let ticket = try #require(tables.first { $0["table"] as? String == "ticket" })
        #expect(ticket["rowsBefore"] as? Int == 3 && ticket["rowsAfter"] as? Int == 2 && ticket["allowedBy"] as? String == "caller")
        let allowances = try #require(accounting["allowances"] as? [[String: Any]])
        #expect(allowances.count == 5 && allowances.allSatisfy { $0["used"] as? Bool == true && $0["givenAt"] == nil })
        if JSONValidator.isInstalled {
            #expect(try JSONValidator.problems([("migrate --allow", run.stdout)], in: directory) == [])
        }
    }

    @Test func theTextReportShowsTheGuardsCounts() throws {
        try directory.write("-- steward: allow row-loss ticket\n-- steward: allow drop-index ticket_status\n-- steward: rebuild-fts ticket_fts\n"
            + Self.rebuild + Self.triggers, to: "migrations/0002_rebuild.sql")
        let run = try migrate([])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(run.stdout.contains("Guard       nothing lost that the migrations do not name"), "\(run.stdout)")
        #expect(run.stdout.contains("ticket  3 rows → 2  row loss allowed by 0002_rebuild.sql:1"), "\(run.stdout)")
        #expect(run.stdout.contains("0002_rebuild.sql lost index ticket_status with ticket, allowed by 0002_rebuild.sql:2"), "\(run.stdout)")
    }

    @Test func eachDatabaseOfAFleetRunCarriesTheCounts() throws {
        let second = directory.file("second.db")
        try FileManager.default.copyItem(atPath: database, toPath: second)
        try directory.write("-- steward: allow row-loss ticket\n-- steward: allow drop-index ticket_status\n-- steward: rebuild-fts ticket_fts\n"
            + Self.rebuild + Self.triggers, to: "migrations/0002_rebuild.sql")
        let run = try StewardProcess.run(["migrate", "--db", database, "--db", second, "--migrations", migrations, "--jobs", "2"])
        #expect(run.status == 0, "\(run.allOutput)")
        #expect(run.allOutput.components(separatedBy: "rows ticket 3 → 2 (allowed)").count == 3, "\(run.allOutput)")
    }

    @Test func aBadAllowanceValueIsAUsageError() throws {
        let run = try migrate(["--allow", "everything"])
        #expect(run.status == 64)
        #expect(run.stderr.contains("expected KIND:NAME with KIND one of row-loss, drop-index"), "\(run.stderr)")
    }

    static let triggers = """
        CREATE TRIGGER ticket_ai AFTER INSERT ON ticket BEGIN INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END;
        CREATE TRIGGER ticket_ad AFTER DELETE ON ticket BEGIN INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title); END;
        CREATE TRIGGER ticket_au AFTER UPDATE ON ticket BEGIN INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title); INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END;

        """
}

import Foundation
import SQLiteKit
import StewardCore
import Testing

@Suite struct TriggerDefinitionTests {
    struct Expectation: Sendable, CustomTestStringConvertible {
        let sql: String
        let table: String
        let timing: String
        let event: String
        var updateColumns: [String] = []
        var insertTargets: [String] = []
        var usesDeleteCommand = false
        var testDescription: String { sql }
    }

    static let cases: [Expectation] = [
        .init(sql: "CREATE TRIGGER t AFTER INSERT ON ticket BEGIN INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END",
              table: "ticket", timing: "AFTER", event: "INSERT", insertTargets: ["ticket_fts"]),
        .init(sql: "CREATE TRIGGER t BEFORE DELETE ON ticket BEGIN SELECT RAISE(ABORT, 'no'); END",
              table: "ticket", timing: "BEFORE", event: "DELETE"),
        // Without a timing SQLite fires BEFORE.
        .init(sql: "CREATE TRIGGER t UPDATE ON ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "BEFORE", event: "UPDATE"),
        .init(sql: "create trigger t delete on ticket begin select 1; end",
              table: "ticket", timing: "BEFORE", event: "DELETE"),
        .init(sql: "CREATE TRIGGER v_insert INSTEAD OF INSERT ON ticket_view BEGIN INSERT INTO ticket(title) VALUES (new.title); END",
              table: "ticket_view", timing: "INSTEAD OF", event: "INSERT", insertTargets: ["ticket"]),
        .init(sql: "CREATE TRIGGER t AFTER UPDATE OF title, body ON ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "UPDATE", updateColumns: ["title", "body"]),
        .init(sql: "CREATE TRIGGER t AFTER UPDATE OF \"my col\", [other col], `third` ON ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "UPDATE", updateColumns: ["my col", "other col", "third"]),
        .init(sql: "CREATE TEMP TRIGGER t AFTER INSERT ON ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "INSERT"),
        .init(sql: "CREATE TEMPORARY TRIGGER t AFTER INSERT ON ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "INSERT"),
        .init(sql: "CREATE TRIGGER IF NOT EXISTS t AFTER DELETE ON ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "DELETE"),
        .init(sql: "CREATE TRIGGER main.t AFTER INSERT ON ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "INSERT"),
        .init(sql: "CREATE TEMP TRIGGER IF NOT EXISTS temp.t AFTER INSERT ON main.ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "INSERT"),
        .init(sql: "CREATE TRIGGER \"my trigger\" AFTER DELETE ON \"my \"\"table\"\"\" BEGIN INSERT INTO [fts table](x) VALUES (1); END",
              table: "my \"table\"", timing: "AFTER", event: "DELETE", insertTargets: ["fts table"]),
        .init(sql: "CREATE TRIGGER [t] AFTER INSERT ON `Ticket` BEGIN SELECT 1; END",
              table: "Ticket", timing: "AFTER", event: "INSERT"),
        .init(sql: "CREATE TRIGGER t AFTER INSERT ON ticket FOR EACH ROW WHEN new.status = 'open' BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "INSERT"),
        .init(sql: "-- a comment first\nCREATE /* inline */ TRIGGER t AFTER INSERT ON ticket BEGIN SELECT 1; END",
              table: "ticket", timing: "AFTER", event: "INSERT"),
    ]

    @Test(arguments: cases)
    func readsTheHeader(_ expected: Expectation) throws {
        let trigger = try #require(TriggerDefinition(name: "given name", sql: expected.sql))
        #expect(trigger.name == "given name")
        #expect(trigger.table == expected.table)
        #expect(trigger.timing == expected.timing)
        #expect(trigger.event == expected.event)
        #expect(trigger.updateColumns == expected.updateColumns)
        #expect(trigger.insertTargets == expected.insertTargets)
        #expect(trigger.usesDeleteCommand == expected.usesDeleteCommand)
    }

    // MARK: - Insert targets

    @Test func insertTargetsAreLowerCasedUnqualifiedAndInOrder() throws {
        let trigger = try #require(TriggerDefinition(name: "t", sql: """
            CREATE TRIGGER t AFTER UPDATE ON ticket BEGIN
                INSERT INTO main.Ticket_FTS(Ticket_FTS, rowid, title) VALUES ('delete', old.id, old.title);
                INSERT OR REPLACE INTO "Audit Log"(what) VALUES ('update');
                REPLACE INTO temp.scratch VALUES (1);
                DELETE FROM other WHERE id = old.id;
                UPDATE elsewhere SET x = 1;
            END
            """))
        #expect(trigger.insertTargets == ["ticket_fts", "audit log", "scratch"])
        #expect(trigger.writes(to: "ticket_fts"))
        #expect(trigger.writes(to: "TICKET_FTS"))
        #expect(trigger.writes(to: "Audit Log"))
        #expect(!trigger.writes(to: "other"))
        #expect(!trigger.writes(to: "elsewhere"))
        #expect(!trigger.writes(to: "ticket"))
    }

    // MARK: - The 'delete' command

    @Test(arguments: [
        ("INSERT INTO f(f, rowid, a) VALUES ('delete', old.id, old.a);", true),
        ("INSERT INTO f(f, rowid, a) VALUES ('DELETE', old.id, old.a);", true),
        ("INSERT INTO f(f, rowid, a) VALUES (\"delete\", old.id, old.a);", false),
        ("DELETE FROM f WHERE rowid = old.id;", false),
        ("INSERT INTO f(f, rowid, a) VALUES ('deleted', old.id, old.a);", false),
        ("INSERT INTO f(rowid, a) VALUES (new.id, new.a);", false),
    ])
    func deleteCommandIsTheStringLiteral(_ body: String, _ usesDelete: Bool) throws {
        let trigger = try #require(TriggerDefinition(name: "t", sql: "CREATE TRIGGER t AFTER DELETE ON x BEGIN \(body) END"))
        #expect(trigger.usesDeleteCommand == usesDelete)
    }

    @Test func theExampleMigrationTriggers() throws {
        let insert = try #require(TriggerDefinition(name: "ticket_fts_after_insert", sql: """
            CREATE TRIGGER ticket_fts_after_insert AFTER INSERT ON ticket BEGIN
                INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
            END
            """))
        #expect(insert.writes(to: "ticket_fts"))
        #expect(!insert.usesDeleteCommand)

        let update = try #require(TriggerDefinition(name: "ticket_fts_after_update", sql: """
            CREATE TRIGGER ticket_fts_after_update AFTER UPDATE ON ticket BEGIN
                INSERT INTO ticket_fts(ticket_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
                INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
            END
            """))
        #expect(update.insertTargets == ["ticket_fts", "ticket_fts"])
        #expect(update.usesDeleteCommand)
        #expect(update.event == "UPDATE")
        #expect(update.timing == "AFTER")
    }

    // MARK: - Not a trigger

    @Test(arguments: [
        "",
        "SELECT 1",
        "CREATE TABLE ticket(id INTEGER PRIMARY KEY)",
        "CREATE INDEX t ON ticket(title)",
        "CREATE VIEW trigger_view AS SELECT 1",
        "CREATE VIRTUAL TABLE f USING fts5(a)",
        "CREATE TEMP TABLE t(x)",
        "DROP TRIGGER t",
        "CREATE TRIGGER t AFTER TRUNCATE ON ticket BEGIN SELECT 1; END",
        "CREATE TRIGGER t AFTER INSERT BEGIN SELECT 1; END",
        "CREATE TRIGGER t AFTER INSERT ON",
        "CREATE TRIGGER",
        "TRIGGER t AFTER INSERT ON ticket BEGIN SELECT 1; END",
    ])
    func otherStatementsAreNotTriggers(_ sql: String) {
        #expect(TriggerDefinition(name: "t", sql: sql) == nil)
    }
}

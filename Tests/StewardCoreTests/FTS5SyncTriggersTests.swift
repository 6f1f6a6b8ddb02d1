import Foundation
import SQLiteKit
import StewardCore
import Testing

@Suite struct FTS5SyncTriggersTests {
    static let external = FTS5Definition(
        name: "ticket_fts",
        sql: "CREATE VIRTUAL TABLE ticket_fts USING fts5(title, body, content='ticket', content_rowid='id')")!

    static let insertSQL = """
        CREATE TRIGGER ticket_fts_after_insert AFTER INSERT ON ticket BEGIN
            INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
        END
        """
    static let deleteSQL = """
        CREATE TRIGGER ticket_fts_after_delete AFTER DELETE ON ticket BEGIN
            INSERT INTO ticket_fts(ticket_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
        END
        """
    static let updateSQL = """
        CREATE TRIGGER ticket_fts_after_update AFTER UPDATE ON ticket BEGIN
            INSERT INTO ticket_fts(ticket_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
            INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
        END
        """

    private func trigger(_ name: String, _ sql: String) throws -> TriggerDefinition {
        try #require(TriggerDefinition(name: name, sql: sql))
    }

    private func exampleTriggers() throws -> [TriggerDefinition] {
        [
            try trigger("ticket_fts_after_insert", Self.insertSQL),
            try trigger("ticket_fts_after_delete", Self.deleteSQL),
            try trigger("ticket_fts_after_update", Self.updateSQL),
        ]
    }

    @Test func allThreeTriggersCoverTheTable() throws {
        let sync = FTS5SyncTriggers(for: Self.external, among: try exampleTriggers())
        #expect(sync.insert == "ticket_fts_after_insert")
        #expect(sync.delete == "ticket_fts_after_delete")
        #expect(sync.update == "ticket_fts_after_update")
        #expect(sync.missing == [])
    }

    @Test(arguments: [
        (["ticket_fts_after_delete", "ticket_fts_after_update"], ["insert"]),
        (["ticket_fts_after_insert", "ticket_fts_after_update"], ["delete"]),
        (["ticket_fts_after_insert", "ticket_fts_after_delete"], ["update"]),
        (["ticket_fts_after_insert"], ["delete", "update"]),
        ([], ["insert", "delete", "update"]),
    ])
    func missingEventsAreListedInOrder(_ kept: [String], _ missing: [String]) throws {
        let triggers = try exampleTriggers().filter { kept.contains($0.name) }
        #expect(FTS5SyncTriggers(for: Self.external, among: triggers).missing == missing)
    }

    /// A delete or update trigger that only inserts, without FTS5's 'delete' command,
    /// cannot remove the old terms from an external-content table, so it does not count.
    @Test(arguments: [
        ("DELETE", "wrong_delete", """
            CREATE TRIGGER wrong_delete AFTER DELETE ON ticket BEGIN
                INSERT INTO ticket_fts(rowid, title, body) VALUES (old.id, old.title, old.body);
            END
            """),
        ("UPDATE", "insert_only_update", """
            CREATE TRIGGER insert_only_update AFTER UPDATE ON ticket BEGIN
                INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
            END
            """),
    ])
    func aTriggerWithoutTheDeleteCommandDoesNotCount(event: String, name: String, sql: String) throws {
        let triggers = try exampleTriggers().filter { $0.event != event } + [try trigger(name, sql)]
        let sync = FTS5SyncTriggers(for: Self.external, among: triggers)
        #expect((event == "DELETE" ? sync.delete : sync.update) == nil)
        #expect(sync.missing == [event.lowercased()])
    }

    @Test func triggersOnAnotherTableDoNotCount() throws {
        let triggers = [
            try trigger("a", Self.insertSQL.replacingOccurrences(of: "ON ticket", with: "ON customer")),
            try trigger("b", Self.deleteSQL.replacingOccurrences(of: "ON ticket", with: "ON customer")),
            try trigger("c", Self.updateSQL.replacingOccurrences(of: "ON ticket", with: "ON customer")),
        ]
        #expect(FTS5SyncTriggers(for: Self.external, among: triggers).missing == ["insert", "delete", "update"])
    }

    @Test func triggersWritingAnotherIndexDoNotCount() throws {
        let triggers = [
            try trigger("a", Self.insertSQL.replacingOccurrences(of: "ticket_fts", with: "other_fts")),
            try trigger("b", Self.deleteSQL.replacingOccurrences(of: "ticket_fts", with: "other_fts")),
        ]
        #expect(FTS5SyncTriggers(for: Self.external, among: triggers).missing == ["insert", "delete", "update"])
    }

    @Test func insteadOfTriggersDoNotCount() throws {
        let triggers = [
            try trigger("a", Self.insertSQL.replacingOccurrences(of: "AFTER INSERT", with: "INSTEAD OF INSERT")),
            try trigger("b", Self.deleteSQL),
            try trigger("c", Self.updateSQL),
        ]
        #expect(FTS5SyncTriggers(for: Self.external, among: triggers).missing == ["insert"])
    }

    @Test func beforeTriggersCount() throws {
        let triggers = try [Self.insertSQL, Self.deleteSQL, Self.updateSQL].enumerated().map {
            try trigger("t\($0.offset)", $0.element.replacingOccurrences(of: "AFTER", with: "BEFORE"))
        }
        #expect(FTS5SyncTriggers(for: Self.external, among: triggers).missing == [])
    }

    @Test func namesCompareWithoutASCIICase() throws {
        let fts = try #require(FTS5Definition(
            name: "Ticket_FTS", sql: "CREATE VIRTUAL TABLE Ticket_FTS USING fts5(title, body, content='TICKET')"))
        let sync = FTS5SyncTriggers(for: fts, among: try exampleTriggers())
        #expect(sync.missing == [])
    }

    @Test func firstMatchingTriggerIsNamed() throws {
        let second = try trigger("zz_second_insert", Self.insertSQL)
        let sync = FTS5SyncTriggers(for: Self.external, among: try exampleTriggers() + [second])
        #expect(sync.insert == "ticket_fts_after_insert")
    }

    @Test(arguments: [
        "CREATE VIRTUAL TABLE ticket_fts USING fts5(title, body)",
        "CREATE VIRTUAL TABLE ticket_fts USING fts5(title, body, content='')",
    ])
    func tablesWithoutExternalContentHaveNoSyncTriggers(_ sql: String) throws {
        let fts = try #require(FTS5Definition(name: "ticket_fts", sql: sql))
        let sync = FTS5SyncTriggers(for: fts, among: try exampleTriggers())
        #expect(sync.insert == nil)
        #expect(sync.delete == nil)
        #expect(sync.update == nil)
    }
}

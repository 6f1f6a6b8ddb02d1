import Foundation
import Testing
import SQLiteKit
import StewardCore
import TestSupport

@Suite struct SchemaTests {
    @Test func readsTheExampleDatabase() throws {
        let directory = try TemporaryDirectory()
        let connection = try Fixtures.makeExampleDatabase(at: directory.file("example.sqlite"))
        let schema = try Schema(reading: connection)

        let names = schema.tables.map(\.name)
        #expect(names == names.sorted())
        #expect(!names.contains("sqlite_schema"))
        #expect(Set(names) == [
            "ticket", "ticket_fts", "ticket_fts_config", "ticket_fts_data", "ticket_fts_docsize", "ticket_fts_idx",
        ])

        let ticket = try #require(schema.tables.first { $0.name == "ticket" })
        #expect(ticket.type == .table)
        #expect(ticket.columnCount == 6)
        #expect(!ticket.isWithoutRowID)
        #expect(!ticket.isStrict)
        #expect(schema.tables.first { $0.name == "ticket_fts" }?.type == .virtual)
        #expect(schema.tables.first { $0.name == "ticket_fts_data" }?.type == .shadow)

        // Besides ticket_status, only the primary keys of FTS5's WITHOUT ROWID shadow tables.
        #expect(schema.indexes.filter { $0.origin == .createIndex }.map(\.name) == ["ticket_status"])
        #expect(schema.indexes.filter { $0.origin != .createIndex }.map(\.table) == ["ticket_fts_config", "ticket_fts_idx"])
        #expect(schema.indexes.filter { $0.origin != .createIndex }.allSatisfy { $0.origin == .primaryKey && $0.isUnique })
        let index = try #require(schema.indexes.first { $0.name == "ticket_status" })
        #expect(index.table == "ticket")
        #expect(index.columns == ["status", "created_at"])
        #expect(!index.isUnique)
        #expect(index.origin == .createIndex)
        #expect(!index.isPartial)

        #expect(schema.triggers.map(\.name) == [
            "ticket_fts_after_delete", "ticket_fts_after_insert", "ticket_fts_after_update",
        ])
        #expect(schema.triggers.allSatisfy { $0.table == "ticket" && $0.timing == "AFTER" })
        #expect(schema.triggers.map(\.event) == ["DELETE", "INSERT", "UPDATE"])
        #expect(schema.views.isEmpty)

        let fts = try #require(schema.fts5Tables.first)
        #expect(schema.fts5Tables.count == 1)
        #expect(fts.name == "ticket_fts")
        #expect(fts.contentTable == "ticket")
        #expect(fts.contentRowID == "id")
        #expect(fts.tokenizer == "unicode61 remove_diacritics 2")

        let sync = schema.syncTriggers(for: fts)
        #expect(sync.insert == "ticket_fts_after_insert")
        #expect(sync.delete == "ticket_fts_after_delete")
        #expect(sync.update == "ticket_fts_after_update")
        #expect(sync.missing.isEmpty)
    }

    @Test func droppedTriggerShowsAsMissing() throws {
        let directory = try TemporaryDirectory()
        let connection = try Fixtures.makeExampleDatabase(at: directory.file("example.sqlite"))
        try connection.execute(sql: "DROP TRIGGER ticket_fts_after_update")
        let schema = try Schema(reading: connection)
        let fts = try #require(schema.fts5Tables.first)
        #expect(schema.syncTriggers(for: fts).missing == ["update"])
    }

    @Test func readsIndexKindsViewsAndTableFlags() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE account(email TEXT PRIMARY KEY, name TEXT UNIQUE, deleted INTEGER) WITHOUT ROWID;
            CREATE TABLE entry(id INTEGER PRIMARY KEY, account TEXT, amount INTEGER) STRICT;
            CREATE UNIQUE INDEX entry_live ON entry(account) WHERE amount > 0;
            CREATE INDEX entry_lower ON entry(lower(account), amount);
            CREATE VIEW totals AS SELECT account, sum(amount) FROM entry GROUP BY account;
            CREATE VIEW another AS SELECT 1;
            """)
        let schema = try Schema(reading: connection)

        #expect(schema.tables.map(\.name) == ["account", "entry"])
        let account = try #require(schema.tables.first { $0.name == "account" })
        #expect(account.isWithoutRowID)
        #expect(!account.isStrict)
        #expect(account.columnCount == 3)
        let entry = try #require(schema.tables.first { $0.name == "entry" })
        #expect(entry.isStrict)
        #expect(!entry.isWithoutRowID)

        #expect(schema.views == ["another", "totals"])

        let byName = Dictionary(uniqueKeysWithValues: schema.indexes.map { ($0.name, $0) })
        let live = try #require(byName["entry_live"])
        #expect(live.isUnique)
        #expect(live.isPartial)
        #expect(live.origin == .createIndex)
        #expect(live.columns == ["account"])
        let lower = try #require(byName["entry_lower"])
        #expect(lower.columns == ["<expression>", "amount"])
        #expect(!lower.isUnique)
        let constraints = schema.indexes.filter { $0.table == "account" }
        #expect(Set(constraints.map(\.origin)) == [.primaryKey, .unique])
        #expect(constraints.allSatisfy { $0.isUnique })
        #expect(constraints.first { $0.origin == .primaryKey }?.columns == ["email"])
        #expect(constraints.first { $0.origin == .unique }?.columns == ["name"])
    }

    @Test func emptyDatabaseHasAnEmptySchema() throws {
        let schema = try Schema(reading: Connection.inMemory())
        #expect(schema.tables.isEmpty)
        #expect(schema.indexes.isEmpty)
        #expect(schema.triggers.isEmpty)
        #expect(schema.views.isEmpty)
        #expect(schema.fts5Tables.isEmpty)
    }

    @Test func tempObjectsAreNotPartOfMain() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE t(x);
            CREATE TEMP TABLE scratch(y);
            CREATE TEMP TRIGGER scratch_trigger AFTER INSERT ON t BEGIN INSERT INTO scratch VALUES (new.x); END;
            """)
        let schema = try Schema(reading: connection)
        #expect(schema.tables.map(\.name) == ["t"])
        #expect(schema.triggers.isEmpty)
    }

    @Test func oddTableNamesAreRead() throws {
        let connection = try Connection.inMemory()
        let name = "客户 \"tickets\" 'x'"
        try connection.execute(sql: "CREATE TABLE \(Connection.quote(identifier: name))(a); CREATE INDEX odd_a ON \(Connection.quote(identifier: name))(a)")
        let schema = try Schema(reading: connection)
        #expect(schema.tables.map(\.name) == [name])
        #expect(schema.indexes.map(\.table) == [name])
    }

    @Test func schemaHoldsNoRowData() throws {
        let directory = try TemporaryDirectory()
        let secret = "PLANTED-\(UUID().uuidString)"
        let connection = try Fixtures.makeExampleDatabase(at: directory.file("example.sqlite"), titles: [secret])
        let schema = try Schema(reading: connection)
        let dump = "\(schema.tables) \(schema.indexes) \(schema.triggers) \(schema.views) \(schema.fts5Tables)"
        #expect(!dump.contains(secret))
        #expect(try connection.integer(sql: "SELECT count(*) FROM ticket WHERE title = ?", bindings: [.text(secret)]) == 1)
    }
}

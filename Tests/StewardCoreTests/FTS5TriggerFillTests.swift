import Foundation
@testable import SQLiteKit
import Testing
@testable import StewardCore
import TestSupport

/// FTS5 tables that keep their own content and are filled by triggers on another table:
/// which triggers cover the source, how the insert trigger maps columns, and
/// the rows compared inside SQLite.
@Suite struct FTS5TriggerFillTests {
    static let schema = """
        CREATE TABLE note(id INTEGER PRIMARY KEY, title TEXT, body TEXT, hidden INTEGER DEFAULT 0);
        CREATE VIRTUAL TABLE note_search USING fts5(title, body);
        CREATE TRIGGER note_ai AFTER INSERT ON note BEGIN
            INSERT INTO note_search(rowid, title, body) VALUES (new.id, new.title, new.body);
        END;
        CREATE TRIGGER note_ad AFTER DELETE ON note BEGIN
            DELETE FROM note_search WHERE rowid = old.id;
        END;
        CREATE TRIGGER note_au AFTER UPDATE ON note BEGIN
            UPDATE note_search SET title = new.title, body = new.body WHERE rowid = old.id;
        END;
        """

    func database(_ sql: String = schema) throws -> Connection {
        let connection = try Connection.inMemory()
        try connection.execute(sql: sql)
        return connection
    }

    @Test func triggersOnTheSourceAreFoundWithTheirColumnMapping() throws {
        let connection = try database()
        let fills = try FTS5TriggerFill.find(on: connection)
        #expect(fills.count == 1)
        let fill = try #require(fills.first)
        #expect(fill.table == "note_search")
        #expect(fill.source == "note")
        #expect((fill.insert, fill.delete, fill.update) == ("note_ai", "note_ad", "note_au"))
        #expect(fill.missing.isEmpty)
        let mapping = try #require(fill.mapping)
        #expect(mapping.rowid == "id")
        #expect(mapping.columns.map(\.fts) == ["title", "body"])
        #expect(mapping.columns.map(\.source) == ["title", "body"])
    }

    @Test func rowsAreComparedAsCountsWithoutReadingThemOut() throws {
        let connection = try database()
        try connection.execute(sql: """
            INSERT INTO note(title, body) VALUES ('a', 'one'), ('b', 'two'), ('c', 'three');
            UPDATE note SET body = 'TWO' WHERE id = 2;
            DELETE FROM note WHERE id = 3;
            """)
        let fill = try #require(try FTS5TriggerFill.find(on: connection).first)
        #expect(try fill.compare(on: connection) == .init(unindexed: 0, stale: 0, extra: 0))

        // Behind the triggers' back: a row changed, one added, and an index row left over.
        try connection.execute(sql: """
            DROP TRIGGER note_au; DROP TRIGGER note_ai;
            UPDATE note SET body = 'changed' WHERE id = 1;
            INSERT INTO note(title, body) VALUES ('d', 'four');
            INSERT INTO note_search(rowid, title, body) VALUES (99, 'x', 'y');
            """)
        let difference = try #require(try fill.compare(on: connection))
        #expect(difference == .init(unindexed: 1, stale: 1, extra: 1))
        #expect(difference.sentences == [
            "1 source row not indexed", "1 indexed row out of date", "1 indexed row with no source row",
        ])
    }

    @Test func missingTriggersAreNamedByEvent() throws {
        let connection = try database()
        try connection.execute(sql: "DROP TRIGGER note_ad")
        let fill = try #require(try FTS5TriggerFill.find(on: connection).first)
        #expect(fill.missing == ["delete"])
    }

    @Test func anUpdateTriggerThatDeletesAndInsertsAgainCountsAndAColumnListIsOptional() throws {
        let connection = try database("""
            CREATE TABLE doc(slug TEXT, content TEXT);
            CREATE VIRTUAL TABLE doc_fts USING fts5(slug UNINDEXED, content);
            CREATE TRIGGER doc_i AFTER INSERT ON doc BEGIN INSERT INTO doc_fts VALUES (new.slug, new.content); END;
            CREATE TRIGGER doc_d AFTER DELETE ON doc BEGIN DELETE FROM doc_fts WHERE slug = old.slug; END;
            CREATE TRIGGER doc_u AFTER UPDATE ON doc BEGIN
                DELETE FROM doc_fts WHERE slug = old.slug;
                INSERT INTO doc_fts(slug, content) VALUES (new.slug, new.content);
            END;
            INSERT INTO doc VALUES ('a', 'alpha'), ('b', 'beta');
            """)
        let fill = try #require(try FTS5TriggerFill.find(on: connection).first)
        #expect(fill.missing.isEmpty)
        #expect(fill.mapping?.rowid == nil)
        #expect(try fill.compare(on: connection)?.isEmpty == true)
        try connection.execute(sql: "DELETE FROM doc_fts WHERE slug = 'b'")
        let difference = try #require(try fill.compare(on: connection))
        #expect(difference == .init(unindexed: 1, stale: 0, extra: 0, byValue: true))
        #expect(difference.sentences == ["1 source row not indexed as it is"])
    }

    @Test func computedOrConditionalFillsAreCoveredButNotCompared() throws {
        let connection = try database("""
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT, secret INTEGER);
            CREATE VIRTUAL TABLE item_fts USING fts5(name);
            CREATE TRIGGER item_i AFTER INSERT ON item WHEN new.secret = 0 BEGIN
                INSERT INTO item_fts(rowid, name) VALUES (new.id, new.name);
            END;
            CREATE TABLE tag(id INTEGER PRIMARY KEY, label TEXT);
            CREATE VIRTUAL TABLE tag_fts USING fts5(label);
            CREATE TRIGGER tag_i AFTER INSERT ON tag BEGIN
                INSERT INTO tag_fts(rowid, label) VALUES (new.id, lower(new.label));
            END;
            CREATE VIRTUAL TABLE free_fts USING fts5(text);
            """)
        let fills = try FTS5TriggerFill.find(on: connection)
        #expect(fills.map(\.table) == ["item_fts", "tag_fts"], "an FTS table no trigger fills is not one of them")
        #expect(fills[0].notCompared == "the insert trigger item_i has a WHEN condition")
        #expect(fills[1].notCompared == "the insert trigger tag_i does not copy columns one to one")
        #expect(fills.allSatisfy { $0.mapping == nil && $0.missing == ["delete", "update"] })
    }
}

import Foundation
import SQLiteKit
import StewardCore
import TestSupport
import Testing

@Suite struct FTS5DefinitionTests {
    static let exampleSQL = """
        CREATE VIRTUAL TABLE ticket_fts USING fts5(
            title,
            body,
            content='ticket',
            content_rowid='id',
            tokenize='unicode61 remove_diacritics 2'
        )
        """

    @Test func readsTheExampleMigration() throws {
        let fts = try #require(FTS5Definition(name: "ticket_fts", sql: Self.exampleSQL))
        #expect(fts.name == "ticket_fts")
        #expect(fts.columns == ["title", "body"])
        #expect(fts.unindexedColumns == [])
        #expect(fts.options == [
            "content": "ticket", "content_rowid": "id", "tokenize": "unicode61 remove_diacritics 2",
        ])
        #expect(fts.contentMode == .external)
        #expect(fts.contentTable == "ticket")
        #expect(fts.contentRowID == "id")
        #expect(fts.tokenizer == "unicode61 remove_diacritics 2")
    }

    @Test func readsTheMigrationFileAsShipped() throws {
        let sql = try String(contentsOf: Fixtures.exampleMigrations.appendingPathComponent("0002_ticket_search.sql"), encoding: .utf8)
        let start = try #require(sql.range(of: "CREATE VIRTUAL TABLE"))
        let end = try #require(sql.range(of: ");", range: start.upperBound..<sql.endIndex))
        let fts = try #require(FTS5Definition(name: "ticket_fts", sql: String(sql[start.lowerBound..<end.upperBound])))
        #expect(fts.columns == ["title", "body"])
        #expect(fts.contentTable == "ticket")
        #expect(fts.contentRowID == "id")
    }

    @Test func unindexedColumns() throws {
        let fts = try #require(FTS5Definition(
            name: "f", sql: "CREATE VIRTUAL TABLE f USING fts5(title, created_at UNINDEXED, body, status unindexed)"))
        #expect(fts.columns == ["title", "created_at", "body", "status"])
        #expect(fts.unindexedColumns == ["created_at", "status"])
        #expect(fts.contentMode == .internal)
    }

    @Test func quotedColumnNames() throws {
        let fts = try #require(FTS5Definition(
            name: "f", sql: "CREATE VIRTUAL TABLE f USING fts5(\"my \"\"col\"\"\", [other col] UNINDEXED, `third`)"))
        #expect(fts.columns == ["my \"col\"", "other col", "third"])
        #expect(fts.unindexedColumns == ["other col"])
    }

    @Test(arguments: [
        ("tokenize='porter unicode61'", "tokenize", "porter unicode61"),
        ("tokenize = \"porter ascii\"", "tokenize", "porter ascii"),
        ("tokenize='unicode61 tokenchars ''-_'''", "tokenize", "unicode61 tokenchars '-_'"),
        ("tokenize = 'trigram'", "tokenize", "trigram"),
        ("prefix='2 3'", "prefix", "2 3"),
        ("prefix=2", "prefix", "2"),
        ("PREFIX = 3", "prefix", "3"),
        ("columnsize=0", "columnsize", "0"),
        ("detail=none", "detail", "none"),
        ("Content='Ticket'", "content", "Ticket"),
        ("content=\"ticket\"", "content", "ticket"),
        ("content_rowid='ticket_id'", "content_rowid", "ticket_id"),
    ])
    func optionsWithQuotedAndBareValues(_ declaration: String, _ key: String, _ value: String) throws {
        let fts = try #require(FTS5Definition(name: "f", sql: "CREATE VIRTUAL TABLE f USING fts5(a, \(declaration))"))
        #expect(fts.columns == ["a"])
        #expect(fts.options[key] == value)
        #expect(fts.options.count == 1)
    }

    @Test func contentlessTable() throws {
        let fts = try #require(FTS5Definition(name: "f", sql: "CREATE VIRTUAL TABLE f USING fts5(a, b, content='')"))
        #expect(fts.contentMode == .contentless)
        #expect(fts.options["content"] == "")
        #expect(fts.contentTable == nil)
        #expect(fts.contentRowID == nil)
    }

    @Test func internalContentTable() throws {
        let fts = try #require(FTS5Definition(name: "f", sql: "CREATE VIRTUAL TABLE f USING fts5(a)"))
        #expect(fts.contentMode == .internal)
        #expect(fts.contentTable == nil)
        #expect(fts.contentRowID == nil)
        #expect(fts.tokenizer == "unicode61")
        #expect(fts.options.isEmpty)
    }

    @Test func externalContentRowIDDefaultsToRowid() throws {
        let fts = try #require(FTS5Definition(name: "f", sql: "CREATE VIRTUAL TABLE f USING fts5(a, content=ticket)"))
        #expect(fts.contentMode == .external)
        #expect(fts.contentTable == "ticket")
        #expect(fts.contentRowID == "rowid")
    }

    @Test(arguments: [
        "CREATE VIRTUAL TABLE IF NOT EXISTS main.f USING fts5(a, b)",
        "create virtual table f using FTS5 (a, b)",
        "CREATE VIRTUAL TABLE \"f\" USING fts5(a, b);",
        "-- search\nCREATE VIRTUAL TABLE f USING fts5(a, /* the body */ b)",
    ])
    func declarationVariants(_ sql: String) throws {
        let fts = try #require(FTS5Definition(name: "f", sql: sql))
        #expect(fts.columns == ["a", "b"])
    }

    @Test(arguments: [
        "",
        "CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT)",
        "CREATE VIRTUAL TABLE f USING fts4(a, b)",
        "CREATE VIRTUAL TABLE f USING fts3(a)",
        "CREATE VIRTUAL TABLE r USING rtree(id, minX, maxX)",
        "CREATE VIRTUAL TABLE f USING fts5",
        "CREATE VIRTUAL TABLE f USING fts5vocab(ticket_fts, row)",
        "CREATE TRIGGER t AFTER INSERT ON x BEGIN SELECT 1; END",
    ])
    func otherTablesAreNotFTS5(_ sql: String) {
        #expect(FTS5Definition(name: "f", sql: sql) == nil)
    }
}

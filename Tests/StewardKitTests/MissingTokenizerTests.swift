import SQLiteKit
import StewardChecks
import Testing

/// SQLite's "no such tokenizer" as Steward says it: the tokenizer named, where the table
/// can be checked, and shown at any step (it names the schema, never a row).
@Suite struct MissingTokenizerTests {
    @Test func theNameIsReadFromSQLitesMessageOnly() {
        #expect(MissingTokenizer.name(in: "no such tokenizer: app_words") == "app_words")
        #expect(MissingTokenizer.name(in: "no such tokenizer: ") == nil)
        #expect(MissingTokenizer.name(in: "no such table: app_words") == nil)
        #expect(MissingTokenizer.explained("fts5: syntax error near \"x\"") == nil)
    }

    @Test func aStatementThatNeedsTheTokenizerIsExplainedAndListed() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE ticket (id INTEGER PRIMARY KEY, title TEXT);
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id', tokenize='unicode61');
            CREATE VIRTUAL TABLE plain_fts USING fts5(title);
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, 'unicode61', 'app_words') WHERE name = 'ticket_fts';
            PRAGMA writable_schema = OFF;
            """)
        let reopened = try Connection.inMemory()
        try connection.backup(to: reopened)
        let error = try #require(throws: SQLiteError.self) { try reopened.execute(sql: "SELECT * FROM ticket_fts") }
        #expect(SQLiteMessage.canShow(error))
        #expect(error.shownMessage.hasPrefix("the FTS5 tokenizer app_words is not in this SQLite"))
        #expect(error.shownMessage.contains("StewardKit"))
        #expect(error.messageAndCode.hasSuffix("(SQLite error 1)"))
        #expect(try MissingTokenizer.tables(on: reopened).map { "\($0.table) \($0.tokenizer)" } == ["ticket_fts app_words"])
    }
}

import Foundation
import SQLiteKit
import Testing
import TestSupport

/// One read of a content table feeds the digests of the external-content FTS5 tables
/// that read it (issue 14, `ContentDigests+SharedScan`): the digests must be exactly those
/// the FTS5 module gives, as the independent implementation (scripts/content-digest.py)
/// computes them through the module, including where the shared read must give up.
@Suite struct SharedScanDigestTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// External content with `content_rowid` the INTEGER PRIMARY KEY, gaps and a negative
    /// id; two FTS5 tables on one content table, one named before it and one after, one
    /// with an UNINDEXED column and the default `content_rowid`; a column named in
    /// another case than in the content table; values of every storage class in the
    /// indexed columns; a contentless and an internal-content table beside them.
    static let sharedSQL = """
        CREATE TABLE ticket(id INTEGER PRIMARY KEY, Title TEXT, body TEXT, status TEXT, weight REAL, photo BLOB);
        INSERT INTO ticket VALUES
          (3, 'Printer jammed', 'Café crème on the keyboard', 'open', 1.5, x'00ff'),
          (-7, NULL, '', 'closed', -0.0, NULL),
          (10, 42, 3.25, 'pending', NULL, x''),
          (11, '客户工单搜索', x'68656c6c6f', NULL, 1e300, zeroblob(10)),
          (500, 'Say "hi"', 'tab	and
        newline', 'open', 2, x'01');
        CREATE VIRTUAL TABLE ticket_fts USING fts5(title, body, content='ticket', content_rowid='id');
        CREATE VIRTUAL TABLE a_search USING fts5(body, status UNINDEXED, content='ticket');
        INSERT INTO ticket_fts(ticket_fts) VALUES ('rebuild');
        INSERT INTO a_search(a_search) VALUES ('rebuild');
        CREATE VIRTUAL TABLE bare USING fts5(x, content='');
        INSERT INTO bare(rowid, x) VALUES (1, 'hello'), (5, 'world');
        CREATE VIRTUAL TABLE own USING fts5(a);
        INSERT INTO own VALUES ('inside'), ('out');
        """

    /// `content_rowid` a column whose order is not the rowid's; one with NULL and text
    /// values (FTS5 leaves those rows out); a content table with a column named `rowid`
    /// that the default `content_rowid` then means.
    static let fallbackSQL = """
        CREATE TABLE doc(id INTEGER PRIMARY KEY, num INTEGER, body TEXT);
        INSERT INTO doc VALUES (1, 30, 'c'), (2, 20, 'b'), (3, 10, 'a');
        CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='num');
        CREATE TABLE note(id INTEGER PRIMARY KEY, num, body TEXT);
        INSERT INTO note VALUES (1, 1, 'a'), (2, NULL, 'b'), (3, 'x', 'c'), (4, 4, 'd');
        CREATE VIRTUAL TABLE note_fts USING fts5(body, content='note', content_rowid='num');
        CREATE TABLE odd("rowid" TEXT, body TEXT);
        INSERT INTO odd VALUES ('b', 'two'), ('a', 'one');
        CREATE VIRTUAL TABLE odd_fts USING fts5(body, content='odd');
        """

    func make(_ name: String, _ sql: String) throws -> String {
        let path = directory.file(name)
        try Connection(path: path).execute(sql: sql)
        return path
    }

    func stewardDigests(_ path: String) throws -> [String: Any] { try ContentDigestTests.stewardDigests(path) }

    func essence(_ digests: [String: Any]) -> String { ContentDigestTests.essence(digests) }

    @Test(.enabled(if: ContentDigestTests.python != nil, "needs python3 (scripts/install-deps.sh installs it)"))
    func sharedReadGivesTheModulesDigests() throws {
        let path = try make("shared.db", Self.sharedSQL)
        let mine = try stewardDigests(path)
        #expect(essence(mine) == essence(try ContentDigestTests.pythonDigests(path)))
        let tables = mine["tables"] as? [[String: Any]] ?? []
        #expect(tables.compactMap { $0["name"] as? String } == ["a_search", "bare", "own", "ticket", "ticket_fts"])
        #expect(tables.first { $0["name"] as? String == "ticket_fts" }?["rows"] as? Int == 5)
    }

    @Test(.enabled(if: ContentDigestTests.python != nil, "needs python3 (scripts/install-deps.sh installs it)"))
    func aContentRowIDOutOfRowidOrderOrNotAnIntegerGivesTheModulesDigests() throws {
        let path = try make("fallback.db", Self.fallbackSQL)
        let mine = try stewardDigests(path)
        #expect(essence(mine) == essence(try ContentDigestTests.pythonDigests(path)))
        let rows = Dictionary(uniqueKeysWithValues: (mine["tables"] as? [[String: Any]] ?? []).compactMap { table in
            (table["name"] as? String).map { ($0, table["rows"] as? Int ?? -1) }
        })
        #expect(rows["note"] == 4 && rows["note_fts"] == 2, "FTS5 leaves out the rows whose content_rowid is not an integer: \(rows)")
        #expect(rows["odd"] == 2 && rows["odd_fts"] == 0, "\(rows)")
    }

    /// An FTS5 table that its module cannot read here stays unreadable, its content
    /// table digested: a column the content table lacks, a tokenizer this SQLite lacks.
    @Test func anFTS5TableItsModuleCannotReadStaysUnreadable() throws {
        let path = directory.file("unreadable.db")
        try systemTool(["sqlite3", path, """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT); INSERT INTO doc VALUES (1, 'a'), (2, 'b');
            CREATE VIRTUAL TABLE doc_fts USING fts5(body, missing, content='doc', content_rowid='id');
            CREATE VIRTUAL TABLE doc_tok USING fts5(body, content='doc', content_rowid='id', tokenize='unicode61');
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, 'unicode61', 'nosuchtokenizer') WHERE name = 'doc_tok';
            """])
        let digests = try stewardDigests(path)
        #expect(digests["unreadable"] as? [String] == ["doc_fts", "doc_tok"])
        #expect((digests["tables"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["doc"])
    }
}

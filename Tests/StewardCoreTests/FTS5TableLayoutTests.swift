import SQLiteKit
@testable import StewardChecks
import Testing

/// What the parallel FTS5 check reads of a declaration, and its digest's arithmetic.
@Suite struct FTS5TableLayoutTests {
    @Test(arguments: [
        ("unicode61", ["unicode61"]),
        ("porter unicode61 remove_diacritics 1", ["porter", "unicode61", "remove_diacritics", "1"]),
        ("unicode61 tokenchars '-_' separators '.'", ["unicode61", "tokenchars", "-_", "separators", "."]),
        ("unicode61 categories 'L* N* Co'", ["unicode61", "categories", "L* N* Co"]),
        ("ascii separators 'it''s'", ["ascii", "separators", "it's"]),
        ("trigram case_sensitive 1", ["trigram", "case_sensitive", "1"]),
        ("[my tokenizer] \"a b\" `c`", ["my tokenizer", "a b", "c"]),
        ("", []),
        ("unicode61 ,", []),
    ])
    func theTokenizeOptionSplitsAsFTS5SplitsIt(value: String, words: [String]) {
        #expect(FTS5TableLayout.words(of: value) == words)
    }

    @Test func aDeclarationGivesColumnsDetailContentAndReasons() throws {
        let external = try #require(FTS5Definition(name: "t_fts", sql: "CREATE VIRTUAL TABLE t_fts USING fts5(title, body UNINDEXED, content='t', content_rowid='id', detail=column, columnsize=0)"))
        let layout = FTS5TableLayout(external)
        #expect(layout.columns == ["title", "body"])
        #expect(layout.indexed == [true, false])
        #expect(layout.detail == .column)
        #expect(!layout.columnSize)
        #expect(layout.contentTable == "t")
        #expect(layout.contentRowID == "id")
        #expect(layout.contentColumns == ["title", "body"])
        #expect(layout.unsupported == nil)

        let own = FTS5TableLayout(try #require(FTS5Definition(name: "n", sql: "CREATE VIRTUAL TABLE n USING fts5(a, b)")))
        #expect(own.contentTable == "n_content")
        #expect(own.contentRowID == "id")
        #expect(own.contentColumns == ["c0", "c1"])

        for (options, reason) in [("content=''", "contentless"), ("prefix='2', detail=none", "prefix indexes"), ("detail=bogus", "detail=bogus"), ("tokendata=1", "tokendata=1")] {
            let table = try #require(FTS5Definition(name: "x", sql: "CREATE VIRTUAL TABLE x USING fts5(a, \(options))"))
            let sql = "CREATE VIRTUAL TABLE x USING fts5(a, \(options))"
            #expect(FTS5TableLayout(table, declaration: sql).unsupported?.hasPrefix(reason) == true, "\(options)")
        }
        // Every prefix option counts; detail=full tables with them are the digest's.
        let sql = "CREATE VIRTUAL TABLE p USING fts5(a, prefix=2, prefix='3 4', tokenize=porter)"
        let prefixed = FTS5TableLayout(try #require(FTS5Definition(name: "p", sql: sql)), declaration: sql)
        #expect(prefixed.prefixes == [2, 3, 4])
        #expect(prefixed.unsupported == nil)
        #expect(FTS5TableLayout.prefixes(in: "CREATE VIRTUAL TABLE p USING fts5(a, prefix='0')") == nil)
    }

    @Test func theDigestIsOrderFreeAndCountsDuplicates() {
        var forward = FTS5EntryDigest()
        var backward = FTS5EntryDigest()
        let entries: [(Int64, UInt64, Int64, UInt64)] = [(1, 7, 0, 42), (1, 7, 1, 43), (2, 8, 0, 42), (3, 7, 5, 99)]
        for entry in entries { forward.add(rowid: entry.0, column: entry.1, offset: entry.2, term: entry.3) }
        for entry in entries.reversed() { backward.add(rowid: entry.0, column: entry.1, offset: entry.2, term: entry.3) }
        #expect(forward == backward)
        // An entry twice is not an entry none times (FTS5's XOR cannot tell them apart).
        var twice = forward
        twice.add(rowid: 9, column: 1, offset: 1, term: 1)
        twice.add(rowid: 9, column: 1, offset: 1, term: 1)
        #expect(twice != forward)
        twice.remove(rowid: 9, column: 1, offset: 1, term: 1)
        twice.remove(rowid: 9, column: 1, offset: 1, term: 1)
        #expect(twice == forward)
        // Each part of an entry counts.
        var moved = FTS5EntryDigest()
        for entry in entries { moved.add(rowid: entry.0, column: entry.1, offset: entry.2 + (entry.0 == 3 ? 1 : 0), term: entry.3) }
        #expect(moved != forward)
    }
}

@testable import BundleFormat
import Foundation
import SQLiteKit
@testable import StewardCore
import TestSupport
import Testing

/// Which reads the shared scan serves (the digests it gives are compared with the FTS5
/// module's in EndToEndTests/SharedScanDigestTests).
@Suite struct ContentDigestSharedScanTests {
    func connection(_ sql: String) throws -> Connection {
        let connection = try Connection.inMemory()
        try connection.execute(sql: sql)
        return connection
    }

    @Test func oneReadFeedsEveryExternalContentTableInRowidOrder() throws {
        let db = try connection("""
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT, body TEXT);
            INSERT INTO ticket VALUES (-2, 'a', 'b'), (7, 'c', NULL), (9, NULL, 'd');
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, body, content='ticket', content_rowid='id');
            CREATE VIRTUAL TABLE a_fts USING fts5(body, content='Ticket');
            CREATE VIRTUAL TABLE bare USING fts5(x, content='');
            """)
        let chosen = try ContentDigests.tablesBySchema(db).tables
        let feeds = try ContentDigests.sharedScanFeeds(chosen, db)
        let ticket = try #require(chosen.firstIndex { $0.0 == "ticket" })
        #expect(feeds.keys.sorted() == [ticket])
        #expect(feeds[ticket]?.map(\.name).sorted() == ["a_fts", "ticket_fts"])
        let shared = try #require(try ContentDigests.sharedScan(of: "ticket", feeding: feeds[ticket] ?? [], db))
        #expect(shared.content.rows == 3)
        #expect(shared.fed.map(\.1.rows) == [3, 3])
    }

    @Test func aContentRowIDThatIsNotAnIncreasingIntegerEndsTheSharedRead() throws {
        for values in ["(1, 30, 'c'), (2, 20, 'b')", "(1, 1, 'a'), (2, NULL, 'b')", "(1, 1, 'a'), (2, 'x', 'b')", "(1, 5, 'a'), (2, 5, 'b')"] {
            let db = try connection("""
                CREATE TABLE doc(id INTEGER PRIMARY KEY, num, body TEXT);
                INSERT INTO doc VALUES \(values);
                CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='num');
                """)
            let chosen = try ContentDigests.tablesBySchema(db).tables
            let feeds = try ContentDigests.sharedScanFeeds(chosen, db)
            let doc = try #require(chosen.firstIndex { $0.0 == "doc" })
            #expect(try ContentDigests.sharedScan(of: "doc", feeding: feeds[doc] ?? [], db) == nil, "\(values)")
        }
    }
}

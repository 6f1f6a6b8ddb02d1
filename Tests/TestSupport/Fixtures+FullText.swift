import Foundation
import SQLiteKit

/// FTS3 and FTS4 databases as applications (iOS apps above all) still make them.
extension Fixtures {
    /// An external-content FTS4 table `doc_fts` over `doc`, kept in step by the four
    /// triggers of SQLite's own example (https://sqlite.org/fts3.html, "External Content
    /// FTS4 Tables": delete BEFORE update and delete, insert AFTER insert and update), and
    /// an FTS3 table `note3` and an FTS4 table `note4` with their own content. `rows` rows
    /// in each, so that their indexes have segments outside the segment directory.
    @discardableResult
    public static func makeFTS4Database(at path: String, rows: Int = 2000) throws -> Connection {
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '');
            CREATE VIRTUAL TABLE doc_fts USING fts4(content="doc", title, body);
            CREATE TRIGGER doc_bu BEFORE UPDATE ON doc BEGIN DELETE FROM doc_fts WHERE docid = old.rowid; END;
            CREATE TRIGGER doc_bd BEFORE DELETE ON doc BEGIN DELETE FROM doc_fts WHERE docid = old.rowid; END;
            CREATE TRIGGER doc_au AFTER UPDATE ON doc BEGIN
                INSERT INTO doc_fts(docid, title, body) VALUES (new.rowid, new.title, new.body);
            END;
            CREATE TRIGGER doc_ai AFTER INSERT ON doc BEGIN
                INSERT INTO doc_fts(docid, title, body) VALUES (new.rowid, new.title, new.body);
            END;
            CREATE VIRTUAL TABLE note3 USING fts3(body);
            CREATE VIRTUAL TABLE note4 USING fts4(body, tokenize=unicode61);
            BEGIN;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO doc(title, body) SELECT 'ticket ' || i || ' printer', 'word' || i || ' alpha beta ' || (i * 7) FROM n;
            INSERT INTO note3(body) SELECT body FROM doc;
            INSERT INTO note4(body) SELECT body FROM doc;
            COMMIT;
            """)
        return connection
    }

    /// The external-content table's content changed without its index: the update
    /// triggers were dropped for the change (as a migration that rebuilt `doc` would
    /// leave them), then put back, so that only the index is wrong.
    public static func driftFTS4ExternalContent(at path: String) throws {
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            DROP TRIGGER doc_bu; DROP TRIGGER doc_au;
            UPDATE doc SET title = 'scanner ' || id WHERE id <= 3;
            CREATE TRIGGER doc_bu BEFORE UPDATE ON doc BEGIN DELETE FROM doc_fts WHERE docid = old.rowid; END;
            CREATE TRIGGER doc_au AFTER UPDATE ON doc BEGIN
                INSERT INTO doc_fts(docid, title, body) VALUES (new.rowid, new.title, new.body);
            END;
            """)
    }

    /// Overwrites the first segment block of `table` (an FTS3 or FTS4 table) with zeros
    /// after its first bytes: `PRAGMA integrity_check` still says ok, since it does not
    /// look inside virtual tables' shadow tables as FTS does.
    public static func damageFTS4Segments(of table: String, at path: String) throws {
        let connection = try Connection(path: path)
        let segments = Connection.quote(identifier: table + "_segments")
        try connection.execute(sql: """
            UPDATE \(segments) SET block = substr(block, 1, 10) || zeroblob(length(block) - 10)
            WHERE blockid = (SELECT min(blockid) FROM \(segments))
            """)
    }
}

extension Fixtures {
    /// What a passing fts-sync summary adds when Steward's parallel check proved every FTS5
    /// table, on this machine's cores (issue 33).
    public static var parallelCheckSuffix: String {
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return " (Steward's parallel check, \(cores) worker\(cores == 1 ? "" : "s"))"
    }
}

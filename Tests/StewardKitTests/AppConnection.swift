import CAppTokenizer
import CSQLite
import Foundation
import Testing

/// The app, played: its own connection opened with SQLite's C API, its own FTS5 tokenizer
/// (`app_words`, registered through fts5_api by CAppTokenizer), and its ticket database.
final class AppConnection {
    static let tokenizer = "app_words"

    let handle: OpaquePointer

    init(path: String, registeringTokenizer: Bool = true) throws {
        var opened: OpaquePointer?
        let rc = sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil)
        handle = try #require(opened)
        try #require(rc == SQLITE_OK)
        if registeringTokenizer {
            try #require(steward_test_register_app_tokenizer(handle, Self.tokenizer) == SQLITE_OK)
        }
    }

    deinit {
        // Steward never closed it, and left no statement open: closing succeeds once.
        let rc = sqlite3_close(handle)
        precondition(rc == SQLITE_OK, "the app's connection could not be closed: a statement was left open")
    }

    func execute(_ sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        #expect(rc == SQLITE_OK, "\(message.map { String(cString: $0) } ?? "")")
        try #require(rc == SQLITE_OK)
    }

    func integer(_ sql: String) throws -> Int64 {
        var statement: OpaquePointer?
        try #require(sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        try #require(sqlite3_step(statement) == SQLITE_ROW)
        return sqlite3_column_int64(statement, 0)
    }

    func text(_ sql: String) throws -> String {
        var statement: OpaquePointer?
        try #require(sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK)
        defer { sqlite3_finalize(statement) }
        try #require(sqlite3_step(statement) == SQLITE_ROW)
        return sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? ""
    }

    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// The ticket database: an external-content FTS5 index with the app's tokenizer, its
    /// three sync triggers, a table of comments that points at tickets, and the app's rows.
    func createTicketDatabase(tokenizer: String = AppConnection.tokenizer) throws {
        try execute("""
            PRAGMA journal_mode = WAL;
            CREATE TABLE ticket (id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '');
            CREATE TABLE comment (id INTEGER PRIMARY KEY, ticket_id INTEGER NOT NULL REFERENCES ticket(id), text TEXT NOT NULL);
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, body, content='ticket', content_rowid='id', tokenize='\(tokenizer)');
            CREATE TRIGGER ticket_fts_after_insert AFTER INSERT ON ticket BEGIN
                INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
            END;
            CREATE TRIGGER ticket_fts_after_delete AFTER DELETE ON ticket BEGIN
                INSERT INTO ticket_fts(ticket_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
            END;
            CREATE TRIGGER ticket_fts_after_update AFTER UPDATE ON ticket BEGIN
                INSERT INTO ticket_fts(ticket_fts, rowid, title, body) VALUES ('delete', old.id, old.title, old.body);
                INSERT INTO ticket_fts(rowid, title, body) VALUES (new.id, new.title, new.body);
            END;
            INSERT INTO ticket (id, title, body) VALUES
                (1, 'Customer secret: invoice 4711 overdue', 'Private note of a customer'),
                (2, 'Login fails after update', 'Password manager autofill'),
                (3, 'Café closes early', 'Opening hours');
            INSERT INTO comment (ticket_id, text) VALUES (1, 'called back'), (2, 'asked for logs');
            """)
    }

    /// Drifts the index: a content row changed with the triggers dropped.
    func driftIndex() throws {
        try execute("""
            DROP TRIGGER ticket_fts_after_insert;
            DROP TRIGGER ticket_fts_after_delete;
            DROP TRIGGER ticket_fts_after_update;
            UPDATE ticket SET title = 'Login works again' WHERE id = 2;
            """)
    }

    /// The app's rows as one text, to prove nothing of them changed.
    func rows() throws -> String {
        try text("SELECT group_concat(id || ':' || title || ':' || body, '|') FROM (SELECT * FROM ticket ORDER BY id)")
            + (try text("SELECT group_concat(ticket_id || ':' || text, '|') FROM (SELECT * FROM comment ORDER BY id)"))
    }
}

/// The search contract the app's test runs: its tokenizer folds ASCII case and splits on
/// punctuation.
enum AppContract {
    static let text = """
        {
          "version": "app-search/1",
          "table": "ticket",
          "fts_table": "ticket_fts",
          "key": "id",
          "legacy_version": 1,
          "max_query_length": 40,
          "records": [
            {"id": 1, "title": "Printer jammed", "body": "tray two"},
            {"id": 2, "title": "Printer empty", "body": "tray one"},
            {"id": 3, "title": "Network outage", "body": "switch restarted"}
          ],
          "cases": [
            {"name": "case-folding", "query": "PRINTER", "expect": [1, 2]},
            {"name": "punctuation-splits", "query": "network-outage", "expect": [3]},
            {"name": "prefix", "query": "prin", "mode": "prefix", "expect": [1, 2]},
            {"name": "rename", "steps": [{"op": "update", "key": 1, "values": {"title": "Scanner jammed"}}], "query": "printer", "expect": [2]},
            {"name": "rolled-back-delete", "steps": [{"op": "begin"}, {"op": "delete", "key": 2}, {"op": "rollback"}], "query": "printer", "expect": [1, 2]},
            {"name": "committed-delete", "steps": [{"op": "begin"}, {"op": "delete", "key": 2}, {"op": "commit"}], "query": "printer", "expect": [1]},
            {"name": "syntax-error", "query": "\\"unbalanced", "mode": "syntax", "expect_error": true},
            {"name": "too-long", "query": "a query that is far longer than forty characters", "expect_rejection": "too-long"}
          ]
        }
        """
}

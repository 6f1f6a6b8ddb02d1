import Foundation
import SQLiteKit

/// A schema that uses SQLite's JSON functions everywhere a schema can: a CHECK constraint
/// (`json_valid`), generated columns (`json_extract`, `->>`, stored and virtual), an index
/// on an expression (`json_extract`), a view (`->>`, `json_array_length`) and a trigger
/// (`json_object`). On SQLite 3.40 these functions are not marked innocuous, so with
/// `trusted_schema` off such a schema cannot even be read ("unsafe use of
/// json_extract()"). Every command must handle it.
public enum JSONSchemaFixture {
    /// The migration set that creates the schema, in the steward layout; user_version 2.
    public static let migrations: [(name: String, sql: String)] = [
        ("0001_create_document.sql", """
            -- Documents kept as JSON, with two columns computed from them.
            CREATE TABLE document (
                id    INTEGER PRIMARY KEY,
                doc   TEXT NOT NULL CHECK (json_valid(doc)),
                kind  TEXT GENERATED ALWAYS AS (json_extract(doc, '$.kind')) VIRTUAL,
                title TEXT GENERATED ALWAYS AS (doc ->> '$.title') STORED
            );
            CREATE TABLE document_log (
                id          INTEGER PRIMARY KEY,
                document_id INTEGER NOT NULL REFERENCES document(id),
                change      TEXT NOT NULL CHECK (json_valid(change))
            );
            """),
        ("0002_document_index_view_trigger.sql", """
            CREATE INDEX document_a ON document(json_extract(doc, '$.a'));
            CREATE INDEX document_kind ON document(kind) WHERE json_type(doc, '$.kind') = 'text';
            CREATE VIEW document_summary AS
                SELECT id, doc ->> '$.title' AS title, json_array_length(doc, '$.tags') AS tag_count FROM document;
            CREATE TRIGGER document_logged AFTER UPDATE OF doc ON document BEGIN
                INSERT INTO document_log(document_id, change) VALUES (NEW.id, json_object('kind', NEW.kind, 'a', NEW.doc -> '$.a'));
            END;
            """),
    ]

    public static let newestVersion: Int32 = 2

    /// The documents inserted by `makeDatabase`.
    public static let documents = [
        #"{"a": 1, "kind": "note", "title": "First note", "tags": ["x", "y"]}"#,
        #"{"a": 2, "kind": "task", "title": "Second", "tags": []}"#,
        #"{"a": {"nested": true}, "title": "No kind"}"#,
    ]

    /// Writes the migration files into `directory` (created if needed).
    public static func writeMigrations(into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for migration in migrations {
            try Data(migration.sql.utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(migration.name))
        }
        // Steward's own layout, declared: sqlx reads these names too.
        try Data("steward\n".utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(".steward-dialect"))
    }

    /// Creates the database at `path`: the migrations, the documents, one update (so the
    /// trigger has written), `user_version` 2.
    @discardableResult
    public static func makeDatabase(at path: String, journalMode: String = "delete") throws -> Connection {
        let connection = try Connection(path: path)
        if journalMode != "delete" { try connection.setJournalMode(journalMode) }
        for migration in migrations { try connection.execute(sql: migration.sql) }
        for document in documents {
            try connection.execute(sql: "INSERT INTO document(doc) VALUES (?)", bindings: [.text(document)])
        }
        try connection.execute(sql: #"UPDATE document SET doc = json_set(doc, '$.a', 3) WHERE id = 2"#)
        try connection.setUserVersion(newestVersion)
        return connection
    }
}

import FileNames
import Foundation
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

/// Names that forge report lines when printed raw: a newline,
/// a carriage return, a tab, a terminal escape sequence and a backslash, with whole
/// report lines between them. Every command is run on files named so, and on a bundle
/// whose manifest strings are so, and no forged line may appear in what it prints.
public enum HostileNames {
    /// The lines a raw name would print; none may start a line of any output. No `/`:
    /// they are parts of file names too.
    public static let forgedLines = [
        "Restored    forged.db",
        "Result     PASSED: 42 checks passed",
        "Verified   FORGED, every SHA-256 matches",
    ]

    /// `base` followed by the forged lines, a tab, an escape sequence and a backslash.
    public static func name(_ base: String) -> String {
        "\(base)\n\(forgedLines[0])\r\n\(forgedLines[1])\r\(forgedLines[2])\t\u{1B}[2J\\"
    }

    public static let databaseFileName = name("db") + ".sqlite"
    public static let tableName = name("tbl")
    public static let triggerName = name("trg")
    public static let ftsName = name("fts")
    /// A migration file that `steward migrate` runs (version 1).
    public static let migrationFileName = "0001_" + name("init") + ".sql"

    /// The SQL of the migration: a table, an index, a view, a trigger, and an
    /// external-content FTS5 table without its update trigger (so that inspect warns and
    /// verify fails, naming them).
    public static var migrationSQL: String {
        let table = Connection.quote(identifier: tableName)
        let fts = Connection.quote(identifier: ftsName)
        return """
            CREATE TABLE \(table)(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE INDEX \(Connection.quote(identifier: name("idx"))) ON \(table)(title);
            CREATE VIEW \(Connection.quote(identifier: name("view"))) AS SELECT title FROM \(table);
            CREATE VIRTUAL TABLE \(fts) USING fts5(title, content=\(Connection.quote(literal: tableName)), content_rowid='id');
            CREATE TRIGGER \(Connection.quote(identifier: triggerName)) AFTER INSERT ON \(table) BEGIN
              INSERT INTO \(fts)(rowid, title) VALUES (new.id, new.title);
            END;
            CREATE TRIGGER \(Connection.quote(identifier: name("trg-delete"))) AFTER DELETE ON \(table) BEGIN
              INSERT INTO \(fts)(\(fts), rowid, title) VALUES ('delete', old.id, old.title);
            END;
            INSERT INTO \(table)(title) VALUES ('one'), ('two');

            """
    }

    /// Writes the migration set into `directory` (created if needed).
    public static func writeMigrations(into directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try migrationSQL.write(toFile: directory + "/" + migrationFileName, atomically: true, encoding: .utf8)
        // Steward's own layout, declared: sqlx reads these names too.
        try Data("steward\n".utf8).write(to: URL(fileURLWithPath: directory).appendingPathComponent(".steward-dialect"))
    }

    /// Makes the database directly (without Steward) at `path`, at user_version 1.
    @discardableResult
    public static func makeDatabase(at path: String) throws -> Connection {
        let connection = try Connection(path: path)
        try connection.execute(sql: migrationSQL + "PRAGMA user_version = 1;")
        return connection
    }

    /// Manifest strings that a crafted bundle can set without breaking its format: the
    /// source's file name and the Steward version are free text.
    public static func forgeManifestStrings(_ parts: inout BundleParts) {
        parts.setSource("fileName", name("source"))
        parts.manifest["stewardVersion"] = name("0.1.0")
    }

    /// The forged lines, escape sequences and carriage returns found in `output`; empty
    /// when the output is clean.
    public static func forgeries(in output: String) -> [String] {
        var found: [String] = []
        for line in output.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            let trimmed = line.drop { $0 == " " }
            for forged in forgedLines where trimmed.hasPrefix(forged) {
                found.append("a line reads '\(forged)'")
            }
        }
        if output.unicodeScalars.contains("\u{1B}") { found.append("an escape character") }
        if output.unicodeScalars.contains("\r") { found.append("a carriage return") }
        return found
    }
}

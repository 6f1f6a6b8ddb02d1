import Foundation
import SQLiteKit

/// Databases built for tests.
public enum Fixtures {
    /// The repository root (the folder holding Package.swift).
    public static var repositoryRoot: URL {
        var url = URL(fileURLWithPath: #filePath)
        while url.path != "/" {
            url.deleteLastPathComponent()
            if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) {
                return url
            }
        }
        return URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
    }

    /// The example migration set shipped in `migrations/`.
    public static var exampleMigrations: URL {
        repositoryRoot.appendingPathComponent("migrations")
    }

    /// The SQL of one example migration file.
    public static func exampleMigrationSQL(_ name: String) throws -> String {
        try String(contentsOf: exampleMigrations.appendingPathComponent(name), encoding: .utf8)
    }

    /// Creates the example database at `path`: the ticket table with `rows`, then the
    /// FTS5 migration and its rebuild, at user_version 2.
    @discardableResult
    public static func makeExampleDatabase(at path: String, titles: [String] = ["Printer is on fire", "Café au lait spilled"], journalMode: String = "delete") throws -> Connection {
        let connection = try Connection(path: path)
        if journalMode != "delete" { try connection.setJournalMode(journalMode) }
        try connection.execute(sql: exampleMigrationSQL("0001_create_ticket.sql"))
        for title in titles {
            try connection.execute(sql: "INSERT INTO ticket(title, body) VALUES (?, ?)", bindings: [.text(title), .text("body of \(title)")])
        }
        try connection.execute(sql: exampleMigrationSQL("0002_ticket_search.sql"))
        try connection.execute(sql: "INSERT INTO ticket_fts(ticket_fts) VALUES ('rebuild')")
        try connection.setUserVersion(2)
        return connection
    }

    /// A database of the example set at `version`, as its migrations leave it: the ticket
    /// table with `titles` (each with the body "body") at version 1; at version 2 the
    /// search table made after them, without a rebuild.
    @discardableResult
    public static func makeExampleSetDatabase(at path: String, version: Int32 = 1, titles: [String]) throws -> Connection {
        let connection = try Connection(path: path)
        try connection.execute(sql: exampleMigrationSQL("0001_create_ticket.sql"))
        for title in titles {
            try connection.execute(sql: "INSERT INTO ticket(title, body) VALUES (?, ?)", bindings: [.text(title), .text("body")])
        }
        try connection.setUserVersion(1)
        if version >= 2 {
            try connection.execute(sql: exampleMigrationSQL("0002_ticket_search.sql"))
            try connection.setUserVersion(2)
        }
        return connection
    }
}

import CSQLite

/// Facts about the SQLite library this process is linked with.
public enum SQLiteLibrary {
    /// `sqlite3_libversion()`, for example `3.40.1`.
    public static var version: String { String(cString: sqlite3_libversion()) }

    /// `sqlite3_libversion_number()`, for example `3040001`.
    public static var versionNumber: Int { Int(sqlite3_libversion_number()) }

    /// `sqlite3_sourceid()`: the check-in the library was built from.
    public static var sourceID: String { String(cString: sqlite3_sourceid()) }

    /// Every compile-time option (`sqlite3_compileoption_get`), without the `SQLITE_` prefix.
    public static var compileOptions: [String] {
        var options: [String] = []
        var index: Int32 = 0
        while let option = sqlite3_compileoption_get(index) {
            options.append(String(cString: option))
            index += 1
        }
        return options
    }

    /// Whether an FTS5 table can actually be created through `connection` (or a fresh
    /// in-memory connection). Proven by doing it, not by reading compile options.
    public static func canCreateFTS5(on connection: Connection? = nil) -> Bool {
        do {
            let probe = try connection ?? Connection.inMemory()
            try probe.execute(sql: "CREATE VIRTUAL TABLE temp.steward_fts5_probe USING fts5(x)")
            try probe.execute(sql: "DROP TABLE temp.steward_fts5_probe")
            return true
        } catch {
            return false
        }
    }
}

extension SQLiteLibrary {
    /// Whether `sql` ends with a complete statement (`sqlite3_complete`): a `;` that is not
    /// inside a string, comment or trigger body.
    public static func isComplete(_ sql: String) -> Bool {
        sqlite3_complete(sql) != 0
    }
}

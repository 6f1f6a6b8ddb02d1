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

    /// Turns SQLite's memory statistics off for the whole process
    /// (`SQLITE_CONFIG_MEMSTATUS`); only possible before SQLite is first used (returns
    /// false after). With them on, every allocation and free in SQLite takes one
    /// process-wide mutex: two threads running SQLite statements at once (FTS5's check
    /// beside `integrity_check`) wait on each other thousands of times a second. With them
    /// off, `sqlite3_hard_heap_limit64` and `soft_heap_limit` are not enforced and
    /// `sqlite3_memory_used` reads 0.
    @discardableResult
    public static func turnOffMemoryStatistics() -> Bool {
        steward_sqlite_config_memory_statistics(0) == SQLITE_OK
    }

    /// Whether SQLite counts its memory (`SQLITE_CONFIG_MEMSTATUS`), as seen from its
    /// high-water mark: meaningful only once something in this process has used SQLite.
    public static var keepsMemoryStatistics: Bool {
        sqlite3_memory_highwater(0) > 0
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

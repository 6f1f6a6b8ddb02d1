import CSQLite

extension Connection {
    /// Loads the SQLite extension at `path` (https://www.sqlite.org/loadext.html) through
    /// the C interface only.
    ///
    /// > `SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION` … enables or disables only the C-API
    /// > `sqlite3_load_extension()`, leaving the SQL function `load_extension()` disabled.
    ///
    /// It is switched off again once the extension is in, so nothing a migration or a
    /// schema runs can load another.
    /// - Throws: `SQLiteError` with SQLite's message when the library cannot be loaded or its
    ///   entry point fails.
    public func loadExtension(path: String) throws {
        try setConfiguration(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, enabled: true)
        defer { try? setConfiguration(SQLITE_DBCONFIG_ENABLE_LOAD_EXTENSION, enabled: false) }
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_load_extension(sqliteConnection, path, nil, &message)
        guard rc == SQLITE_OK else {
            let text = message.map { String(cString: $0) }
            sqlite3_free(message)
            throw SQLiteError(extendedCode: rc, message: text)
        }
    }
}

extension Connection {
    /// Loads `extensions` and then hardens the connection. The schema stays trusted only
    /// when nothing was loaded: a loaded extension's functions and virtual tables are not
    /// SQLite's own, so with one the schema may use only innocuous functions
    /// (`trustingSchema: false`, see `harden`).
    /// - Throws: `SQLiteError` when an option cannot be set or an extension cannot be loaded.
    public func harden(loadingExtensions extensions: [String], trustingSchema: Bool = true) throws {
        for path in extensions { try loadExtension(path: path) }
        try harden(trustingSchema: trustingSchema && extensions.isEmpty)
    }
}

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

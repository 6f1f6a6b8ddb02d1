import SQLiteKit

/// `--load-extension` outside migrate: each extension is tried once on a private
/// in-memory connection before any file is touched, so that a wrong path is a bad input
/// (65), not a check that fails on every connection.
enum ExtensionLoading {
    static func requireLoadable(_ extensions: [String]) throws {
        for path in extensions {
            do {
                try Connection.inMemory().loadExtension(path: path)
            } catch let error as SQLiteError {
                throw StewardError(.badInput, "cannot load the SQLite extension \(path): \(error.message)")
            }
        }
    }
}

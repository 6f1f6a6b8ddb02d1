import SQLiteKit
import StewardBase

/// `--load-extension` outside migrate: each extension is tried once on a private
/// in-memory connection before any file is touched, so that a wrong path is a bad input
/// (65), not a check that fails on every connection.
enum ExtensionLoading {
    static func requireLoadable(_ extensions: [String]) throws {
        for path in extensions {
            do {
                try Connection.inMemory().loadExtension(path: path)
            } catch let error as SQLiteError {
                throw StewardError.cannotLoadExtension(path, error)
            }
        }
    }
}

extension StewardError {
    /// An extension the user asked to load that SQLite cannot load (65). The message is
    /// `sqlite3_load_extension`'s, quoted whole: the dynamic loader's or the entry point's
    /// words about the library the user named, before any statement ran (`load_extension()`
    /// stays off for SQL), so no row can be in it. Every statement's message goes through
    /// `SQLiteMessage`.
    static func cannotLoadExtension(_ path: String, _ error: SQLiteError) -> StewardError {
        StewardError(.badInput, "cannot load the SQLite extension \(path): \(error.message)")
    }

    /// Made by `cannotLoadExtension(_:_:)`.
    var isExtensionLoading: Bool {
        kind == .badInput && message.hasPrefix("cannot load the SQLite extension ")
    }
}

import SQLiteKit

extension SQLiteError {
    /// SQLite's message and the extended result code, as every message that quotes an
    /// error from SQLite ends: `disk I/O error (SQLite error 266)`.
    var messageAndCode: String { "\(message) (SQLite error \(extendedCode))" }
}

import SQLiteKit

/// The settings of a borrowed connection that Steward's work could touch, read before it
/// and put back after it: what the application set stays set, whatever Steward needed
/// (FTS5's integrity-check is an INSERT, so `query_only` is turned off for it).
struct ConnectionSettings: Equatable {
    /// Pragmas that read back the value they set, per connection.
    static let pragmas = [
        "query_only", "foreign_keys", "defer_foreign_keys", "recursive_triggers", "trusted_schema",
        "ignore_check_constraints", "reverse_unordered_selects", "cell_size_check", "automatic_index", "busy_timeout",
    ]

    /// Each pragma's value, by name.
    var values: [String: Int64]
    var lastInsertRowID: Int64

    /// Reads every setting of `connection`.
    init(of connection: Connection) throws {
        var values: [String: Int64] = [:]
        for pragma in Self.pragmas {
            values[pragma] = try connection.integer(sql: "PRAGMA \(pragma)")
        }
        self.values = values
        lastInsertRowID = connection.lastInsertRowID
    }

    /// Sets back every setting that differs from this snapshot; returns the names set back.
    @discardableResult
    func restore(on connection: Connection) throws -> [String] {
        let now = try ConnectionSettings(of: connection)
        var restored: [String] = []
        for pragma in Self.pragmas where now.values[pragma] != values[pragma] {
            try connection.execute(sql: "PRAGMA \(pragma) = \(values[pragma] ?? 0)")
            restored.append(pragma)
        }
        if now.lastInsertRowID != lastInsertRowID {
            connection.setLastInsertRowID(lastInsertRowID)
        }
        return restored
    }
}

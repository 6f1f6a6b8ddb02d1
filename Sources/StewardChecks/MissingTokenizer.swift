import SQLiteKit

/// An FTS5 table declared with a tokenizer this SQLite does not have: an application's
/// own, registered on its own connection through `fts5_api` (no outside tool has it), or a
/// name no SQLite knows. SQLite says only `no such tokenizer: NAME` (FTS5's fts5_config.c);
/// every message of Steward that quotes it says what it means and where the table can be
/// checked: through the app's connection, with StewardKit. The name is the schema's, never
/// row data.
package enum MissingTokenizer {
    static let prefix = "no such tokenizer: "

    /// The tokenizer SQLite's `message` says it does not have; nil for any other message.
    package static func name(in message: String) -> String? {
        guard message.hasPrefix(prefix) else { return nil }
        let name = message.dropFirst(prefix.count)
        return name.isEmpty ? nil : String(name)
    }

    /// SQLite's message, said as what it means; nil for any other message.
    package static func explained(_ message: String) -> String? {
        guard let name = name(in: message) else { return nil }
        return "the FTS5 tokenizer \(name) is not in this SQLite: an app that registers it on its own connection "
            + "can check the table through that connection with StewardKit (README, \"In your app's tests\")"
    }
}

extension MissingTokenizer {
    /// An FTS5 table of `main` and the tokenizer it is declared with, which this SQLite
    /// does not have.
    package struct Table: Sendable, Equatable {
        package let table: String
        package let tokenizer: String
    }

    /// Every FTS5 table of `main` that this SQLite cannot open for want of its tokenizer,
    /// in name order: each is prepared (which opens the table, and so its tokenizer),
    /// never read.
    package static func tables(on connection: Connection) throws -> [Table] {
        try Schema(reading: connection).fts5Tables.sorted { $0.name < $1.name }.compactMap { table in
            do {
                _ = try connection.prepare(sql: "SELECT rowid FROM main.\(Connection.quote(identifier: table.name)) LIMIT 0")
                return nil
            } catch let error as SQLiteError {
                return name(in: error.message).map { Table(table: table.name, tokenizer: $0) }
            }
        }
    }

    /// `ticket_fts: the FTS5 tokenizer app_words is not in this SQLite; …` and where the
    /// tables can be checked, for a command that stops because of them.
    package static func refusal(_ tables: [Table]) -> String {
        tables.map { "\($0.table): the FTS5 tokenizer \($0.tokenizer) is not in this SQLite" }.joined(separator: "; ")
            + "; an app that registers it on its own connection can check the table through that connection with StewardKit "
            + "(README, \"In your app's tests\")"
    }
}


/// An FTS5 table as declared in its `CREATE VIRTUAL TABLE … USING fts5(…)` statement.
public struct FTS5Definition: Sendable, Equatable, Codable {
    public enum ContentMode: String, Codable, Sendable {
        /// The FTS table stores its own copy of the text.
        case `internal`
        /// `content='table'`: the text lives in another table, kept in sync by triggers.
        case external
        /// `content=''`: the text is not stored at all.
        case contentless
    }

    public let name: String
    public let columns: [String]
    public let unindexedColumns: [String]
    /// Every option as declared (`content`, `content_rowid`, `tokenize`, `prefix`, …).
    public let options: [String: String]

    /// Reads the declaration; nil when the statement is not an FTS5 table.
    public init?(name: String, sql: String) {
        let tokens = SQLScanner.tokens(of: sql)
        guard let using = tokens.firstIndex(where: { $0.isKeyword("USING") }),
              using + 2 < tokens.count,
              tokens[using + 1].isKeyword("fts5"),
              tokens[using + 2].text == "("
        else { return nil }

        let arguments = SQLScanner.moduleArguments(tokens[(using + 3)...])
        var columns: [String] = []
        var unindexed: [String] = []
        var options: [String: String] = [:]
        for argument in arguments where !argument.isEmpty {
            if argument.count >= 3, argument[1].text == "=", let key = argument[0].name {
                options[key.lowercased()] = argument[2...].map(\.text).joined(separator: " ")
            } else if let column = argument[0].name {
                columns.append(column)
                if argument.dropFirst().contains(where: { $0.isKeyword("UNINDEXED") }) {
                    unindexed.append(column)
                }
            }
        }
        self.name = name
        self.columns = columns
        self.unindexedColumns = unindexed
        self.options = options
    }

    public var contentMode: ContentMode {
        guard let content = options["content"] else { return .internal }
        return content.isEmpty ? .contentless : .external
    }

    /// The content table of an external-content table.
    public var contentTable: String? {
        contentMode == .external ? options["content"] : nil
    }

    /// `content_rowid`, which defaults to `rowid`.
    public var contentRowID: String? {
        contentMode == .external ? (options["content_rowid"] ?? "rowid") : nil
    }

    /// The tokenizer as declared, `unicode61` when not declared.
    public var tokenizer: String { options["tokenize"] ?? "unicode61" }
}

/// Which sync triggers an external-content FTS5 table has on its content table
/// (after insert, after delete, after update; https://sqlite.org/fts5.html,
/// "External Content Tables").
public struct FTS5SyncTriggers: Sendable, Equatable, Codable {
    public var insert: String?
    public var delete: String?
    public var update: String?

    /// The events that no trigger covers: `insert`, `delete`, `update`.
    public var missing: [String] {
        [("insert", insert), ("delete", delete), ("update", update)].compactMap { $0.1 == nil ? $0.0 : nil }
    }

    /// Finds the triggers on `definition`'s content table that write to it.
    public init(for definition: FTS5Definition, among triggers: [TriggerDefinition]) {
        guard let content = definition.contentTable else { return }
        let relevant = triggers.filter {
            $0.table.caseInsensitiveEquals(content) && $0.writes(to: definition.name) && $0.timing != "INSTEAD OF"
        }
        insert = relevant.first { $0.event == "INSERT" }?.name
        // Removing an entry from an external-content index needs the 'delete' command.
        delete = relevant.first { $0.event == "DELETE" && $0.usesDeleteCommand }?.name
        update = relevant.first { $0.event == "UPDATE" && $0.usesDeleteCommand }?.name
    }
}


/// An FTS3 or FTS4 table as declared in its `CREATE VIRTUAL TABLE … USING fts3(…)` or
/// `fts4(…)` statement (https://sqlite.org/fts3.html). Many applications (iOS apps above
/// all) still search with these; they are checked as FTS5 tables are.
public struct FTS4Definition: Sendable, Equatable, Codable {
    public enum Module: String, Codable, Sendable {
        case fts3, fts4
    }

    public let name: String
    public let module: Module
    public let columns: [String]
    /// Every option as declared, keys lower-cased (`content`, `tokenize`, `prefix`,
    /// `notindexed`, `languageid`, …).
    public let options: [String: String]

    /// Reads the declaration; nil when the statement is not an FTS3 or FTS4 table.
    public init?(name: String, sql: String) {
        let tokens = SQLScanner.tokens(of: sql)
        guard let using = tokens.firstIndex(where: { $0.isKeyword("USING") }), using + 1 < tokens.count else { return nil }
        let moduleToken = tokens[using + 1]
        guard let module = [Module.fts3, .fts4].first(where: { moduleToken.isKeyword($0.rawValue) }) else { return nil }
        let hasArguments = using + 2 < tokens.count && tokens[using + 2].text == "("
        let arguments = hasArguments ? SQLScanner.moduleArguments(tokens[(using + 3)...]) : []
        var columns: [String] = []
        var options: [String: String] = [:]
        for argument in arguments where !argument.isEmpty {
            if argument.count >= 3, argument[1].text == "=", let key = argument[0].name {
                options[key.lowercased()] = argument[2...].map(\.text).joined(separator: " ")
            } else if argument.count >= 2, argument[0].isKeyword("tokenize") {
                // FTS3's older spelling: `tokenize porter`.
                options["tokenize"] = argument[1...].map(\.text).joined(separator: " ")
            } else if let column = argument[0].name {
                columns.append(column)
            }
        }
        self.name = name
        self.module = module
        self.columns = columns
        self.options = options
    }

    /// `content=` is FTS4's (FTS3 always keeps its own copy of the text).
    public var contentMode: FTS5Definition.ContentMode {
        guard module == .fts4, let content = options["content"] else { return .internal }
        return content.isEmpty ? .contentless : .external
    }

    /// The content table (or view) of an external-content table.
    public var contentTable: String? {
        contentMode == .external ? options["content"] : nil
    }
}

/// Which sync triggers an external-content FTS4 table has on its content table. FTS4
/// reads the text of a row it removes from the content table itself, so the order
/// matters (https://sqlite.org/fts3.html, "External Content FTS4 Tables"): the entry is
/// deleted BEFORE the row is deleted or updated, and added AFTER it is inserted or updated
/// (`t2_bd`, `t2_bu`, `t2_ai`, `t2_au` in SQLite's example). A delete that runs after the
/// row changed removes the new text's words, or none, and the old ones stay found.
public struct FTS4SyncTriggers: Sendable, Equatable {
    public var insert: String?
    public var delete: String?
    /// The BEFORE UPDATE trigger that deletes the old entry, and the AFTER UPDATE one that
    /// adds the new.
    public var updateDelete: String?
    public var updateInsert: String?
    /// One sentence per trigger that writes to the table at the wrong moment.
    public var mistimed: [String] = []

    /// The events that no trigger covers as FTS4 needs: `insert`, `delete`, `update`.
    public var missing: [String] {
        [("insert", insert != nil), ("delete", delete != nil), ("update", updateDelete != nil && updateInsert != nil)]
            .compactMap { $0.1 ? nil : $0.0 }
    }

    public init(for definition: FTS4Definition, among triggers: [TriggerDefinition]) {
        guard let content = definition.contentTable else { return }
        let relevant = triggers.filter { $0.table.caseInsensitiveEquals(content) && $0.timing != "INSTEAD OF" }
        let inserting = relevant.filter { $0.writes(to: definition.name) }
        let deleting = relevant.filter { $0.deletes(from: definition.name) }
        insert = inserting.first { $0.event == "INSERT" && $0.timing == "AFTER" }?.name
        delete = deleting.first { $0.event == "DELETE" && $0.timing == "BEFORE" }?.name
        updateDelete = deleting.first { $0.event == "UPDATE" && $0.timing == "BEFORE" }?.name
        updateInsert = inserting.first { $0.event == "UPDATE" && $0.timing == "AFTER" }?.name
        let table = definition.name
        for trigger in deleting where trigger.timing == "AFTER" && trigger.event != "INSERT" {
            mistimed.append("\(table): trigger \(trigger.name) deletes from it AFTER \(trigger.event) on \(content); "
                + "FTS4 reads the text to remove from \(content), so it must run BEFORE \(trigger.event)")
        }
        for trigger in inserting where trigger.timing == "BEFORE" {
            mistimed.append("\(table): trigger \(trigger.name) inserts into it BEFORE \(trigger.event) on \(content); "
                + "the new row (and its rowid) exists only AFTER \(trigger.event)")
        }
    }
}

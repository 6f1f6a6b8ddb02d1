
/// An FTS5 table that keeps its own copy of the text and is filled by triggers on another
/// table (an adopted application's search index). Nothing but those triggers keeps
/// the two in step, so verify checks that insert, update and delete of the source each have
/// one, and, where the insert trigger copies columns one to one, compares the rows.
public struct FTS5TriggerFill: Sendable, Equatable {
    /// FTS column ← source column, from an insert trigger whose values are all `new.<column>`.
    public struct Mapping: Sendable, Equatable {
        /// The source column given as the FTS rowid; nil when the trigger gives none (rows
        /// are then compared by their values alone).
        public let rowid: String?
        public let columns: [(fts: String, source: String)]

        public static func == (lhs: Mapping, rhs: Mapping) -> Bool {
            lhs.rowid == rhs.rowid && lhs.columns.map(\.fts) == rhs.columns.map(\.fts)
                && lhs.columns.map(\.source) == rhs.columns.map(\.source)
        }
    }

    /// Rows of the two tables that do not agree (counts only: never a row's content).
    public struct Difference: Sendable, Equatable {
        /// Source rows with no FTS row (by rowid; by values when there is no rowid mapping).
        public let unindexed: Int
        /// Source rows whose FTS row holds other values (only with a rowid mapping).
        public let stale: Int
        /// FTS rows with no source row.
        public let extra: Int
        /// Compared by values (no rowid mapping): a changed row counts as one source row
        /// not indexed as it is and one indexed row that matches no source row.
        public var byValue = false

        public var isEmpty: Bool { unindexed == 0 && stale == 0 && extra == 0 }

        public var sentences: [String] {
            func rows(_ count: Int) -> String { count == 1 ? "row" : "rows" }
            var result: [String] = []
            if unindexed > 0 {
                let how = byValue ? (unindexed == 1 ? " as it is" : " as they are") : ""
                result.append("\(unindexed) source \(rows(unindexed)) not indexed\(how)")
            }
            if stale > 0 { result.append("\(stale) indexed \(rows(stale)) out of date") }
            if extra > 0 { result.append("\(extra) indexed \(rows(extra)) \(byValue ? "matching" : "with") no source row") }
            return result
        }
    }

    public let table: String
    public let source: String
    public var insert: String?
    public var delete: String?
    public var update: String?
    /// How the insert trigger fills the table, when it copies columns directly.
    public let mapping: Mapping?
    /// Why the rows are not compared (a condition on the trigger, computed values, …).
    public let notCompared: String?

    /// The events of the source table that no trigger covers: `insert`, `delete`, `update`.
    public var missing: [String] {
        [("insert", insert), ("delete", delete), ("update", update)].compactMap { $0.1 == nil ? $0.0 : nil }
    }

    /// The FTS5 tables of `main` that keep their own content and that triggers on another
    /// table write to, one entry per (FTS table, source table).
    public static func find(on connection: Connection) throws -> [FTS5TriggerFill] {
        var tables: [FTS5Definition] = []
        var triggers: [(definition: TriggerDefinition, body: [TriggerStatement], conditional: Bool)] = []
        try connection.forEachRow(sql: "SELECT type, name, sql FROM main.sqlite_schema WHERE type IN ('table', 'trigger') ORDER BY name") { row in
            let name = row.text(at: 1) ?? ""
            let sql = row.text(at: 2) ?? ""
            if row.text(at: 0) == "table" {
                if let fts = FTS5Definition(name: name, sql: sql), fts.contentMode == .internal { tables.append(fts) }
            } else if let definition = TriggerDefinition(name: name, sql: sql), definition.timing != "INSTEAD OF" {
                let tokens = SQLScanner.tokens(of: sql)
                let begin = tokens.firstIndex { $0.isKeyword("BEGIN") } ?? tokens.count
                let conditional = tokens[..<begin].contains { $0.isKeyword("WHEN") }
                triggers.append((definition, TriggerStatement.parse(tokens[min(begin + 1, tokens.count)...]), conditional))
            }
        }
        var result: [FTS5TriggerFill] = []
        for table in tables {
            let writers = triggers.filter { trigger in
                !trigger.definition.table.caseInsensitiveEquals(table.name)
                    && trigger.body.contains { $0.target.caseInsensitiveEquals(table.name) }
            }
            var sources: [String] = []
            for writer in writers where !sources.contains(where: { $0.caseInsensitiveEquals(writer.definition.table) }) {
                sources.append(writer.definition.table)
            }
            for source in sources {
                let own = writers.filter { $0.definition.table.caseInsensitiveEquals(source) }
                func statements(_ event: String) -> [(TriggerDefinition, [TriggerStatement], Bool)] {
                    own.filter { $0.definition.event == event }.map {
                        ($0.definition, $0.body.filter { $0.target.caseInsensitiveEquals(table.name) }, $0.conditional)
                    }
                }
                let inserts = statements("INSERT").filter { $0.1.contains { $0.verb == .insert } }
                let deletes = statements("DELETE").filter { $0.1.contains { $0.verb == .delete } }
                let updates = statements("UPDATE").filter { $0.1.contains { $0.verb == .update || $0.verb == .insert } }

                var mapping: Mapping?
                var notCompared: String?
                if sources.count > 1 {
                    notCompared = "filled from several tables (\(sources.joined(separator: ", ")))"
                } else if let (trigger, body, conditional) = inserts.first {
                    if conditional {
                        notCompared = "the insert trigger \(trigger.name) has a WHEN condition"
                    } else if let found = body.compactMap({ $0.mapping(columns: table.columns) }).first {
                        mapping = found
                    } else {
                        notCompared = "the insert trigger \(trigger.name) does not copy columns one to one"
                    }
                } else if let update = updates.first, !update.2,
                          let found = update.1.compactMap({ $0.mapping(columns: table.columns) }).first {
                    // No insert trigger (indexed some other way), but the update trigger
                    // says how a row is copied.
                    mapping = found
                } else {
                    notCompared = "no insert trigger says how rows are copied"
                }
                result.append(FTS5TriggerFill(
                    table: table.name, source: source, insert: inserts.first?.0.name, delete: deletes.first?.0.name,
                    update: updates.first?.0.name, mapping: mapping, notCompared: notCompared))
            }
        }
        return result
    }

    /// Compares the FTS rows with the source rows inside SQLite (set operations: nothing
    /// leaves the database but three counts). Nil when the columns are not mapped.
    public func compare(on connection: Connection) throws -> Difference? {
        guard let mapping else { return nil }
        let fts = Connection.quote(identifier: table)
        let source = Connection.quote(identifier: self.source)
        let ftsColumns = mapping.columns.map { Connection.quote(identifier: $0.fts) }
        let sourceColumns = mapping.columns.map { Connection.quote(identifier: $0.source) }
        func count(_ sql: String) throws -> Int { Int(try connection.integer(sql: "SELECT count(*) FROM (\(sql))")) }
        if let rowid = mapping.rowid {
            let key = Connection.quote(identifier: rowid)
            let unindexed = try count("SELECT \(key) FROM main.\(source) EXCEPT SELECT rowid FROM main.\(fts)")
            let extra = try count("SELECT rowid FROM main.\(fts) EXCEPT SELECT \(key) FROM main.\(source)")
            let differing = try count(
                "SELECT \(([key] + sourceColumns).joined(separator: ", ")) FROM main.\(source) EXCEPT "
                    + "SELECT \((["rowid"] + ftsColumns).joined(separator: ", ")) FROM main.\(fts)")
            return Difference(unindexed: unindexed, stale: max(0, differing - unindexed), extra: extra)
        }
        let unindexed = try count(
            "SELECT \(sourceColumns.joined(separator: ", ")) FROM main.\(source) EXCEPT SELECT \(ftsColumns.joined(separator: ", ")) FROM main.\(fts)")
        let extra = try count(
            "SELECT \(ftsColumns.joined(separator: ", ")) FROM main.\(fts) EXCEPT SELECT \(sourceColumns.joined(separator: ", ")) FROM main.\(source)")
        return Difference(unindexed: unindexed, stale: 0, extra: extra, byValue: true)
    }
}

/// One statement of a trigger body that writes to a table: which table, how, and for an
/// INSERT … VALUES the columns and value expressions.
struct TriggerStatement: Sendable {
    enum Verb: Sendable { case insert, delete, update }

    let verb: Verb
    let target: String
    /// INSERT only: the column list (empty when the statement names none).
    let columns: [String]
    /// INSERT … VALUES only: each value as its tokens; nil for INSERT … SELECT.
    let values: [[SQLScanner.Token]]?

    /// The writing statements of a trigger body (the tokens after BEGIN).
    static func parse(_ tokens: ArraySlice<SQLScanner.Token>) -> [TriggerStatement] {
        var statements: [[SQLScanner.Token]] = [[]]
        var depth = 0
        for token in tokens {
            if token.kind == .symbol, token.text == "(" { depth += 1 }
            if token.kind == .symbol, token.text == ")" { depth -= 1 }
            if token.kind == .symbol, token.text == ";", depth == 0 {
                statements.append([])
            } else {
                statements[statements.count - 1].append(token)
            }
        }
        return statements.compactMap(TriggerStatement.init(tokens:))
    }

    private init?(tokens: [SQLScanner.Token]) {
        var index = 0
        func peek(_ offset: Int = 0) -> SQLScanner.Token? { index + offset < tokens.count ? tokens[index + offset] : nil }
        func accept(_ keyword: String) -> Bool {
            if peek()?.isKeyword(keyword) == true { index += 1; return true }
            return false
        }
        /// `[schema .] name`
        func qualifiedName() -> String? {
            guard var name = peek()?.name else { return nil }
            index += 1
            if peek()?.text == ".", let qualified = peek(1)?.name {
                name = qualified
                index += 2
            }
            return name
        }
        if accept("INSERT") || accept("REPLACE") {
            if accept("OR") { index += 1 }
            guard accept("INTO"), let target = qualifiedName() else { return nil }
            var columns: [String] = []
            if peek()?.text == "(" {
                index += 1
                while let token = peek(), token.text != ")" {
                    if token.text != ",", let name = token.name { columns.append(name) }
                    index += 1
                }
                index += 1
            }
            var values: [[SQLScanner.Token]]?
            if accept("VALUES"), peek()?.text == "(" {
                index += 1
                var list: [[SQLScanner.Token]] = [[]]
                var depth = 0
                while let token = peek() {
                    index += 1
                    if token.kind == .symbol, token.text == "(" { depth += 1 }
                    if token.kind == .symbol, token.text == ")" {
                        if depth == 0 { break }
                        depth -= 1
                    }
                    if token.kind == .symbol, token.text == ",", depth == 0 {
                        list.append([])
                    } else {
                        list[list.count - 1].append(token)
                    }
                }
                // A second row of VALUES is not a one-to-one copy.
                values = peek() == nil ? list : nil
            }
            self.init(verb: .insert, target: target, columns: columns, values: values)
        } else if accept("DELETE") {
            guard accept("FROM"), let target = qualifiedName() else { return nil }
            self.init(verb: .delete, target: target, columns: [], values: nil)
        } else if accept("UPDATE") {
            if accept("OR") { index += 1 }
            guard let target = qualifiedName(), accept("SET") else { return nil }
            self.init(verb: .update, target: target, columns: [], values: nil)
        } else {
            return nil
        }
    }

    private init(verb: Verb, target: String, columns: [String], values: [[SQLScanner.Token]]?) {
        self.verb = verb
        self.target = target
        self.columns = columns
        self.values = values
    }

    /// The one-to-one mapping of an `INSERT INTO fts(…) VALUES (new.a, …)`: every value is
    /// `new.<column>`, and every column named is the rowid or one of the FTS table's.
    func mapping(columns ftsColumns: [String]) -> FTS5TriggerFill.Mapping? {
        guard verb == .insert, let values else { return nil }
        let names = columns.isEmpty ? ftsColumns : columns
        guard names.count == values.count, !names.isEmpty else { return nil }
        var rowid: String?
        var pairs: [(fts: String, source: String)] = []
        for (name, value) in zip(names, values) {
            guard value.count == 3, value[0].isKeyword("new"), value[1].text == ".", let column = value[2].name,
                  value[2].kind != .string
            else { return nil }
            if ["rowid", "oid", "_rowid_"].contains(name.lowercased()) {
                rowid = column
            } else if let fts = ftsColumns.first(where: { $0.caseInsensitiveEquals(name) }) {
                pairs.append((fts, column))
            } else {
                return nil
            }
        }
        guard !pairs.isEmpty else { return nil }
        return FTS5TriggerFill.Mapping(rowid: rowid, columns: pairs)
    }
}

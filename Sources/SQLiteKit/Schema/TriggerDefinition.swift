
/// What a trigger's SQL says about it: the table it is on, when it fires, on which
/// event, and which tables its body inserts into.
public struct TriggerDefinition: Sendable, Equatable, Codable {
    public let name: String
    public let table: String
    /// `BEFORE`, `AFTER` or `INSTEAD OF`.
    public let timing: String
    /// `INSERT`, `DELETE` or `UPDATE` (`UPDATE OF` columns are in `updateColumns`).
    public let event: String
    public let updateColumns: [String]
    /// Tables the body writes to with `INSERT INTO` (lower-cased for comparison).
    public let insertTargets: [String]
    /// Tables the body deletes from with `DELETE FROM` (lower-cased for comparison).
    public let deleteTargets: [String]
    /// Whether the body holds the string literal `'delete'` (the FTS5 delete command).
    public let usesDeleteCommand: Bool

    /// Reads a `CREATE TRIGGER` statement; nil when the text is not one.
    public init?(name: String, sql: String) {
        let tokens = SQLScanner.tokens(of: sql)
        var index = 0
        func peek(_ offset: Int = 0) -> SQLScanner.Token? {
            index + offset < tokens.count ? tokens[index + offset] : nil
        }
        func accept(_ keyword: String) -> Bool {
            if peek()?.isKeyword(keyword) == true { index += 1; return true }
            return false
        }
        guard accept("CREATE") else { return nil }
        _ = accept("TEMP") || accept("TEMPORARY")
        guard accept("TRIGGER") else { return nil }
        if accept("IF") { _ = accept("NOT"); _ = accept("EXISTS") }
        // [schema .] name
        index += 1
        if peek()?.text == "." { index += 2 }

        var timing = "BEFORE"
        if accept("BEFORE") {
            timing = "BEFORE"
        } else if accept("AFTER") {
            timing = "AFTER"
        } else if accept("INSTEAD") {
            _ = accept("OF")
            timing = "INSTEAD OF"
        }
        guard let eventToken = peek(), eventToken.kind == .word else { return nil }
        let event = eventToken.text.uppercased()
        guard ["INSERT", "DELETE", "UPDATE"].contains(event) else { return nil }
        index += 1
        var columns: [String] = []
        if event == "UPDATE", accept("OF") {
            while let token = peek(), !token.isKeyword("ON") {
                if let column = token.name, token.kind != .string { columns.append(column) }
                index += 1
            }
        }
        guard accept("ON"), var table = peek()?.name else { return nil }
        index += 1
        if peek()?.text == ".", let qualified = peek(1)?.name {
            table = qualified
            index += 2
        }

        var targets: [String] = []
        var deleted: [String] = []
        var usesDelete = false
        var bodyIndex = index
        while bodyIndex < tokens.count {
            let token = tokens[bodyIndex]
            if token.kind == .string && token.text.caseInsensitiveEquals("delete") { usesDelete = true }
            if token.isKeyword("DELETE"), bodyIndex + 2 < tokens.count, tokens[bodyIndex + 1].isKeyword("FROM"),
               let target = tokens[bodyIndex + 2].name {
                var name = target
                if bodyIndex + 4 < tokens.count, tokens[bodyIndex + 3].text == ".", let qualified = tokens[bodyIndex + 4].name {
                    name = qualified
                }
                deleted.append(name.lowercased())
            }
            if token.isKeyword("INTO"), bodyIndex + 1 < tokens.count, let target = tokens[bodyIndex + 1].name {
                var name = target
                if bodyIndex + 3 < tokens.count, tokens[bodyIndex + 2].text == ".",
                   let qualified = tokens[bodyIndex + 3].name
                {
                    name = qualified
                }
                targets.append(name.lowercased())
            }
            bodyIndex += 1
        }

        self.name = name
        self.table = table
        self.timing = timing
        self.event = event
        self.updateColumns = columns
        self.insertTargets = targets
        self.deleteTargets = deleted
        self.usesDeleteCommand = usesDelete
    }

    /// Whether the body inserts into the table `name`.
    public func writes(to name: String) -> Bool {
        insertTargets.contains(name.lowercased())
    }

    /// Whether the body deletes from the table `name`.
    public func deletes(from name: String) -> Bool {
        deleteTargets.contains(name.lowercased())
    }
}

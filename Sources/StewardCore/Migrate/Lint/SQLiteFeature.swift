import SQLiteKit

/// A release of SQLite, `3.35.0`, compared part by part.
public struct SQLiteVersion: Comparable, Hashable, Sendable, CustomStringConvertible, Codable {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public init(_ major: Int, _ minor: Int, _ patch: Int = 0) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// `X.Y.Z` (or `X.Y`); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 || parts.count == 3,
              parts.allSatisfy({ !$0.isEmpty && $0.count <= 6 && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let major = Int(parts[0]), let minor = Int(parts[1])
        else { return nil }
        self.init(major, minor, parts.count == 3 ? Int(parts[2]) ?? 0 : 0)
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (lhs: SQLiteVersion, rhs: SQLiteVersion) -> Bool {
        (lhs.major, lhs.minor, lhs.patch) < (rhs.major, rhs.minor, rhs.patch)
    }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = SQLiteVersion(text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a version: \(text)"))
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// A piece of SQL that SQLite accepts only from a given release on, and how a statement
/// is seen to use it: from the statement's tokens (`SQLScanner`, which skips comments and
/// string literals), never from the raw text.
///
/// Each row cites the release in SQLite's release history, https://sqlite.org/changes.html
/// (the release log of that version, `https://sqlite.org/releaselog/3_35_0.html` and so on).
public struct SQLiteFeature: Sendable, Identifiable {
    /// Stable: lint's JSON, SARIF and the tests name a feature by it.
    public let id: String
    public let name: String
    public let version: SQLiteVersion
    /// What the release history says, quoted short.
    public let citation: String
    /// The functions whose call is the feature; checked against the linked SQLite's own
    /// list of functions (`pragma_function_list`) when it is new enough to have them.
    let functions: Set<String>
    let matches: @Sendable (_ tokens: [SQLScanner.Token], _ index: Int) -> Bool

    public var releaseNotes: String {
        "https://sqlite.org/releaselog/\(version.major)_\(version.minor)_\(version.patch).html"
    }

    /// The table, oldest release first.
    public static let all: [SQLiteFeature] = [
        SQLiteFeature(id: "upsert", name: "UPSERT (INSERT … ON CONFLICT … DO)", version: .init(3, 24),
                      citation: "3.24.0 (2018-06-04): Add support for PostgreSQL-style UPSERT", matches: isUpsert),
        SQLiteFeature(id: "window-functions", name: "window functions (OVER, WINDOW)", version: .init(3, 25),
                      citation: "3.25.0 (2018-09-15): Add support for window functions", matches: isWindow),
        SQLiteFeature(id: "rename-column", name: "ALTER TABLE … RENAME COLUMN", version: .init(3, 25),
                      citation: "3.25.0 (2018-09-15): Added support for renaming columns within a table using ALTER TABLE table RENAME COLUMN oldname TO newname", matches: isRenameColumn),
        SQLiteFeature(id: "nulls-first-last", name: "NULLS FIRST / NULLS LAST", version: .init(3, 30),
                      citation: "3.30.0 (2019-10-04): Add support for the NULLS FIRST and NULLS LAST syntax in ORDER BY clauses", matches: isNullsOrder),
        SQLiteFeature(id: "aggregate-filter", name: "FILTER clause on aggregate functions", version: .init(3, 30),
                      citation: "3.30.0 (2019-10-04): Add support for the FILTER clause on aggregate functions", matches: isFilter),
        SQLiteFeature(id: "generated-columns", name: "generated columns", version: .init(3, 31),
                      citation: "3.31.0 (2020-01-22): Add support for generated columns", matches: isGeneratedColumn),
        SQLiteFeature(id: "iif", name: "iif()", version: .init(3, 32),
                      citation: "3.32.0 (2020-05-22): Added the iif() SQL function", functions: ["iif"]),
        SQLiteFeature(id: "fts5-trigram", name: "FTS5 trigram tokenizer", version: .init(3, 34),
                      citation: "3.34.0 (2020-12-01): Added the trigram tokenizer to FTS5", matches: isTrigram),
        SQLiteFeature(id: "drop-column", name: "ALTER TABLE … DROP COLUMN", version: .init(3, 35),
                      citation: "3.35.0 (2021-03-12): Added support for ALTER TABLE DROP COLUMN", matches: isDropColumn),
        SQLiteFeature(id: "returning", name: "RETURNING clause", version: .init(3, 35),
                      citation: "3.35.0 (2021-03-12): Add support for the RETURNING clause on DELETE, INSERT, and UPDATE statements", matches: isReturning),
        SQLiteFeature(id: "math-functions", name: "built-in math functions", version: .init(3, 35),
                      citation: "3.35.0 (2021-03-12): Added built-in SQL math functions() (requires -DSQLITE_ENABLE_MATH_FUNCTIONS)",
                      functions: ["acos", "acosh", "asin", "asinh", "atan", "atan2", "atanh", "ceil", "ceiling", "cos", "cosh",
                                  "degrees", "exp", "floor", "ln", "log", "log2", "log10", "mod", "pi", "pow", "power", "radians",
                                  "sin", "sinh", "sqrt", "tan", "tanh", "trunc"]),
        SQLiteFeature(id: "materialized-cte", name: "MATERIALIZED / NOT MATERIALIZED common table expressions", version: .init(3, 35),
                      citation: "3.35.0 (2021-03-12): Add support for the MATERIALIZED and NOT MATERIALIZED hints when specifying common table expressions", matches: isMaterialized),
        SQLiteFeature(id: "strict-tables", name: "STRICT tables", version: .init(3, 37),
                      citation: "3.37.0 (2021-11-27): STRICT tables provide a prescriptive style of data type management", matches: isStrict),
        SQLiteFeature(id: "json-arrow-operators", name: "-> and ->> operators", version: .init(3, 38),
                      citation: "3.38.0 (2022-02-22): Added the -> and ->> operators for easier processing of JSON", matches: isArrow),
        SQLiteFeature(id: "unixepoch", name: "unixepoch()", version: .init(3, 38),
                      citation: "3.38.0 (2022-02-22): Added the unixepoch() function", functions: ["unixepoch"]),
        SQLiteFeature(id: "is-distinct-from", name: "IS [NOT] DISTINCT FROM", version: .init(3, 39),
                      citation: "3.39.0 (2022-06-25): Add new binary comparison operators IS NOT DISTINCT FROM and IS DISTINCT FROM", matches: isDistinctFrom),
        SQLiteFeature(id: "right-full-join", name: "RIGHT and FULL OUTER JOIN", version: .init(3, 39),
                      citation: "3.39.0 (2022-06-25): Add (long overdue) support for RIGHT and FULL OUTER JOIN", matches: isRightOrFullJoin),
        SQLiteFeature(id: "octet-length-timediff", name: "octet_length() and timediff()", version: .init(3, 43),
                      citation: "3.43.0 (2023-08-24): Added the timediff() SQL function; added the octet_length(X) SQL function",
                      functions: ["octet_length", "timediff"]),
        SQLiteFeature(id: "concat-string-agg", name: "concat(), concat_ws() and string_agg()", version: .init(3, 44),
                      citation: "3.44.0 (2023-11-01): Added the concat(), concat_ws() and string_agg() SQL functions",
                      functions: ["concat", "concat_ws", "string_agg"]),
        SQLiteFeature(id: "jsonb", name: "JSONB functions", version: .init(3, 45),
                      citation: "3.45.0 (2024-01-15): Added the JSONB family of functions",
                      functions: ["jsonb", "jsonb_array", "jsonb_extract", "jsonb_group_array", "jsonb_group_object", "jsonb_insert",
                                  "jsonb_object", "jsonb_patch", "jsonb_remove", "jsonb_replace", "jsonb_set"]),
    ]

    init(id: String, name: String, version: SQLiteVersion, citation: String, functions: Set<String> = [],
         matches: @escaping @Sendable ([SQLScanner.Token], Int) -> Bool = { _, _ in false })
    {
        self.id = id
        self.name = name
        self.version = version
        self.citation = citation
        self.functions = functions
        self.matches = matches
    }

    /// Where a statement uses the feature: the byte offset, in the statement, of each token
    /// that shows it (at most one per statement is enough to name it; the first is kept).
    /// `knownFunctions` are the linked SQLite's function names, lower-cased.
    func firstUse(in tokens: [SQLScanner.Token], knownFunctions: Set<String>?) -> Int? {
        for index in tokens.indices {
            if !functions.isEmpty {
                guard tokens[index].kind == .word, Self.isFunctionCall(tokens, index) else { continue }
                let name = tokens[index].text.lowercased()
                // A function the linked SQLite does not list is the application's own.
                if functions.contains(name), knownFunctions?.contains(name) ?? true { return tokens[index].offset }
            } else if matches(tokens, index) {
                return tokens[index].offset
            }
        }
        return nil
    }

    // MARK: - Reading tokens

    static func word(_ tokens: [SQLScanner.Token], _ index: Int, _ keyword: String) -> Bool {
        index >= 0 && index < tokens.count && tokens[index].isKeyword(keyword)
    }

    static func symbol(_ tokens: [SQLScanner.Token], _ index: Int, _ text: String) -> Bool {
        index >= 0 && index < tokens.count && tokens[index].kind == .symbol && tokens[index].text == text
    }

    /// The index after the parenthesis that closes the one at `open`.
    static func afterClosing(_ tokens: [SQLScanner.Token], from open: Int) -> Int {
        var depth = 0
        var index = open
        while index < tokens.count {
            if symbol(tokens, index, "(") { depth += 1 }
            if symbol(tokens, index, ")") {
                depth -= 1
                if depth == 0 { return index + 1 }
            }
            index += 1
        }
        return index
    }

    /// A name followed by `(` where an expression can be: not a table being created,
    /// inserted into or referenced, not a qualified name.
    static func isFunctionCall(_ tokens: [SQLScanner.Token], _ index: Int) -> Bool {
        guard symbol(tokens, index + 1, "(") else { return false }
        guard index > 0 else { return false }
        let previous = tokens[index - 1]
        if previous.kind == .symbol && previous.text == "." { return false }
        let naming = ["TABLE", "INTO", "REFERENCES", "ON", "EXISTS", "VIEW", "TRIGGER", "INDEX", "WITH", "USING", "OF", "UPDATE", "FROM", "JOIN"]
        return !(previous.kind == .word && naming.contains { previous.isKeyword($0) })
    }

    /// The statement's first word.
    static func statementIs(_ tokens: [SQLScanner.Token], _ keywords: String...) -> Bool {
        guard let first = tokens.first else { return false }
        return keywords.contains { first.isKeyword($0) }
    }

    /// `ALTER TABLE [schema.]name` and the index after the name.
    static func afterAlterTable(_ tokens: [SQLScanner.Token]) -> Int? {
        guard word(tokens, 0, "ALTER"), word(tokens, 1, "TABLE") else { return nil }
        return symbol(tokens, 3, ".") ? 5 : 3
    }

    // MARK: - The rows

    static let isUpsert: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        guard word(tokens, index, "ON"), word(tokens, index + 1, "CONFLICT") else { return false }
        // A column's or table's `ON CONFLICT REPLACE` clause is much older; UPSERT has DO.
        var next = index + 2
        if symbol(tokens, next, "(") { next = afterClosing(tokens, from: next) }
        var depth = 0
        while next < tokens.count {
            if symbol(tokens, next, "(") { depth += 1 }
            if symbol(tokens, next, ")") { depth -= 1; if depth < 0 { return false } }
            if symbol(tokens, next, ";") { return false }
            if depth == 0 && word(tokens, next, "DO") { return true }
            if depth == 0 && (word(tokens, next, "ROLLBACK") || word(tokens, next, "ABORT") || word(tokens, next, "FAIL")
                || word(tokens, next, "IGNORE") || word(tokens, next, "REPLACE")) { return false }
            next += 1
        }
        return false
    }

    static let isWindow: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        if word(tokens, index, "OVER"), symbol(tokens, index - 1, ")") {
            return symbol(tokens, index + 1, "(") || tokens.indices.contains(index + 1) && tokens[index + 1].name != nil
        }
        // WINDOW name AS (
        return word(tokens, index, "WINDOW") && word(tokens, index + 2, "AS") && symbol(tokens, index + 3, "(")
    }

    static let isRenameColumn: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        guard let after = afterAlterTable(tokens), index == after, word(tokens, index, "RENAME") else { return false }
        // RENAME TO new is the table's rename, of every release; COLUMN is optional.
        return !word(tokens, index + 1, "TO")
    }

    static let isNullsOrder: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        word(tokens, index, "NULLS") && (word(tokens, index + 1, "FIRST") || word(tokens, index + 1, "LAST"))
    }

    static let isFilter: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        word(tokens, index, "FILTER") && symbol(tokens, index - 1, ")") && symbol(tokens, index + 1, "(")
            && word(tokens, index + 2, "WHERE")
    }

    static let isGeneratedColumn: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        let defines = (word(tokens, 0, "CREATE") && (word(tokens, 1, "TABLE") || word(tokens, 2, "TABLE")))
            || (afterAlterTable(tokens).map { word(tokens, $0, "ADD") } ?? false)
        guard defines else { return false }
        if word(tokens, index, "GENERATED") && word(tokens, index + 1, "ALWAYS") { return true }
        // In a column definition `AS (expr)` is the generated column's short form; CREATE
        // TABLE … AS SELECT has no parenthesis after AS, and CAST's AS is followed by a type.
        let inColumn = word(tokens, 0, "ALTER") || tokens.prefix(index).contains { $0.kind == .symbol && $0.text == "(" }
        return word(tokens, index, "AS") && symbol(tokens, index + 1, "(") && !word(tokens, index - 1, "GENERATED")
            && !word(tokens, index - 1, "ALWAYS") && inColumn
    }

    static let isTrigram: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        guard word(tokens, 0, "CREATE"), tokens.contains(where: { $0.isKeyword("USING") }),
              let name = tokens.indices.contains(index) ? tokens[index].name : nil, name.caseInsensitiveEquals("tokenize"),
              symbol(tokens, index + 1, "="), tokens.indices.contains(index + 2)
        else { return false }
        let value = tokens[index + 2].text.split(whereSeparator: { $0 == " " || $0 == "'" || $0 == "\"" }).first
        return value.map { String($0).caseInsensitiveEquals("trigram") } ?? false
    }

    static let isDropColumn: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        guard let after = afterAlterTable(tokens) else { return false }
        return index == after && word(tokens, index, "DROP")
    }

    static let isReturning: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        word(tokens, index, "RETURNING") && !symbol(tokens, index + 1, "(") && !symbol(tokens, index - 1, ".")
            && !word(tokens, 0, "CREATE")
    }

    static let isMaterialized: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        word(tokens, index, "MATERIALIZED") && symbol(tokens, index + 1, "(")
            && (word(tokens, index - 1, "AS") || (word(tokens, index - 1, "NOT") && word(tokens, index - 2, "AS")))
    }

    static let isStrict: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        guard word(tokens, index, "STRICT"), word(tokens, 0, "CREATE") else { return false }
        // A table option: after the column list's closing parenthesis, alone or after a comma.
        return symbol(tokens, index - 1, ")") || (symbol(tokens, index - 1, ",") && word(tokens, index - 2, "ROWID"))
    }

    static let isArrow: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        symbol(tokens, index, "->")
    }

    static let isDistinctFrom: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        guard word(tokens, index, "IS") else { return false }
        let next = word(tokens, index + 1, "NOT") ? index + 2 : index + 1
        return word(tokens, next, "DISTINCT") && word(tokens, next + 1, "FROM")
    }

    static let isRightOrFullJoin: @Sendable ([SQLScanner.Token], Int) -> Bool = { tokens, index in
        guard word(tokens, index, "RIGHT") || word(tokens, index, "FULL") else { return false }
        return word(tokens, index + 1, "JOIN") || (word(tokens, index + 1, "OUTER") && word(tokens, index + 2, "JOIN"))
    }
}

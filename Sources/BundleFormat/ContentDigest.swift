import ArchiveKit
import Foundation
import SQLiteKit
import StewardBase

/// Logical digests of a database's content (docs/design-notes.md, "Customer exports"):
/// one SHA-256 per table over its rows, and one over its schema. Equal data gives equal
/// digests whatever the file looks like: across `VACUUM`, page-size changes and SQLite
/// versions, where a file hash differs.
///
/// - A table's digest covers `SELECT *` of its rows in rowid order (primary-key order
///   for a WITHOUT ROWID table), each value encoded as the sqlite3 shell's `.sha3sum`
///   encodes it (`Statement.withHashEncoding`), with SHA-256 instead of SHA3 and without
///   the SQL text or the rowid.
/// - Which tables count is decided from `sqlite_schema` alone, never from the modules a
///   connection happens to have loaded, so the digest is the same with or without an
///   extension (`sha256-sha3sum-v2`). A module marks its shadow tables as `shadow` in
///   `PRAGMA table_list` only while it is loaded, and its virtual table cannot be read
///   without it; v1 followed that and changed with `--load-extension`.
///   - skipped: tables named `sqlite_%`; FTS5's shadow tables (`<fts>_data`, `_idx`,
///     `_content`, `_docsize`, `_config`), whose index depends on the write history and
///     whose content is digested through the FTS5 table's columns, so it counts once;
///   - every other virtual table (rootpage 0) is skipped and named in `virtualTables`:
///     its data lives in its shadow tables, which are ordinary tables and are digested
///     like any other (sqlite-vec's `_chunks`, `_rowids`, `_vector_chunksNN`, FTS3/4's
///     `_content` and `_segments`, R*Tree's `_node`);
///   - every other table is digested.
/// - The schema's digest covers `type, name, tbl_name, sql` of every `sqlite_schema` row
///   in name order (not `rootpage`, which VACUUM changes).
/// Names and digests only: no value of any row leaves this type.
public struct ContentDigests: Codable, Sendable, Equatable {
    public struct Table: Codable, Sendable, Equatable {
        public let name: String
        public let rows: Int64
        /// 64 lower-case hex digits.
        public let sha256: String
    }

    /// `sha256-sha3sum-v1`: the encoding above. A different name is a different digest.
    public var algorithm = ContentDigests.algorithmName
    public let schema: String
    /// In name order (byte order of the UTF-8 names).
    public let tables: [Table]
    /// FTS5 tables that could not be read through their module here (a tokenizer this
    /// SQLite lacks, say); missing when there are none.
    public var unreadable: [String]? = nil
    /// Virtual tables other than FTS5, not digested themselves (their shadow tables are),
    /// in name order; missing when there are none (and in v1 digests).
    public var virtualTables: [String]? = nil

    /// `sha256-sha3sum-v2`: the tables chosen by the schema alone (above).
    public static let algorithmName = "sha256-sha3sum-v2"
    /// The first rule, of bundles made before v2: tables chosen by `PRAGMA table_list`'s
    /// types. Restore still recomputes it for such a bundle, with the extensions given.
    public static let firstAlgorithmName = "sha256-sha3sum-v1"
    public static let knownAlgorithms = [firstAlgorithmName, algorithmName]

    /// Reads every table of `connection` (inside one read transaction), by the rule of
    /// `algorithm` (one of `knownAlgorithms`).
    public static func compute(
        _ connection: Connection, algorithm: String = algorithmName, cancellation: Cancellation? = nil
    ) throws -> ContentDigests {
        try connection.transaction(.deferred) {
            let schemaHash = try SHA256Hasher()
            try hashRows(of: "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name", connection, into: schemaHash)
            let chosen = algorithm == firstAlgorithmName
                ? (tables: try firstRuleTables(connection), virtual: [String]())
                : try tablesBySchema(connection)
            // A content table that feeds FTS5 tables' digests is read first, once for all
            // of them (ContentDigests+SharedScan); the results are listed in name order.
            let feeds = try sharedScanFeeds(chosen.tables, connection)
            let sequence = chosen.tables.indices.filter { feeds[$0] != nil } + chosen.tables.indices.filter { feeds[$0] == nil }
            var found: [Int: Table] = [:]
            var unreadableAt: Set<Int> = []
            for index in sequence where found[index] == nil {
                let (name, withoutRowID, isVirtual) = chosen.tables[index]
                if let cancellation, cancellation.isCancelled { throw StewardError.interrupted(by: cancellation) }
                if let fed = feeds[index], let shared = try sharedScan(of: name, feeding: fed, connection) {
                    found[index] = shared.content
                    for (at, table) in shared.fed { found[at] = table }
                    continue
                }
                let hasher = try SHA256Hasher()
                let rows: Int64
                do {
                    let order = try withoutRowID ? primaryKeyOrder(name, connection) : rowIDName(name, connection)
                    rows = try hashRows(of: "SELECT * FROM main.\(Connection.quote(identifier: name)) ORDER BY \(order)", connection, into: hasher)
                } catch let error as SQLiteError where isVirtual && !error.isInterrupt {
                    // Its data is still in the payload and in the file hash; only this
                    // digest is missing, and the manifest says so.
                    unreadableAt.insert(index)
                    continue
                }
                found[index] = Table(name: name, rows: rows, sha256: try hasher.finalize())
            }
            let tables = chosen.tables.indices.compactMap { found[$0] }
            let unreadable = chosen.tables.indices.filter { unreadableAt.contains($0) }.map { chosen.tables[$0].0 }
            var digests = ContentDigests(algorithm: algorithm, schema: try schemaHash.finalize(), tables: tables)
            if !unreadable.isEmpty { digests.unreadable = unreadable }
            if !chosen.virtual.isEmpty { digests.virtualTables = chosen.virtual }
            return digests
        }
    }

    public init(algorithm: String = ContentDigests.algorithmName, schema: String, tables: [Table]) {
        self.algorithm = algorithm
        self.schema = schema
        self.tables = tables
    }

    /// The tables whose digests differ or that only one side has, by name.
    public func differences(from other: ContentDigests) -> [String] {
        let mine = Dictionary(tables.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        let theirs = Dictionary(other.tables.map { ($0.name, $0.sha256) }, uniquingKeysWith: { first, _ in first })
        var names = Set(mine.keys).union(theirs.keys).filter { mine[$0] != theirs[$0] }.sorted()
        if schema != other.schema { names.insert("(schema)", at: 0) }
        // A table one side could not read is not a difference of data.
        let unread = Set((unreadable ?? []) + (other.unreadable ?? []))
        names.removeAll { unread.contains($0) }
        return names
    }

    @discardableResult
    private static func hashRows(of sql: String, _ connection: Connection, into hasher: SHA256Hasher) throws -> Int64 {
        let statement = try connection.prepare(sql: sql)
        let columns = statement.columnCount
        var rows: Int64 = 0
        while try statement.step() {
            rows += 1
            for column in 0..<columns {
                statement.withHashEncoding(at: column) { hasher.update($0) }
            }
        }
        return rows
    }

    /// v2: the tables that get a digest, in name order, whether each is WITHOUT ROWID and
    /// whether it is an FTS5 table; and the virtual tables skipped. Only `sqlite_schema`
    /// decides (a virtual table has rootpage 0): nothing here asks a module.
    static func tablesBySchema(_ connection: Connection) throws -> (tables: [(String, Bool, Bool)], virtual: [String]) {
        var entries: [(name: String, rootPage: Int, sql: String, withoutRowID: Bool)] = []
        try connection.forEachRow(sql: """
            SELECT s.name, s.rootpage, s.sql, coalesce(l.wr, 0) FROM sqlite_schema AS s
            LEFT JOIN pragma_table_list AS l ON l.schema = 'main' AND l.name = s.name
            WHERE s.type = 'table'
            """) { row in
            entries.append((row.text(at: 0) ?? "", row.int(at: 1), row.text(at: 2) ?? "", row.int(at: 3) != 0))
        }
        let ftsShadows = Set(entries.filter { $0.rootPage == 0 && FTS5Definition(name: $0.name, sql: $0.sql) != nil }
            .flatMap { entry in ["data", "idx", "content", "docsize", "config"].map { "\(entry.name)_\($0)".lowercased() } })
        var tables: [(String, Bool, Bool)] = []
        var virtual: [String] = []
        for entry in entries where !entry.name.lowercased().hasPrefix("sqlite_") {
            if entry.rootPage == 0 {
                if FTS5Definition(name: entry.name, sql: entry.sql) != nil {
                    tables.append((entry.name, false, true))
                } else {
                    virtual.append(entry.name)
                }
            } else if !ftsShadows.contains(entry.name.lowercased()) {
                tables.append((entry.name, entry.withoutRowID, false))
            }
        }
        let byName = { (a: String, b: String) in Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) }
        return (tables.sorted { byName($0.0, $1.0) }, virtual.sorted(by: byName))
    }

    /// v1: the tables `PRAGMA table_list` calls `table`, and FTS5 virtual tables; what it
    /// calls `shadow` depends on the modules loaded.
    static func firstRuleTables(_ connection: Connection) throws -> [(String, Bool, Bool)] {
        var result: [(String, Bool, Bool)] = []
        try connection.forEachRow(sql: "SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main'") { row in
            let name = row.text(at: 0) ?? ""
            let type = row.text(at: 1) ?? ""
            guard !name.lowercased().hasPrefix("sqlite_") else { return }
            switch type {
            case "table": result.append((name, row.int(at: 2) != 0, false))
            case "virtual":
                let sql = try connection.scalar(sql: "SELECT sql FROM sqlite_schema WHERE name = ?", bindings: [.text(name)])
                if case .text(let text)? = sql, FTS5Definition(name: name, sql: text) != nil { result.append((name, false, true)) }
            default: break
            }
        }
        return result.sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
    }

    /// `rowid`, or the first of its other names that is not a column's.
    static func rowIDName(_ table: String, _ connection: Connection) throws -> String {
        let columns = Set(try connection.rows(sql: "SELECT lower(name) FROM pragma_table_xinfo(?)", bindings: [.text(table)])
            .compactMap { row -> String? in if case .text(let name)? = row.first { return name } else { return nil } })
        return ["rowid", "_rowid_", "oid"].first { !columns.contains($0) } ?? "rowid"
    }

    static func primaryKeyOrder(_ table: String, _ connection: Connection) throws -> String {
        let rows = try connection.rows(sql: "SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", bindings: [.text(table)])
        let names = rows.compactMap { row -> String? in if case .text(let name)? = row.first { return name } else { return nil } }
        return names.map(Connection.quote(identifier:)).joined(separator: ", ")
    }
}

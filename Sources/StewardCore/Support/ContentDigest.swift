import ArchiveKit
import Foundation
import SQLiteKit

/// Logical digests of a database's content (issue 13): one SHA-256 per table over its
/// rows, and one over its schema. Equal data gives equal digests whatever the file looks
/// like: across `VACUUM`, page-size changes and SQLite versions, where a file hash
/// differs.
///
/// - A table's digest covers `SELECT *` of its rows in rowid order (primary-key order
///   for a WITHOUT ROWID table), each value encoded as the sqlite3 shell's `.sha3sum`
///   encodes it (`Statement.withHashEncoding`), with SHA-256 instead of SHA3 and without
///   the SQL text or the rowid.
/// - Tables named `sqlite_%` and shadow tables (FTS5's `_data`, `_idx`, `_content`,
///   `_docsize`, `_config`; `PRAGMA table_list` type `shadow`) are skipped; an FTS5 table
///   itself is digested through its columns, so its content counts once. Other virtual
///   tables are skipped: their modules may not be there to read them.
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

    public static let algorithmName = "sha256-sha3sum-v1"

    /// Reads every table of `connection` (inside one read transaction).
    public static func compute(_ connection: Connection, cancellation: Cancellation? = nil) throws -> ContentDigests {
        try connection.transaction(.deferred) {
            let schemaHash = try SHA256Hasher()
            try hashRows(of: "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name", connection, into: schemaHash)
            var tables: [Table] = []
            var unreadable: [String] = []
            for (name, withoutRowID, isVirtual) in try digestedTables(connection) {
                if let cancellation, cancellation.isCancelled { throw StewardError.interrupted(by: cancellation) }
                let hasher = try SHA256Hasher()
                let rows: Int64
                do {
                    let order = try withoutRowID ? primaryKeyOrder(name, connection) : rowIDName(name, connection)
                    rows = try hashRows(of: "SELECT * FROM main.\(Connection.quote(identifier: name)) ORDER BY \(order)", connection, into: hasher)
                } catch let error as SQLiteError where isVirtual && !error.isInterrupt {
                    // Its data is still in the payload and in the file hash; only this
                    // digest is missing, and the manifest says so.
                    unreadable.append(name)
                    continue
                }
                tables.append(Table(name: name, rows: rows, sha256: try hasher.finalize()))
            }
            var digests = ContentDigests(schema: try schemaHash.finalize(), tables: tables)
            if !unreadable.isEmpty { digests.unreadable = unreadable }
            return digests
        }
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

    /// The tables that get a digest, in name order, and whether each is WITHOUT ROWID.
    static func digestedTables(_ connection: Connection) throws -> [(String, Bool, Bool)] {
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

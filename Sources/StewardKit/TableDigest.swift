import Foundation
import SQLiteKit

/// One table's content, as the backup proof compares it: its rows in rowid order (primary
/// key order for a WITHOUT ROWID table), each value encoded as a content digest encodes it
/// (`Statement.withHashEncoding`, the sqlite3 shell's `.sha3sum` encoding), hashed with
/// SHA-256. Every table with its own b-tree counts: ordinary tables and the shadow tables
/// of FTS5 and other virtual tables, so an index is compared row for row too; a virtual
/// table itself is not read (its data is in its shadow tables). Names, counts and hashes
/// only. Not the bundle manifest's digest (`sha256-sha3sum-v2`, which reads FTS5 tables
/// through their columns): both sides of a proof are hashed here, the same way.
public struct TableDigest: Codable, Sendable, Equatable {
    public let name: String
    public let rows: Int64
    /// 64 lower-case hex digits.
    public let sha256: String

    /// Every table of `main` with its own b-tree, in name order. Run inside one read
    /// transaction, so that all of them are of one moment.
    static func compute(on connection: Connection) throws -> [TableDigest] {
        let tables = try connection.rows(
            sql: "SELECT name FROM main.sqlite_schema WHERE type = 'table' AND rootpage > 0 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name")
            .compactMap { $0.first?.textValue }
        return try tables.map { name in
            let quoted = Connection.quote(identifier: name)
            // SQLite says which tables are WITHOUT ROWID (pragma table_list's `wr`).
            let withoutRowID = try connection.integer(
                sql: "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", bindings: [.text(name)]) != 0
            let order = withoutRowID
                ? try connection.rows(sql: "SELECT name FROM main.pragma_table_info(?) WHERE pk > 0 ORDER BY pk", bindings: [.text(name)])
                    .compactMap { $0.first?.textValue }.map(Connection.quote(identifier:)).joined(separator: ", ")
                : "_rowid_"
            let statement = try connection.prepare(sql: "SELECT * FROM main.\(quoted) ORDER BY \(order)")
            var hasher = try TableHasher()
            var rows: Int64 = 0
            let columns = statement.columnCount
            while try statement.step() {
                rows += 1
                for column in 0..<columns {
                    statement.withHashEncoding(at: column) { hasher.update($0) }
                }
            }
            return TableDigest(name: name, rows: rows, sha256: try hasher.finalize())
        }
    }
}

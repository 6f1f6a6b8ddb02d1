import CSQLite
import SQLiteKit

/// The index side of the parallel FTS5 check: every entry the index holds, read through
/// an `fts5vocab` table of type `instance` (https://sqlite.org/fts5.html, "The fts5vocab
/// Virtual Table Module") over a range of terms, digested as the content side digests
/// the tokens. The vocabulary table is made in the connection's TEMP schema and dropped
/// with this object.
final class FTS5IndexDigester {
    private let connection: Connection
    private let layout: FTS5TableLayout
    private let vocabulary: String
    private var dropped = false

    init(connection: Connection, layout: FTS5TableLayout) throws {
        self.connection = connection
        self.layout = layout
        vocabulary = "steward_fts5_instances_\(UInt32.random(in: 0...UInt32.max))"
        try connection.execute(sql: """
            CREATE VIRTUAL TABLE temp.\(Connection.quote(identifier: vocabulary)) USING fts5vocab('main', \(Connection.quote(literal: layout.table)), 'instance')
            """)
    }

    deinit { drop() }

    /// Drops the vocabulary table (also done when released).
    func drop() {
        guard !dropped else { return }
        dropped = true
        try? connection.execute(sql: "DROP TABLE IF EXISTS temp.\(Connection.quote(identifier: vocabulary))")
    }

    /// The entries whose term is at least `lower` and below `upper` (unbounded where nil).
    func digest(from lower: [UInt8]?, to upper: [UInt8]?) throws -> FTS5EntryDigest {
        var conditions: [String] = []
        if lower != nil { conditions.append("term >= ?1") }
        if upper != nil { conditions.append("term < ?2") }
        let filter = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let statement = try connection.prepare(sql: "SELECT term, doc, col, offset FROM temp.\(Connection.quote(identifier: vocabulary))\(filter)")
        if let lower { try bindText(lower, at: 1, of: statement) }
        if let upper { try bindText(upper, at: 2, of: statement) }
        let handle = statement.sqliteStatement
        var digest = FTS5EntryDigest()
        let detail = layout.detail
        while try statement.step() {
            let term = FTS5EntryDigest.hash(UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, 0), count: Int(sqlite3_column_bytes(handle, 0))))
            let row = sqlite3_column_int64(handle, 1)
            switch detail {
            case .full, .column:
                let column = FTS5EntryDigest.hash(UnsafeRawBufferPointer(start: sqlite3_column_text(handle, 2), count: Int(sqlite3_column_bytes(handle, 2))))
                digest.add(rowid: row, column: column, offset: detail == .full ? sqlite3_column_int64(handle, 3) : 0, term: term)
            case .none:
                digest.add(rowid: row, column: 0, offset: 0, term: term)
            }
        }
        return digest
    }

    /// Terms are bound as text of their own bytes (a split key of `%_idx` may end inside a
    /// character): SQLite compares text with BINARY, as fts5vocab compares terms.
    private func bindText(_ bytes: [UInt8], at index: Int32, of statement: Statement) throws {
        guard !bytes.isEmpty else { return try statement.bind(.text(""), at: Int(index)) }
        let rc = bytes.withUnsafeBytes { buffer in
            sqlite3_bind_text(statement.sqliteStatement, index, buffer.baseAddress?.assumingMemoryBound(to: CChar.self),
                              Int32(buffer.count), steward_sqlite_transient())
        }
        guard rc == SQLITE_OK else { throw SQLiteError(extendedCode: ResultCode(rawValue: rc)) }
    }

    /// Terms that divide the index into about `parts` ranges of similar size: the split
    /// keys of `%_idx` (one per leaf that starts a term), main index only, in order.
    static func splitTerms(of table: String, parts: Int, on connection: Connection) throws -> [[UInt8]] {
        guard parts > 1 else { return [] }
        let statement = try connection.prepare(sql: """
            SELECT DISTINCT substr(term, 2) FROM main.\(Connection.quote(identifier: table + "_idx")) WHERE substr(term, 1, 1) = X'30' AND length(term) > 1 ORDER BY 1
            """)
        var keys: [[UInt8]] = []
        while try statement.step() { keys.append(statement.blob(at: 0)) }
        guard keys.count >= parts else { return keys.count > 1 ? Array(keys.dropFirst()) : [] }
        return (1..<parts).map { keys[$0 * keys.count / parts] }
    }
}

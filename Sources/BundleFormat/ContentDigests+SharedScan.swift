import ArchiveKit
import Foundation
import SQLiteKit
import StewardBase

/// One read of a content table for its own digest and for those of the external-content
/// FTS5 tables that read it (design notes, "Performance": the FTS5 table's digest read the whole content
/// table a second time, through the module).
///
/// Why the digests are the same: reading an external-content FTS5 table without MATCH,
/// FTS5 runs `SELECT T.<content_rowid>, T.<column>… FROM <content> T WHERE
/// T.<content_rowid> BETWEEN <smallest> AND <largest 64-bit integer> ORDER BY
/// T.<content_rowid>` and hands each value on unchanged (fts5_storage.c, SQLite 3.40).
/// The shared read is `SELECT *, T.<column>…, T.<content_rowid> FROM <content> AS T ORDER
/// BY T.rowid`: the same values of the same rows. It is used only while every row's
/// `content_rowid` is an integer greater than the row before's; then both orders are
/// the same and no row is left out by the range. The first row that breaks this
/// abandons the shared read, and both digests are computed on their own, as before.
/// The FTS5 table must also be readable through its module here (its tokenizer
/// known): otherwise it stays `unreadable`, as before.
extension ContentDigests {
    /// An external-content FTS5 table whose digest the read of its content table feeds.
    struct Feed {
        let index: Int
        let name: String
        /// The FTS5 table's columns, as its module declares them.
        let columns: [String]
        let contentRowID: String
    }

    /// The FTS5 tables among `tables` that a read of their content table (an ordinary
    /// rowid table among `tables`) can feed, by the content table's index.
    static func sharedScanFeeds(_ tables: [(String, Bool, Bool)], _ connection: Connection) throws -> [Int: [Feed]] {
        var ordinary: [String: Int] = [:]
        for (index, (name, withoutRowID, isVirtual)) in tables.enumerated() where !isVirtual && !withoutRowID {
            ordinary[name.lowercased()] = index
        }
        var feeds: [Int: [Feed]] = [:]
        for (index, (name, _, isVirtual)) in tables.enumerated() where isVirtual {
            let sql = try connection.scalar(sql: "SELECT sql FROM main.sqlite_schema WHERE name = ?", bindings: [.text(name)])
            guard case .text(let text)? = sql, let definition = FTS5Definition(name: name, sql: text),
                  let content = definition.contentTable, let contentIndex = ordinary[content.lowercased()],
                  let rowID = definition.contentRowID
            else { continue }
            // Through the module, as its own digest reads it: a tokenizer this SQLite
            // lacks fails here, and the table is then read (and found unreadable) alone.
            guard let statement = try? connection.prepare(sql: "SELECT * FROM main.\(Connection.quote(identifier: name)) LIMIT 0") else {
                continue
            }
            let columns = (0..<statement.columnCount).map { statement.columnName(at: $0) }
            feeds[contentIndex, default: []].append(Feed(index: index, name: name, columns: columns, contentRowID: rowID))
        }
        return feeds
    }

    /// The content table's digest and those of `feeds`, from one read; nil, having
    /// hashed nothing that counts, when the read cannot serve them (see above).
    static func sharedScan(of content: String, feeding feeds: [Feed], _ connection: Connection) throws -> (content: Table, fed: [(Int, Table)])? {
        let order = try rowIDName(content, connection)
        var extra: [String] = []
        for feed in feeds {
            extra += feed.columns.map { "T.\(Connection.quote(identifier: $0))" }
            extra.append("T.\(Connection.quote(identifier: feed.contentRowID))")
        }
        let sql = "SELECT *, \(extra.joined(separator: ", ")) FROM main.\(Connection.quote(identifier: content)) AS T "
            + "ORDER BY T.\(order)"
        guard let statement = try? connection.prepare(sql: sql) else { return nil }
        let own = statement.columnCount - extra.count
        let hasher = try SHA256Hasher()
        let fedHashers = try feeds.map { _ in try SHA256Hasher() }
        var previous = [Int64?](repeating: nil, count: feeds.count)
        var rows: Int64 = 0
        while try statement.step() {
            rows += 1
            for column in 0..<own {
                statement.withHashEncoding(at: column) { hasher.update($0) }
            }
            var first = own
            for (position, feed) in feeds.enumerated() {
                let rowIDColumn = first + feed.columns.count
                guard case .integer(let rowID) = statement.value(at: rowIDColumn) else { return nil }
                if let last = previous[position], rowID <= last { return nil }
                previous[position] = rowID
                // Taken out of the array once per row: inside the closure the subscript
                // retained and released the hasher for every value.
                let fedHasher = fedHashers[position]
                for column in first..<rowIDColumn {
                    statement.withHashEncoding(at: column) { fedHasher.update($0) }
                }
                first = rowIDColumn + 1
            }
        }
        var fed: [(Int, Table)] = []
        for (position, feed) in feeds.enumerated() {
            fed.append((feed.index, Table(name: feed.name, rows: rows, sha256: try fedHashers[position].finalize())))
        }
        return (Table(name: content, rows: rows, sha256: try hasher.finalize()), fed)
    }
}

import Foundation
import SQLiteKit

/// A database whose index is damaged in a way only `integrity_check` notices.
extension Fixtures {
    /// A small database with an index `t_v` whose keys (`marker-0001` to `marker-0060`) are
    /// easy to find in the file.
    public static func makeIndexedDatabase(at path: String, userVersion: Int = 5) throws {
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT NOT NULL);
            CREATE INDEX t_v ON t(v);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 60)
            INSERT INTO t(v) SELECT printf('marker-%04d', i) FROM n;
            PRAGMA user_version = \(userVersion);
            """)
    }

    /// The bytes of a database made by `makeIndexedDatabase` with its index `t_v` damaged:
    /// one character of an index key changes, which `integrity_check` reports and nothing
    /// before it notices. The file itself is left as it is.
    public static func damagedIndexBytes(of path: String) throws -> [UInt8] {
        let connection = try Connection(path: path, mode: [.readOnly])
        let root = Int(try connection.integer(sql: "SELECT rootpage FROM sqlite_schema WHERE name = 't_v'"))
        let pageSize = Int(try connection.integer(sql: "PRAGMA page_size"))
        guard var bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            throw CocoaError(.fileReadNoSuchFile)
        }
        let page = (root - 1) * pageSize
        let marker = Array("marker-0042".utf8)
        let range = page..<(page + pageSize)
        guard let offset = range.first(where: { Array(bytes[$0..<min($0 + marker.count, bytes.count)]) == marker }) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "the marker is not on the index page"])
        }
        bytes[offset + marker.count - 1] = UInt8(ascii: "9")
        return bytes
    }
}

import Foundation
import SQLiteKit

/// Everything that makes two databases logically the same: user_version, the schema,
/// and the contents of every table (shadow tables included).
public struct DatabaseState: Equatable, CustomStringConvertible {
    public let userVersion: Int32
    public let schema: [String]
    public let tables: [String: [[SQLiteValue]]]

    public init(path: String) throws {
        let connection = try Connection(path: path, mode: [.readOnly])
        userVersion = try connection.userVersion()
        schema = try connection.rows(sql: "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY type, name")
            .map { row in row.map { value in value.textValue ?? "NULL" }.joined(separator: "|") }
        var tables: [String: [[SQLiteValue]]] = [:]
        for row in try connection.rows(sql: "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type IN ('table', 'shadow') AND name NOT LIKE 'sqlite_%'") {
            guard let name = row.first?.textValue else { continue }
            tables[name] = try connection.rows(sql: "SELECT * FROM \(Connection.quote(identifier: name)) ORDER BY 1, 2")
        }
        self.tables = tables
    }

    public var description: String {
        "user_version \(userVersion), \(schema.count) schema objects, tables \(tables.mapValues(\.count))"
    }
}

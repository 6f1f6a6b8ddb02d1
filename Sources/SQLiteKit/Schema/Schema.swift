
/// The schema of a database's `main` schema, read from `sqlite_schema` and pragmas.
/// Holds names and declarations only, never row data.
public struct Schema: Sendable {
    public struct Table: Sendable, Codable, Equatable {
        public let name: String
        public let type: Kind

        /// The type `PRAGMA table_list` gives a table (views are not tables here).
        public enum Kind: String, Sendable, Codable {
            case table, virtual, shadow
        }
        public let columnCount: Int
        public let isWithoutRowID: Bool
        public let isStrict: Bool
    }

    public struct Index: Sendable, Codable, Equatable {
        public let name: String
        public let table: String
        /// Column names in index order; `<expression>` for an indexed expression.
        public let columns: [String]
        public let isUnique: Bool
        public let origin: Origin

        /// What made the index, as `PRAGMA index_list` says (`c`, `u`, `pk` in the JSON).
        public enum Origin: String, Sendable, Codable {
            /// `CREATE INDEX`.
            case createIndex = "c"
            /// A UNIQUE constraint.
            case unique = "u"
            /// A PRIMARY KEY.
            case primaryKey = "pk"
        }
        public let isPartial: Bool
    }

    public let tables: [Table]
    public let indexes: [Index]
    public let triggers: [TriggerDefinition]
    public let views: [String]
    public let fts5Tables: [FTS5Definition]
    /// FTS3 and FTS4 tables.
    public let fts4Tables: [FTS4Definition]

    /// Reads the schema through `connection`.
    public init(reading connection: Connection) throws {
        var tables: [Table] = []
        try connection.forEachRow(sql: "SELECT name, type, ncol, wr, strict FROM pragma_table_list WHERE schema = 'main' ORDER BY name") { row in
            let name = row.text(at: 0) ?? ""
            // Views, and any type a later SQLite may add, are not tables to count or check.
            guard let type = Table.Kind(rawValue: row.text(at: 1) ?? ""), name != "sqlite_schema", name != "sqlite_temp_schema" else { return }
            tables.append(Table(
                name: name, type: type, columnCount: row.int(at: 2),
                isWithoutRowID: row.int(at: 3) != 0, isStrict: row.int(at: 4) != 0))
        }

        var indexes: [Index] = []
        for table in tables where table.type != .virtual {
            try connection.forEachRow(
                sql: "SELECT name, \"unique\", origin, partial FROM pragma_index_list(?) ORDER BY name",
                bindings: [.text(table.name)]
            ) { row in
                let name = row.text(at: 0) ?? ""
                var columns: [String] = []
                try connection.forEachRow(
                    sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", bindings: [.text(name)]
                ) { column in
                    columns.append(column.text(at: 0) ?? "<expression>")
                }
                // `PRAGMA index_list` knows no other origin.
                guard let origin = Index.Origin(rawValue: row.text(at: 2) ?? "") else { return }
                indexes.append(Index(
                    name: name, table: table.name, columns: columns, isUnique: row.int(at: 1) != 0,
                    origin: origin, isPartial: row.int(at: 3) != 0))
            }
        }

        var triggers: [TriggerDefinition] = []
        var views: [String] = []
        var fts5Tables: [FTS5Definition] = []
        var fts4Tables: [FTS4Definition] = []
        try connection.forEachRow(sql: "SELECT type, name, sql FROM main.sqlite_schema ORDER BY name") { row in
            let type = row.text(at: 0) ?? ""
            let name = row.text(at: 1) ?? ""
            let sql = row.text(at: 2) ?? ""
            switch type {
            case "trigger":
                if let trigger = TriggerDefinition(name: name, sql: sql) { triggers.append(trigger) }
            case "view":
                views.append(name)
            case "table":
                if let fts = FTS5Definition(name: name, sql: sql) {
                    fts5Tables.append(fts)
                } else if let fts = FTS4Definition(name: name, sql: sql) {
                    fts4Tables.append(fts)
                }
            default:
                break
            }
        }

        self.tables = tables
        self.indexes = indexes
        self.triggers = triggers
        self.views = views
        self.fts5Tables = fts5Tables
        self.fts4Tables = fts4Tables
    }

    /// The names of every full-text table (FTS3, FTS4 and FTS5), in name order.
    public var fullTextTableNames: [String] {
        (fts5Tables.map(\.name) + fts4Tables.map(\.name)).sorted()
    }

    /// The sync triggers of an external-content FTS4 table.
    public func syncTriggers(for definition: FTS4Definition) -> FTS4SyncTriggers {
        FTS4SyncTriggers(for: definition, among: triggers)
    }

    /// The sync triggers of an external-content FTS5 table.
    public func syncTriggers(for definition: FTS5Definition) -> FTS5SyncTriggers {
        FTS5SyncTriggers(for: definition, among: triggers)
    }
}

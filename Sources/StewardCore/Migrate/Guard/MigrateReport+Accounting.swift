extension MigrateReport {
    /// What the run's migrations created, dropped, lost and changed, and the rows of every
    /// table they touched, as the guard (`MigrationGuard`) accounted for it before COMMIT.
    /// Names and counts only, never values.
    public struct Accounting: Codable, Sendable {
        public enum ObjectType: String, Codable, Sendable {
            case table, index, trigger, view
        }

        public struct Object: Codable, Sendable, Hashable {
            public let type: ObjectType
            public let name: String
            /// The table an index or trigger is on.
            public let table: String?
        }

        /// An object that went with its table: only in a report when it was allowed.
        public struct Lost: Codable, Sendable {
            public let object: Object
            /// The table whose DROP took it.
            public let droppedWith: String
            /// `FILE:LINE` of that DROP TABLE, when known.
            public let location: String?
            /// `FILE:LINE` of the allowance, or `caller`.
            public let allowedBy: String?
        }

        /// One applied migration's objects.
        public struct Migration: Codable, Sendable {
            public let file: String
            public var created: [Object] = []
            public var droppedExplicitly: [Object] = []
            public var lost: [Lost] = []
            /// Indexes and triggers that went with a table the migration dropped for good
            /// (its DROP TABLE named them).
            public var droppedWithTable: [Object] = []
            /// Objects whose definition differs after the run (created again by name, or
            /// rewritten by an ALTER TABLE of their table).
            public var changed: [Object] = []

            init(file: String) { self.file = file }
        }

        /// A table the run wrote, dropped or altered that existed when first touched.
        public struct TableRows: Codable, Sendable {
            public let table: String
            public let rowsBefore: Int
            /// nil when the table is gone after the run (its DROP TABLE named it).
            public let rowsAfter: Int?
            /// The name an ALTER TABLE … RENAME gave it, when it lives on under that name.
            public let renamedTo: String?
            public let dropped: Bool
            /// The run deleted from it with a DELETE of its own.
            public let deleted: Bool
            /// The migrations that touched it.
            public let files: [String]
            /// Rows lost under an allowance: `FILE:LINE`, or `caller`.
            public var allowedBy: String?
        }

        public struct Allowance: Codable, Sendable {
            public let kind: MigrationAllowance.Kind
            public let name: String
            /// `FILE:LINE` of the comment; absent when the caller gave it.
            public let givenAt: String?
            /// Whether it allowed something this run would otherwise have refused.
            public let used: Bool
        }

        public let migrations: [Migration]
        public let tables: [TableRows]
        /// FTS5 tables checked (rank 1) because the run changed their content table.
        public let searchChecked: [String]
        public let allowances: [Allowance]
    }
}

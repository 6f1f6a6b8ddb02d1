import SQLiteKit

/// What `steward inspect` found in a database file. Names, counts and settings only.
public struct InspectReport: Codable, Sendable {
    public struct Library: Codable, Sendable {
        public let version: String
        public let sourceID: String
        /// Proven by creating an FTS5 table on an in-memory connection.
        public let fts5Available: Bool
        /// The compile options that matter for Steward's work.
        public let compileOptions: [String]
    }

    public struct FileFacts: Codable, Sendable {
        public let sizeBytes: Int64
        public let isEmpty: Bool
        /// Which of `-wal`, `-shm`, `-journal` exist beside the file.
        public let walExists: Bool
        public let shmExists: Bool
        public let journalExists: Bool
        public let openedAs: Access
    }

    /// How the file was read: through a read-only connection, or `immutable`, without
    /// locks or WAL.
    public enum Access: String, Codable, Sendable {
        case readOnly = "read-only"
        case immutable
    }

    /// What was inspected: a database file, or a bundle (`--digests` reads its manifest).
    public enum Kind: String, Codable, Sendable {
        case database, bundle
    }

    /// The database as a reader sees it, through the read-only connection: for a live
    /// WAL database, with what the -wal holds.
    public struct DatabaseFacts: Codable, Sendable {
        /// The file as given (`DatabaseReference`'s `path`, as in every report).
        public let path: String
        public let pageSize: Int
        public let pageCount: Int
        public let freelistCount: Int
        /// `PRAGMA encoding`: `UTF-8`, `UTF-16le` or `UTF-16be`.
        public let textEncoding: String
        public let userVersion: Int32
        public let applicationID: Int32
        /// `none`, `full` or `incremental`.
        public let autoVacuum: String
        /// The schema cookie, which changes with every change of the schema.
        public let schemaVersion: Int
    }

    /// The first 100 bytes of the main file as they are on disk, without what a -wal
    /// holds: for a live WAL database they can be older than what a reader sees.
    public struct Header: Codable, Sendable {
        public let pageSize: Int
        /// The database size in pages as the header records it (bytes 28–31).
        public let pageCount: Int
        public let freelistCount: Int
        public let textEncoding: String
        /// `rollback` or `wal`, from header bytes 18–19.
        public let journalMode: String
        public let writeVersion: Int
        public let readVersion: Int
        public let userVersion: Int32
        public let applicationID: Int32
        public let autoVacuum: String
        public let schemaFormat: Int
        /// The SQLite version that last wrote the file.
        public let writtenBySQLite: Int
    }

    public struct Table: Codable, Sendable {
        public let name: String
        public let type: Schema.Table.Kind
        /// Rows in the table; nil for virtual tables (a count without MATCH proves nothing).
        public let rowCount: Int64?
        public let columnCount: Int
        public let isWithoutRowID: Bool
        public let isStrict: Bool
        /// Why the table could not be counted, if it could not.
        public let error: String?
    }

    public struct Trigger: Codable, Sendable {
        public let name: String
        public let table: String
        public let timing: String
        public let event: String
    }

    public struct FTSTable: Codable, Sendable {
        public let name: String
        public let columns: [String]
        public let unindexedColumns: [String]
        public let contentMode: String
        public let content: String?
        public let contentRowID: String?
        public let tokenize: String
        /// Every option as declared, including `content`, `content_rowid` and `tokenize`.
        public let options: [String: String]
        /// For external-content tables: the insert, delete and update sync triggers.
        public let syncTriggers: FTS5SyncTriggers?
        public let missingSyncTriggers: [String]
    }

    public var command = "inspect"
    public let stewardVersion: String
    public let kind: Kind
    public let sqlite: Library
    public let file: FileFacts
    /// The database, and what a reader sees of it.
    public let database: DatabaseFacts
    /// The main file's header on disk, without the -wal applied.
    public let fileHeader: Header
    /// `PRAGMA journal_mode` as the read-only connection sees it.
    public let journalMode: String?
    public let tables: [Table]
    public let indexes: [Schema.Index]
    public let triggers: [Trigger]
    public let views: [String]
    public let ftsTables: [FTSTable]
    public var warnings: [String]
    /// `PRAGMA quick_check(20)` on the read connection: whether it said `ok`, and its
    /// findings (pages, tables and indexes named, never a value; `IntegrityMessages`).
    /// A warning says so too; inspect still exits 0, since it describes the file, and
    /// `steward verify` is what proves it.
    public var quickCheck: QuickCheck?

    public struct QuickCheck: Codable, Sendable, Equatable {
        public let passed: Bool
        public let problems: [String]
    }
}

import SQLiteKit

/// What `steward migrate` did, or would do (`--dry-run`), or would do next (`--status`).
public struct MigrateReport: Codable, Sendable {
    public struct AppliedMigration: Codable, Sendable {
        /// The version when it is an integer (absent for Flyway's dotted versions).
        public let version: Int64?
        /// The version as the runner writes it (`20240101120000`, `1.1`, drizzle's tag).
        public let versionText: String
        public let file: String
        public let statements: Int
        public let durationSeconds: Double
    }

    public struct PendingMigration: Codable, Sendable {
        public let version: Int64?
        public let versionText: String
        public let file: String
    }

    /// The runner's ledger table: read before the run, written in the same transaction.
    public struct Ledger: Codable, Sendable {
        public let table: String
        /// Whether the table was there before the run (otherwise the run created it).
        public let existed: Bool
        /// Rows recording an applied migration before the run.
        public let rowsBefore: Int
        /// Migrations recorded by this run, including ones applied earlier by Steward
        /// whose rows were missing (`backfilled`).
        public let recorded: Int
        public let backfilled: [String]
        /// A down run: the rows of migrations taken back (for golang-migrate, which keeps
        /// one row, the migrations taken back); absent on other runs.
        public var removed: Int?

        public init(table: String, existed: Bool, rowsBefore: Int, recorded: Int, backfilled: [String], removed: Int? = nil) {
            self.table = table
            self.existed = existed
            self.rowsBefore = rowsBefore
            self.recorded = recorded
            self.backfilled = backfilled
            self.removed = removed
        }
    }

    /// An applied migration a down run would take back (`--status`, `--dry-run`).
    public struct UndoMigration: Codable, Sendable {
        public let version: Int64?
        public let versionText: String
        /// The migration's up file.
        public let file: String
        /// The file that holds its down part; absent when it has none.
        public let downFile: String?
    }

    public struct FTSRebuild: Codable, Sendable {
        public let table: String
        /// `created`, `redefined` (an existing table declared again, changed or not) or
        /// `directive`.
        public let reason: Reason
        /// Whether the index was rebuilt in the run (contentless tables cannot be).
        public let rebuilt: Bool
        /// `steward`, `migration` (a statement of the migration rebuilt it, so Steward did
        /// not do it twice) or `none` (contentless).
        public let rebuiltBy: RebuiltBy
        public let rebuildSeconds: Double
        /// Whether FTS5's integrity-check passed (rank 1: index compared with content).
        public let checked: Bool
        public let checkSeconds: Double
    }

    public struct ForeignKeyGroup: Codable, Sendable, Hashable {
        public let table: String
        public let parent: String
        public let count: Int
    }

    /// A table whose violations were compared by count rather than row by row.
    public struct CountedTable: Codable, Sendable {
        public let table: String
        public let reason: String
    }

    public struct ForeignKeys: Codable, Sendable {
        /// Whether `PRAGMA foreign_keys` was on before the run (restored afterwards).
        public let enforcedBefore: Bool
        public let violationsBefore: Int
        public let violationsAfter: Int
        /// Violations after the run that were not there before, row by row (a run that
        /// removes one orphan and makes another adds one); non-zero means refused.
        public let newViolationCount: Int
        /// The new violations by table and parent.
        public let newViolations: [ForeignKeyGroup]
        /// Orphans that were already there; reported, not blocking.
        public let existingViolations: [ForeignKeyGroup]
        /// Tables whose rows cannot be followed across the run (rebuilt without an INTEGER
        /// PRIMARY KEY, so their rowids were renumbered), compared by count per parent.
        public let comparedByCount: [CountedTable]
    }

    public var command = "migrate"
    public let stewardVersion: String
    public let sqliteVersion: String
    public let database: DatabaseReference
    public let migrations: String
    /// `apply`, `dry-run` or `status`.
    public let mode: Mode
    public let created: Bool
    /// The layout the set was read in, and why (chosen by the caller, or what was detected).
    public let dialect: Dialect
    public var dialectReason: DialectSet.Detection.Reason
    /// How `user_version` records progress: `newest-version` (the newest applied
    /// version, when every version is an integer from 1 to 2147483647) or `applied-count`.
    public let userVersionRule: LedgerPlan.UserVersionRule
    public let ledger: Ledger?
    /// `user_version` before and after the run, and once every migration is applied.
    /// In another runner's layout it is Steward's mirror of the ledger: the runner's own
    /// versions are the `…VersionText` fields.
    public let fromVersion: Int32
    public let toVersion: Int32
    public let newestVersion: Int32
    /// The newest applied migration before and after the run, as its runner writes its
    /// version (`20240101120000`, `1.1`, drizzle's tag); nil (absent) when none is applied.
    public let fromVersionText: String?
    public let toVersionText: String?
    /// The set's newest migration, as its runner writes its version.
    public let newestVersionText: String
    /// How many of the set's migrations were applied before and after the run (would be,
    /// for a dry run), and how many the set has.
    public let appliedCountBefore: Int
    public let appliedCountAfter: Int
    public let migrationCount: Int
    public let applied: [AppliedMigration]
    public let pending: [PendingMigration]
    public var ignoredFiles: [String]
    public let ftsRebuilt: [FTSRebuild]
    public let foreignKeys: ForeignKeys?
    /// The guard's accounting of what the applied migrations created, dropped, lost and
    /// changed; absent when no migration was applied (or would be, for a dry run).
    public var accounting: Accounting?
    /// What the run accepted or did differently, each with its reason: changed files
    /// (--allow-changed), out-of-order migrations (--allow-out-of-order), no-op pragmas.
    public let notes: [String]
    public let totalSeconds: Double
    /// `--status` on a database at version 0 with no ledger: the newest version of the set
    /// whose schema the database has (a candidate for `--baseline`), or nil.
    public var schemaMatches: String?
    /// `--status`: no migration is pending, but a run would still write the records of
    /// those already applied (`user_version` brought in line, ledger rows backfilled, the
    /// ledger table created), so the database is not current; absent in other modes.
    public var recordsPending: Bool?
    /// `down` for a run that takes migrations back (`migrate --down`); absent otherwise.
    public var direction: Direction?
    /// A down run: the migrations taken back (would be, for a dry run), newest first, each
    /// named by the file of its down part.
    public var undone: [AppliedMigration]?
    /// `--status` of a down run: the applied migrations it would take back, newest first.
    public var toUndo: [UndoMigration]?

    /// Which way a run goes.
    public enum Direction: String, Codable, Sendable {
        case down
    }

    /// What the run did to the database, or would do. Not a status: a run that fails has
    /// no report.
    public var outcome: Outcome {
        switch mode {
        case .status: return pending.isEmpty && (toUndo ?? []).isEmpty && recordsPending != true ? .current : .pending
        case .dryRun: return applied.isEmpty && (undone ?? []).isEmpty && !recordedAny ? .current : .wouldMigrate
        case .apply: return created ? .created : applied.isEmpty && (undone ?? []).isEmpty && !recordedAny ? .current : .migrated
        }
    }

    /// The run wrote what was already applied into the records (ledger rows backfilled,
    /// the ledger table created, `user_version` brought in line) without applying a file:
    /// the database changed (a dry run's copy did), so it was not current.
    var recordedAny: Bool {
        fromVersion != toVersion || ledger.map { $0.recorded > 0 || !$0.existed } ?? false
    }
}

// The closed sets of words the migrate report uses, as enums so that the CLI switches
// over cases instead of comparing strings. Raw values are the report's JSON words.
extension MigrateReport {
    /// What the run did: applied the migrations, tried them on a copy, or only read.
    public enum Mode: String, Codable, Sendable {
        case apply
        case dryRun = "dry-run"
        case status
    }

    /// What the run did to the database, or would do (`outcome` in the JSON, and a fleet
    /// run's count per outcome).
    public enum Outcome: String, Codable, Sendable {
        /// Migrations applied, or the records of applied ones written.
        case migrated
        /// The run created the database (`--create`).
        case created
        /// Nothing to apply and nothing to record.
        case current
        /// `--status`: migrations to apply, or records for a run to write.
        case pending
        /// `--dry-run`: what `migrated` would be.
        case wouldMigrate = "would-migrate"
    }
}

extension MigrateReport.FTSRebuild {
    /// Why an FTS5 table was rebuilt and checked.
    public enum Reason: String, Codable, Sendable {
        /// A migration of the run created the table.
        case created
        /// An existing table was declared again, changed or not.
        case redefined
        /// A `-- steward: rebuild-fts` directive named it.
        case directive
    }

    /// Who rebuilt the index.
    public enum RebuiltBy: String, Codable, Sendable {
        /// Steward, after the migrations.
        case steward
        /// A statement of the migration (`INSERT INTO t(t) VALUES ('rebuild')`), so Steward
        /// did not do it twice.
        case migration
        /// Nobody: a contentless table cannot be rebuilt.
        case none
    }
}

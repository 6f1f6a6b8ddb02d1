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

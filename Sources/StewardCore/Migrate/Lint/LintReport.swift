/// What `lint` found in a migration set: per migration, what the guard accounted for and
/// which statements need a newer SQLite than the oldest the feature table lists; and every
/// finding, with its rule's stable id and `FILE:LINE`. Names, counts and versions only,
/// never values.
public struct LintReport: Encodable, Sendable {
    public enum Level: String, Codable, Sendable {
        case error, warning
    }

    /// The rules, by stable id (SARIF's `ruleId`, the JUnit case names).
    public enum Rule: String, Codable, Sendable, CaseIterable {
        case notNullWithoutDefault = "not-null-without-default"
        case dropIndexedColumn = "drop-indexed-column"
        case ftsContentWithoutRebuild = "fts-content-without-rebuild"
        case rebuildLosesTriggers = "rebuild-loses-triggers"
        case nonTransactional = "non-transactional"
        case sqliteVersion = "sqlite-version"
        case objectLost = "object-lost"
        case rowLoss = "row-loss"
        case optionLost = "option-lost"
        case counterReset = "counter-reset"
        case brokenReference = "broken-reference"
        case brokenObject = "broken-object"
        case ftsSyncTriggersLost = "fts-sync-triggers-lost"
        case unusedAllowance = "unused-allowance"
        case statementFails = "statement-fails"
        case planRegression = "plan-regression"

        /// One line on what the rule looks for.
        public var summary: String {
            switch self {
            case .notNullWithoutDefault: "a NOT NULL column added without a default fails on every table that has rows"
            case .dropIndexedColumn: "DROP COLUMN of a column an index uses fails"
            case .ftsContentWithoutRebuild: "an external-content FTS5 table's content table changed without rebuild-fts"
            case .rebuildLosesTriggers: "a table rebuilt without the triggers it had"
            case .nonTransactional: "a statement that cannot run inside the migration's transaction"
            case .sqliteVersion: "a statement needs a newer SQLite than the oldest one the set must run on"
            case .objectLost: "an index or view lost with its table, never named"
            case .rowLoss: "rows lost without a DELETE"
            case .optionLost: "STRICT, WITHOUT ROWID or AUTOINCREMENT lost in a rebuild"
            case .counterReset: "an AUTOINCREMENT counter went down"
            case .brokenReference: "a foreign key names a table that is gone or was renamed under it"
            case .brokenObject: "a view or trigger no longer compiles"
            case .ftsSyncTriggersLost: "an FTS5 table lost a sync trigger"
            case .unusedAllowance: "an allowance that matches nothing the migration did"
            case .statementFails: "a statement fails on the scratch database"
            case .planRegression: "a hot query of the plan contract no longer uses its index, or scans a whole table"
            }
        }
    }

    public struct Finding: Codable, Sendable {
        public let rule: Rule
        public let level: Level
        public let file: String
        /// 1-based; absent when the finding is the migration's as a whole.
        public let line: Int?
        public let message: String
        /// The feature of `sqlite-version` findings.
        public let feature: String?

        public var location: String { line.map { "\(file):\($0)" } ?? file }
    }

    /// A statement that needs more than the oldest release the feature table lists.
    public struct Statement: Codable, Sendable {
        public let file: String
        public let line: Int
        public let minimumSQLite: SQLiteVersion
        /// Feature ids, oldest release first.
        public let features: [String]
    }

    public struct Migration: Encodable, Sendable {
        public let file: String
        public let version: String
        public let statements: Int
        /// The newest release any of its statements needs; nil when none needs a listed feature.
        public let minimumSQLite: SQLiteVersion?
        public let needs: [Statement]
        /// What the guard accounted for: objects created, dropped, lost and changed.
        public let objects: MigrateReport.Accounting.Migration?
        /// Rows of the tables it touched that were there before it ran.
        public let tables: [MigrateReport.Accounting.TableRows]
        /// The plan contract's queries after it, those that can be planned yet.
        public let plans: [PlanContract.Outcome]?
        /// Nil when it ran; else why it did not (the later ones were not linted).
        public let failed: String?
    }

    public struct UsedFeature: Codable, Sendable {
        public let id: String
        public let name: String
        public let version: SQLiteVersion
        public let citation: String
        public let releaseNotes: String
    }

    public let directory: String
    public let dialect: Dialect
    /// The sample database the scratch copy started from.
    public let sample: String?
    /// The version the linted migrations start after.
    public let from: String?
    /// The oldest release the caller wants the set to run on.
    public let requiredSQLite: SQLiteVersion?
    /// The newest release any linted statement needs; nil when none needs a listed feature.
    public let minimumSQLite: SQLiteVersion?
    public let features: [UsedFeature]
    /// Migrations applied to the scratch database before linting began.
    public let baseMigrations: [String]
    public let migrations: [Migration]
    public let findings: [Finding]
    /// Migrations not linted because an earlier one failed.
    public let notLinted: [String]
    public let totalSeconds: Double
    /// No finding at error level.
    public let passed: Bool

    public var errors: Int { findings.filter { $0.level == .error }.count }
}

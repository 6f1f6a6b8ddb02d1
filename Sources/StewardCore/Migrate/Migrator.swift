import Foundation
import FileNames
import SQLiteKit
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// `steward migrate` on one database, alone or as one of a fleet run: applies a migration
/// set in one `BEGIN IMMEDIATE` transaction, all or nothing, after the schema-drift check
/// and, with a backup directory, a verified bundle, both before the first change
/// (docs/design-notes.md, "migrate").
public struct Migrator: StewardOperation {
    public struct Options: Sendable {
        public var databasePath: String
        public var migrationsDirectory: String
        /// Stop at this version instead of the newest.
        public var targetVersion: RequestedVersion?
        /// The runner whose layout and ledger the set follows; detected when nil.
        public var dialect: Dialect?
        /// Accept applied migrations whose file changed since (the ledger's checksum differs).
        public var allowChanged = false
        /// Apply migrations older than the newest applied one.
        public var allowOutOfOrder = false
        /// Adopt a database that has the schema of this version but no record of it.
        public var baseline: RequestedVersion?
        /// SQLite extensions loaded into every connection the run opens, for sets whose
        /// schema calls their functions or modules.
        public var extensions: [String] = []
        public var dryRun = false
        public var statusOnly = false
        public var create = false
        /// How long to wait for a lock held by another connection, per wait.
        public var timeout: Double = 30
        /// The values of Flyway placeholders (`${name}`), by name; Flyway's own are built in.
        public var placeholders: [String: String] = [:]
        /// The set as this run read it, shared with the other databases of the run; nil:
        /// the run reads it into a cache of its own.
        public var setCache: MigrationSetCache?
        /// `--backup-dir`: before the database's first change, a verified bundle of it is
        /// written here; a database whose backup fails is not migrated.
        public var backupDirectory: String?
        /// zstd threads of that backup.
        public var backupThreads = 1
        /// The run removed the stale temporaries of the backup directory once, before its
        /// first database (`removeStaleTemporaries(in:)`), so the backup leaves them alone.
        public var backupDirectorySwept = false
        /// Migrate a database whose schema differs from the set's at its version.
        public var allowDrift = false
        /// Losses the guard accepts for every migration of the run, for sets the caller
        /// cannot edit (the same as `-- steward: allow` comments in the files).
        public var allowances: [MigrationAllowance] = []
        /// FTS5 tables the application indexes in the background: the guard reports their
        /// drift and missing sync triggers instead of refusing them.
        public var ftsDeferred: Set<String> = []

        public init(databasePath: String, migrationsDirectory: String) {
            self.databasePath = databasePath
            self.migrationsDirectory = migrationsDirectory
        }
    }

    /// What the run is doing, for progress output.
    public enum Event: Sendable {
        case applying(file: String, version: String)
        case applied(file: String, version: String, statements: Int, seconds: Double)
        case rebuildingFTS(table: String)
        /// Called about every 0.2 s while an FTS rebuild or check runs.
        case working(phase: Phase, table: String, seconds: Double)
        case rebuiltFTS(table: String, rebuiltBy: MigrateReport.FTSRebuild.RebuiltBy, seconds: Double, checkSeconds: Double)

        /// The work on an FTS5 table, as the progress line names it.
        public enum Phase: String, Sendable {
            case rebuilding, checking
        }
    }

    /// The migration's report with the drift check's finding and, with a backup directory,
    /// the rollback bundle taken first (none when nothing changed); encoded as the report
    /// with `outcome`, `bundle` and `schema` at its top level, in a single run and on a
    /// fleet run's line alike.
    public struct Report: Encodable, Sendable {
        public var migration: MigrateReport
        /// The drift check's finding; nil when it did not run (current databases,
        /// `--status`, `--dry-run`, `--baseline`, a database the run created).
        public var schema: SchemaDriftCheck.Comparison?
        public var bundle: RollbackBundle?
        /// Whether a backup was asked for (`--backup-dir`).
        public var backupRequested: Bool

        public var outcome: MigrateReport.Outcome { migration.outcome }

        private enum Keys: String, CodingKey { case outcome, bundle, schema }

        public func encode(to encoder: any Encoder) throws {
            try migration.encode(to: encoder)
            var container = encoder.container(keyedBy: Keys.self)
            try container.encode(outcome, forKey: .outcome)
            try container.encodeIfPresent(bundle, forKey: .bundle)
            try container.encodeIfPresent(schema, forKey: .schema)
        }
    }

    public let setup: OperationSetup<Options, Event>
    /// `--timeout`: what the whole run may wait for other connections' locks.
    let lockWaits: LockWaits
    /// The set as the run reads and builds it: the fleet run's, or one of its own.
    let cache: MigrationSetCache

    public init(setup: OperationSetup<Options, Event>) {
        self.setup = setup
        lockWaits = LockWaits(timeout: setup.options.timeout, cancellation: setup.cancellation, database: setup.options.databasePath)
        cache = setup.options.setCache ?? MigrationSetCache()
    }

    /// - Throws: `StewardError`: `.badInput` (the set or the database refused, with
    ///   `remedy` when an option would allow it), `.notFound` (`.createMissingDatabase`),
    ///   `.checkFailed`, `.busy`, `.cannotCreate`, `.inputOutput`, `.usage`, `.interrupted`.
    public func run() throws -> Report {
        // The backup runs inside the migration's write transaction: a descriptor it opens
        // on the database is closed only after the migration's connection is (closing one
        // would drop every POSIX lock of this process on the file, the write lock among them).
        let held = HeldDescriptors()
        defer { held.closeAll() }
        return try run(holding: held)
    }

    private func run(holding held: HeldDescriptors) throws -> Report {
        let stopwatch = Stopwatch()
        // One connection serves the layout's detection (the ledgers the database has) and
        // the run; a file that is not there or empty is left to the paths below.
        let early: Connection?
        if !options.dryRun, let file = try? DatabaseFile.regularFile(options.databasePath), file.st_size > 0 {
            early = try openExisting(readOnly: options.statusOnly)
        } else {
            early = nil
        }
        let source: Source
        if let early {
            // What is asked before anything is written (the ledgers detection reads, the
            // plan, a current database's checks, `--status`) is read in one transaction:
            // one lock, one snapshot (design notes, "Performance").
            let (found, answer) = try readTransaction(on: early) { () throws -> (Source, MigrateReport?) in
                let found = try loadSource(ledgersFrom: early)
                if options.statusOnly { return (found, try status(source: found, on: early, stopwatch: stopwatch)) }
                return (found, try reportIfCurrent(source: found, on: early, stopwatch: stopwatch))
            }
            if let answer { return report(answer) }
            source = found
        } else {
            source = try loadSource()
            if options.statusOnly {
                return report(try status(source: source, on: openExisting(readOnly: true), stopwatch: stopwatch))
            }
        }
        // Every file is split and run by SQLite on an empty private database before the
        // real one is touched, so that a broken set is refused with nothing changed. A set
        // that starts from a schema made elsewhere fails there; on a database past version
        // 0 its pending files are checked again on a copy of the real schema instead. The
        // build does not depend on the database: once per run with the run's cache; it
        // also gives the drift check and `--baseline` the schema after each migration.
        let build = try cache.build(directory: options.migrationsDirectory, dialect: source.set.dialect) { try buildSet(source) }

        if options.dryRun {
            let original = try openExisting(readOnly: true)
            try checkMemory(for: original)
            let copy = try withExtensions(Connection.inMemory())
            do {
                try original.backup(to: copy)
            } catch let error as SQLiteError {
                throw readFailure(error)
            }
            return try migrate(connection: copy, source: source, build: build, created: false, stopwatch: stopwatch,
                               holding: held)
        }

        let (connection, created) = try early.map { ($0, false) } ?? (DatabaseFile.exists(options.databasePath)
            ? (openExisting(readOnly: false), false) : createOrOpen())
        do {
            return try migrate(connection: connection, source: source, build: build, created: created, stopwatch: stopwatch,
                               holding: held)
        } catch {
            if created { removeIfStillEmpty() }
            throw error
        }
    }

    /// The report of a run that wrote nothing: no drift check, no backup.
    private func report(_ migration: MigrateReport) -> Report {
        Report(migration: migration, schema: nil, bundle: nil, backupRequested: options.backupDirectory != nil)
    }

    /// Removes the database this run created, if nothing was ever committed to it: still
    /// zero bytes and no journal beside it. A file another migrator has written to since
    /// is never touched.
    func removeIfStillEmpty() {
        let path = options.databasePath
        var info = stat()
        guard stat(FileName.cString(path), &info) == 0, info.st_size == 0,
              !DatabaseFile.exists(path + "-journal"), !DatabaseFile.exists(path + "-wal")
        else { return }
        unlink(FileName.cString(path))
    }

    /// The FTS table being rebuilt, for the progress handler's live indicator.
    let currentWork = SharedName()
}

/// The work under way (phase and table), set by the run and read by SQLite's progress
/// callback.
final class SharedName: Sendable {
    private struct State {
        var work: (phase: Migrator.Event.Phase, table: String)?
        var isNew = false
    }

    private let state = Mutex(State())

    func set(_ work: (Migrator.Event.Phase, String)?) {
        state.withLock { $0 = State(work: work.map { (phase: $0.0, table: $0.1) }, isNew: work != nil) }
    }

    /// The work under way, and whether it was set since the last call.
    func next() -> (phase: Migrator.Event.Phase, table: String, isNew: Bool)? {
        state.withLock { state in
            guard let work = state.work else { return nil }
            defer { state.isNew = false }
            return (work.phase, work.table, state.isNew)
        }
    }
}

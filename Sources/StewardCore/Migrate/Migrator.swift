import Foundation
import FileNames
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

/// `steward migrate`: applies a migration set to a database in one `BEGIN IMMEDIATE`
/// transaction, all or nothing (docs/design-notes.md, "migrate").
public struct Migrator {
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
        /// The set as this run read it, shared with the other databases of the run; nil
        /// reads it afresh.
        public var setCache: MigrationSetCache?

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
        /// Called about every 0.2 s while an FTS rebuild or check runs; `phase` is
        /// `rebuilding` or `checking`.
        case working(phase: String, table: String, seconds: Double)
        case rebuiltFTS(table: String, rebuiltBy: MigrateReport.FTSRebuild.RebuiltBy, seconds: Double, checkSeconds: Double)
    }

    public let setup: OperationSetup<Options, Event>
    /// `--timeout`: what the whole run may wait for other connections' locks.
    let lockWaits: LockWaits

    public init(setup: OperationSetup<Options, Event>) {
        self.setup = setup
        lockWaits = LockWaits(timeout: setup.options.timeout, cancellation: setup.cancellation, database: setup.options.databasePath)
    }

    /// - Throws: `StewardError`: `.badInput` (the set or the database refused, with
    ///   `remedy` when an option would allow it), `.notFound` (`.createMissingDatabase`),
    ///   `.checkFailed`, `.busy`, `.cannotCreate`, `.inputOutput`, `.usage`, `.interrupted`.
    public func run() throws -> MigrateReport {
        try run(beforeMigrating: { _ in })
    }

    /// What a run that is about to write knows, for `run(beforeMigrating:)`.
    struct PendingWrite {
        /// The run's connection, inside its write transaction, nothing written yet.
        let connection: Connection
        let source: Source
        /// The set built on an empty database, with the schema after each migration.
        let build: SetBuild
        /// Read in that transaction: what is applied and what the run writes.
        let plan: LedgerPlan
        let userVersion: Int32
        /// The run created the file: there is nothing to compare or back up.
        let created: Bool
    }

    /// `run()`, calling `beforeMigrating` inside the run's write transaction, after the
    /// plan is read there and only when it says the run writes something (a migration, a
    /// ledger row, the ledger table, `user_version`), before the first write: the drift
    /// check and the rollback backup (`FleetMigration`) are decided by the same read as
    /// the write, on the same connection, and no other writer comes in between. A current
    /// database is answered on one connection, in one read transaction, without it.
    func run(beforeMigrating: (PendingWrite) throws -> Void) throws -> MigrateReport {
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
            if let answer { return answer }
            source = found
        } else {
            source = try loadSource()
            if options.statusOnly {
                return try status(source: source, on: openExisting(readOnly: true), stopwatch: stopwatch)
            }
        }
        // Every file is split and run by SQLite on an empty private database before the
        // real one is touched, so that a broken set is refused with nothing changed. A set
        // that starts from a schema made elsewhere fails there; on a database past version
        // 0 its pending files are checked again on a copy of the real schema instead. The
        // build does not depend on the database: once per run with the run's cache; it
        // also gives the drift check and `--baseline` the schema after each migration.
        let build = try options.setCache.map { cache in
            try cache.build(directory: options.migrationsDirectory, dialect: source.set.dialect) { try buildSet(source) }
        } ?? buildSet(source)

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
                               beforeMigrating: { _ in })
        }

        let (connection, created) = try early.map { ($0, false) } ?? (DatabaseFile.exists(options.databasePath)
            ? (openExisting(readOnly: false), false) : createOrOpen())
        do {
            return try migrate(connection: connection, source: source, build: build, created: created, stopwatch: stopwatch,
                               beforeMigrating: beforeMigrating)
        } catch {
            if created { removeIfStillEmpty() }
            throw error
        }
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

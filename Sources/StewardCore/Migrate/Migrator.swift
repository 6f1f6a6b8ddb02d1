import FileNames
import Foundation
import SQLiteKit
import StewardBase
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
        /// Take back the applied migrations above `targetVersion` with their down parts,
        /// newest first, in the same one transaction an upgrade runs in.
        public var down = false
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
        /// Which check proves an FTS5 index after the run rebuilt it or changed its content
        /// (`--fts-check`): on the run's own connection, whose changes no other sees.
        public var ftsCheck: FTS5CheckKind = .parallel
        public var dryRun = false
        public var statusOnly = false
        public var create = false
        /// How long to wait for a lock held by another connection, per wait.
        public var timeout = LockWait.defaultSeconds
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
        /// A query-plan contract: a hot query whose plan regresses refuses the run (65).
        public var planContractPath: String?

        public init(databasePath: String, migrationsDirectory: String) {
            self.databasePath = databasePath
            self.migrationsDirectory = migrationsDirectory
        }
    }

    /// What the run is doing, for progress output.
    public enum Event: Sendable {
        case applying(file: String, version: String)
        case applied(file: String, version: String, statements: Int, seconds: Double)
        /// A down run takes a migration back with the down part in `file`.
        case undoing(file: String, version: String)
        case undone(file: String, version: String, statements: Int, seconds: Double)
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
        // Read before the database is touched: a contract that cannot be read is 65 or 66.
        let plans = try options.planContractPath.map(PlanContract.init(path:))
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
                               holding: held, plans: plans)
        }

        let (connection, created) = try early.map { ($0, false) } ?? (DatabaseFile.exists(options.databasePath)
            ? (openExisting(readOnly: false), false) : createOrOpen())
        do {
            return try migrate(connection: connection, source: source, build: build, created: created, stopwatch: stopwatch,
                               holding: held, plans: plans)
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

/// How the run reaches the database: opening or creating it, the one read transaction of
/// what it asks before writing, the handlers on its connection, and SQLite's errors as the
/// run reports them.
extension Migrator {
    // MARK: - Opening

    /// An error opening or reading the database before the run, as inspect reports it;
    /// `waited`: busy then means the run gave up after `--timeout`.
    func readFailure(_ error: SQLiteError, waited: Bool = false) -> StewardError {
        SQLiteErrorMapping(path: options.databasePath, role: .database, cancellation: cancellation,
                           interruptedDetail: "; nothing changed", lockTimeout: waited ? options.timeout : nil).error(for: error)
    }

    /// The run's read-write connection: never used by two threads at once (a fleet's
    /// worker opens, migrates and closes its own), so without SQLite's per-connection
    /// mutex, which every call entered (an FTS5 rebuild or check, for one, enters it for
    /// every page it reads or writes through a blob handle).
    static let runMode: Connection.OpenMode = [.readWrite, .noMutex]

    func openExisting(readOnly: Bool) throws -> Connection {
        let path = options.databasePath
        guard DatabaseFile.exists(path) else {
            throw StewardError(.notFound, "\(path): no such database", remedy: .createMissingDatabase)
        }
        // Existence, type and permissions; the header is read only when opening read-only,
        // to choose how. A read-write open leaves the header to SQLite, which reads it under
        // its locks: a plain read could catch another migrator's first commit half written.
        let probe = try DatabaseFile(path: path)
        // A zero-byte file is almost always a wrong path; only a run asked to create takes
        // it as a new database. A -wal beside it with content would hold a database after all.
        if probe.size == 0, Self.sizeOfItem(path + "-wal") == 0, readOnly || !options.create {
            throw StewardError(
                .badInput, "\(path) is an empty file (0 bytes), not a database", remedy: .createFromEmptyFile)
        }
        do {
            if readOnly {
                var header: DatabaseHeader?
                if probe.size > 0 {
                    header = try probe.header()
                }
                return try withExtensions(DatabaseFile.openReadOnly(path: path, header: header, waits: lockWaits))
            }
            let connection = try withExtensions(Connection(path: path, mode: Self.runMode))
            lockWaits.attach(to: connection)
            _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
            if connection.isReadOnly {
                throw StewardError(.cannotCreate, "cannot write to \(path): the file or its directory is read-only")
            }
            return connection
        } catch let error as SQLiteError {
            throw readFailure(error, waited: true)
        }
    }

    /// Creates the database file exclusively, so that a run knows whether the file is its
    /// own; when another process created it first, opens that one like any existing file.
    func createOrOpen() throws -> (Connection, Bool) {
        let path = options.databasePath
        guard options.create else {
            throw StewardError(.notFound, "\(path): no such database", remedy: .createMissingDatabase)
        }
        let directory = Paths.directory(of: path)
        if !directory.isEmpty, !Paths.isDirectory(directory) {
            throw StewardError(.cannotCreate, "cannot create \(path): the directory \(directory) does not exist")
        }
        let descriptor = Glibc.open(FileName.cString(path), O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            if errno == EEXIST { return (try openExisting(readOnly: false), false) }
            throw StewardError(.cannotCreate, "cannot create \(path): \(String(cString: strerror(errno)))")
        }
        // Closed before SQLite opens the file, so no lock of SQLite's can be dropped by it.
        close(descriptor)
        do {
            let connection = try withExtensions(Connection(path: path, mode: Self.runMode))
            lockWaits.attach(to: connection)
            return (connection, true)
        } catch let error as SQLiteError {
            removeIfStillEmpty()
            throw StewardError(.cannotCreate, "cannot create \(path): \(error.shownMessage)")
        }
    }

    /// The size of what `path` names, not following a link; 0 when there is nothing.
    private static func sizeOfItem(_ path: String) -> Int64 {
        var info = stat()
        return lstat(FileName.cString(path), &info) == 0 ? Int64(info.st_size) : 0
    }

    /// `connection` with the extensions the options name loaded.
    func withExtensions(_ connection: Connection) throws -> Connection {
        for path in options.extensions {
            do {
                try connection.loadExtension(path: path)
            } catch let error as SQLiteError {
                throw StewardError.cannotLoadExtension(path, error)
            }
        }
        return connection
    }

    /// `--dry-run` copies the whole database into memory: a file larger than the memory
    /// available is refused before the copy, rather than failing (or swapping) half way.
    func checkMemory(for source: Connection) throws {
        let bytes: Int64
        do {
            // Through the connection, so a WAL database counts the pages still in its -wal.
            bytes = try source.integer(sql: "PRAGMA page_count") * source.integer(sql: "PRAGMA page_size")
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        guard let available = AvailableMemory.bytes, bytes > available else { return }
        throw StewardError(
            .inputOutput,
            "a dry run keeps a whole copy of the database in memory, and \(options.databasePath) "
                + "(\(AvailableMemory.megabytes(bytes)) MB) is larger than the memory available "
                + "(\(AvailableMemory.megabytes(available)) MB); dry-run on a smaller copy or migrate a copy of the file instead")
    }

    // MARK: - The run's connection

    /// `body` inside one read transaction on `connection`, ended (nothing was written)
    /// however `body` ends.
    func readTransaction<T>(on connection: Connection, _ body: () throws -> T) throws -> T {
        do {
            try connection.execute(sql: "BEGIN")
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        defer { connection.rollbackIfNeeded() }
        return try body()
    }

    /// On `connection`: `--timeout`'s lock waits, the cancellation, and the live indicator of
    /// an FTS5 rebuild or check (`currentWork`), polled by SQLite's progress handler.
    func installHandlers(on connection: Connection) {
        let cancellation = self.cancellation
        lockWaits.attach(to: connection)
        let progress = self.progress
        let currentWork = self.currentWork
        var started = Date()
        var lastTick = Date()
        connection.setProgressHandler(instructions: 10_000) {
            if cancellation.isCancelled { return false }
            if let (phase, table, isNew) = currentWork.next() {
                let now = Date()
                if isNew { started = now }
                if now.timeIntervalSince(lastTick) >= 0.2 {
                    lastTick = now
                    progress(.working(phase: phase, table: table, seconds: now.timeIntervalSince(started)))
                }
            }
            return true
        }
    }

    // MARK: - SQLite's errors

    /// `body`, with an SQLite error in it said as an error on the migrated database.
    func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: false)
        }
    }

    /// An error on the database inside the run: busy means the run gave up after its timeout.
    func explain(_ error: SQLiteError, waitingForLock: Bool, context: String? = nil) -> StewardError {
        SQLiteErrorMapping(path: options.databasePath, role: .migratedDatabase, cancellation: cancellation,
                           interruptedDetail: "; nothing changed", lockTimeout: options.timeout, context: context).error(for: error)
    }
}

/// The memory the kernel says can be allocated without swapping (`MemAvailable`).
enum AvailableMemory {
    /// In bytes, or nil when it cannot be read (not Linux, no /proc).
    static var bytes: Int64? {
        if let override = TestHooks.availableMemoryBytes { return override }
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let kilobytes = Int64(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}

/// The set as the run reads it (layout, files, scripts, the runner's ledger), what the
/// database has applied of it, and its build on an empty database.
extension Migrator {
    /// The set as a run sees it: its layout, its migrations with their scripts, and the
    /// ledger of its runner.
    struct Source {
        let detection: DialectSet.Detection
        let set: DialectSet
        /// One script per migration, in the set's order.
        let scripts: [MigrationScript]
        let ledger: (any MigrationLedger)?

        /// `version` as the runner shows it: the ledger's text of the set's migration.
        func shown(_ version: VersionKey) -> String {
            set.migrations.first { $0.version == version }?.ledgerVersion ?? version.description
        }

        func script(for migration: DialectMigration) -> MigrationScript? {
            scripts.first { $0.migration.fileName == migration.fileName }
        }

        /// `user_version` once every migration is applied.
        var newestUserVersion: Int32 {
            LedgerPlan.userVersion(for: set.migrations, rule: LedgerPlan.rule(for: set.migrations))
        }
    }

    /// Reads the set in the layout the caller names or detection picks, once per run and
    /// layout (the run's `cache`); the database's ledgers (for detection) are read from
    /// `connection` when given, else from a connection of their own.
    func loadSource(ledgersFrom connection: Connection? = nil) throws -> Source {
        let directory = options.migrationsDirectory
        let detection: DialectSet.Detection
        if let dialect = options.dialect {
            if let declared = try DialectSet.declaration(in: directory), declared.dialect != dialect {
                throw StewardError(
                    .badInput,
                    "\(Paths.join(directory, DialectSet.declarationFile)) declares the set's layout \(declared.dialect.rawValue), and the run asks for \(dialect.rawValue); read in another layout, the set would get a ledger its application's runner never reads")
            }
            detection = .init(dialect: dialect, reason: .chosen)
        } else {
            switch try cache.detection(directory: directory) {
            case .decided(let found): detection = found
            case .needsLedgers:
                detection = try DialectSet.detection(
                    directory: directory, records: try recordsOfExistingDatabase(connection), whenAmbiguous: .refuse)
            }
        }
        let source = try cache.source(directory: directory, dialect: detection.dialect) { try readSource(detection) }
        if options.allowOutOfOrder, !source.set.dialect.canRecordOutOfOrder {
            throw StewardError(
                .usage,
                "migrations cannot be applied out of order with \(source.set.dialect.rawValue): its ledger records only the newest applied migration, so \(source.set.dialect.rawValue) would never see one applied out of order")
        }
        return source
    }

    private func readSource(_ detection: DialectSet.Detection) throws -> Source {
        let directory = options.migrationsDirectory
        let set = try DialectSet(directory: directory, dialect: detection.dialect,
                                 placeholders: detection.dialect == .flyway ? FlywayPlaceholders(options.placeholders) : nil).withoutDeclaration
        return Source(detection: detection, set: set, scripts: try MigrationScript.scripts(for: set), ledger: Ledgers.ledger(for: set.dialect))
    }

    /// The ledger tables and `user_version` of the database, when it exists, for detection.
    private func recordsOfExistingDatabase(_ open: Connection?) throws -> DialectSet.DatabaseRecords {
        // A connection the run opened is on the existing, non-empty file: not looked at again.
        let connection: Connection
        if let open {
            connection = open
        } else {
            guard DatabaseFile.exists(options.databasePath), (try? DatabaseFile(path: options.databasePath))?.size ?? 0 > 0 else {
                return DialectSet.DatabaseRecords()
            }
            connection = try openExisting(readOnly: true)
        }
        do {
            return DialectSet.DatabaseRecords(ledgers: try Ledgers.present(on: connection), userVersion: try connection.userVersion())
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
    }

    /// What is applied and what runs, read on `connection` (inside the run's transaction
    /// for a real run).
    func plan(for source: Source, on connection: Connection) throws -> (LedgerPlan, ledgerExisted: Bool, rowsBefore: Int) {
        let current = try sqlite { try connection.userVersion() }
        var reading: LedgerReading?
        if let ledger = source.ledger, try sqlite({ try ledger.exists(on: connection) }) {
            reading = try sqlite { try ledger.read(on: connection, migrations: source.set.migrations) }
        }
        var planOptions = LedgerPlan.Options()
        planOptions.target = try resolved(options.targetVersion, in: source)
        planOptions.allowChanged = options.allowChanged
        planOptions.allowOutOfOrder = options.allowOutOfOrder
        planOptions.baseline = try resolved(options.baseline, in: source)
        planOptions.down = options.down
        // `--status` shows what a down run would take back, down parts or not.
        planOptions.requireDownParts = !options.statusOnly
        let plan = try LedgerPlan(set: source.set, reading: reading, userVersion: current, options: planOptions)
        return (plan, reading != nil, reading?.rows ?? 0)
    }

    /// The version of the set a `--to` or `--baseline` names, as the runner shows it or as
    /// a version; a tag no migration has is refused.
    func resolved(_ requested: RequestedVersion?, in source: Source) throws -> VersionKey? {
        guard let requested else { return nil }
        guard let key = requested.resolve(in: source.set.migrations) else {
            throw StewardError(.badInput, "no migration in \(source.set.directory) has version \(requested.text)")
        }
        return key
    }

    /// Builds the set on a private empty database, once per run with the run's cache. A
    /// file that fails, or a `rebuild-fts` directive that names no FTS5 table, is the
    /// build's `failure`, not an error; an interruption or an extension that cannot be
    /// loaded is thrown.
    func buildSet(_ source: Source) throws -> SetBuild {
        let scratch = try withExtensions(Connection.inMemory())
        let cancellation = self.cancellation
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        let readings = SchemaFingerprint.ReadingCache()
        let empty = try sqlite { try SchemaFingerprint(reading: scratch, cache: readings) }
        var steps: [SetBuild.Step] = []
        var schema: SchemaFingerprint? = empty
        var schemaVersion = try sqlite { try scratch.integer(sql: "PRAGMA schema_version") }
        var current = 0
        do {
            for (index, script) in source.scripts.enumerated() {
                current = index
                try script.apply(on: scratch, cancellation: cancellation, schemaOnly: true)
                if !script.directives.isEmpty {
                    let tables = try Self.fts5Tables(on: scratch)
                    for directive in script.directives where tables[directive.table.lowercased()] == nil {
                        throw StewardError(
                            .badInput,
                            "\(script.migration.fileName):\(directive.line): rebuild-fts names '\(directive.table)', which is not an FTS5 table")
                    }
                }
                // Read again only when the file changed the schema (a data migration does not).
                let version = try sqlite { try scratch.integer(sql: "PRAGMA schema_version") }
                if version != schemaVersion {
                    schemaVersion = version
                    // A schema that cannot be read stops the steps, not the set's check.
                    schema = schema == nil ? nil : try? SchemaFingerprint(reading: scratch, cache: readings)
                }
                // `scripts` has one script per migration of the set, in its order.
                if let schema, steps.count == index, index < source.set.migrations.count {
                    steps.append(.init(migration: source.set.migrations[index], schema: schema))
                }
            }
        } catch let error as StewardError where error.kind == .badInput {
            let failed = current < source.scripts.count ? source.scripts[current].migration.fileName : ""
            return SetBuild(empty: empty, steps: steps, failure: error, failedAt: (current, failed))
        }
        return SetBuild(empty: empty, steps: steps, failure: nil)
    }
}

/// The migration set as one run reads it, shared by every job of a fleet run (and by the
/// look and the migration of one database): the files are read, parsed and checked on an
/// empty database once per run and layout, not once per database. Only what cannot depend
/// on a database is kept: which layout the files alone select, the set read in a layout,
/// the set's check on an empty database, and the drift check's builds of what databases
/// have applied. The ledgers a database has (for detection) and the check of pending
/// files on a copy of a real schema stay per database.
///
/// A cache lives for one run: a file changed before the next run is read by that run.
public final class MigrationSetCache: Sendable {
    /// What the files alone say about the layout: a layout, or that the database's ledger
    /// tables decide.
    enum FileDetection: Sendable {
        case decided(DialectSet.Detection)
        case needsLedgers
    }

    private struct NeedsLedgers: Error {}

    private let detections = Mutex<[String: FileDetection]>([:])
    /// Held while a set is read, so that each is read once; failures are kept too (every
    /// database would fail the same way).
    private let sources = Mutex<[String: Result<Migrator.Source, StewardError>]>([:])
    /// The set built on an empty database: its check and the schema after each migration.
    private let builds = Mutex<[String: SetBuild]>([:])
    private let drift = Mutex<SchemaDriftCheck?>(nil)
    private let readCount = Atomic<Int>(0)
    private let validationCount = Atomic<Int>(0)

    public init() {}

    /// How many times this cache read a set from its directory (for tests).
    public var setReads: Int { readCount.load(ordering: .relaxed) }
    /// How many times a set was checked on an empty database (for tests).
    public var setChecks: Int { validationCount.load(ordering: .relaxed) }

    /// - Throws: a declaration (`DialectSet.declarationFile`) that names no layout.
    func detection(directory: String) throws -> FileDetection {
        try detections.withLock { known in
            if let found = known[directory] { return found }
            let found: FileDetection
            do {
                found = .decided(try DialectSet.detect(directory: directory, records: { throw NeedsLedgers() }))
            } catch is NeedsLedgers {
                found = .needsLedgers
            }
            known[directory] = found
            return found
        }
    }

    func source(directory: String, dialect: Dialect, read: () throws -> Migrator.Source) throws -> Migrator.Source {
        let key = dialect.rawValue + "\u{0}" + directory
        let result: Result<Migrator.Source, StewardError> = try sources.withLock { known in
            if let found = known[key] { return found }
            readCount.add(1, ordering: .relaxed)
            let result: Result<Migrator.Source, StewardError>
            do {
                result = .success(try read())
            } catch let error as StewardError where error.kind != .interrupted {
                result = .failure(error)
            }
            known[key] = result
            return result
        }
        return try result.get()
    }

    /// The set built on an empty database (`Migrator.buildSet`), once per layout; what it
    /// throws (an interruption, say) is not kept.
    func build(directory: String, dialect: Dialect, build: () throws -> SetBuild) throws -> SetBuild {
        let key = dialect.rawValue + "\u{0}" + directory
        return try builds.withLock { known in
            if let found = known[key] { return found }
            validationCount.add(1, ordering: .relaxed)
            let found = try build()
            known[key] = found
            return found
        }
    }

    /// The run's drift check, made by its first database: each applied set it has to build
    /// is built once for the run.
    func driftCheck(extensions: [String]) -> SchemaDriftCheck {
        drift.withLock { drift in
            if let drift { return drift }
            let made = SchemaDriftCheck(extensions: extensions)
            drift = made
            return made
        }
    }
}

// MARK: - The report
/// The report of a run, and the two runs that answer without writing: `--status`, and a
/// database that is already current.
extension Migrator {
    /// - Parameters:
    ///   - appliedBefore: what the plan says was applied before the run, in the set's order.
    ///   - appliedAfter: what is applied after it (would be, for a dry run; the same for
    ///     `--status`).
    func report(
        source: Source, mode: MigrateReport.Mode, created: Bool, from: Int32, to: Int32,
        appliedBefore: [DialectMigration], appliedAfter: [DialectMigration],
        applied: [MigrateReport.AppliedMigration], pending: [DialectMigration], ledger: MigrateReport.Ledger?,
        fts: [MigrateReport.FTSRebuild], foreignKeys: MigrateReport.ForeignKeys?, notes: [String], stopwatch: Stopwatch
    ) -> MigrateReport {
        var report = MigrateReport(
            stewardVersion: StewardVersion.current, sqliteVersion: SQLiteLibrary.version,
            database: DatabaseReference(path: options.databasePath), migrations: source.set.directory, mode: mode, created: created,
            dialect: source.set.dialect, dialectReason: source.detection.reason,
            userVersionRule: LedgerPlan.rule(for: source.set.migrations), ledger: ledger,
            fromVersion: from, toVersion: to, newestVersion: source.newestUserVersion,
            fromVersionText: appliedBefore.last?.ledgerVersion, toVersionText: appliedAfter.last?.ledgerVersion,
            newestVersionText: source.set.migrations.last?.ledgerVersion ?? "",
            appliedCountBefore: appliedBefore.count, appliedCountAfter: appliedAfter.count,
            migrationCount: source.set.migrations.count, applied: applied,
            pending: pending.map { .init(version: $0.version.integer, versionText: $0.ledgerVersion, file: $0.fileName) },
            ignoredFiles: source.set.ignoredFiles, ftsRebuilt: fts, foreignKeys: foreignKeys, notes: notes,
            totalSeconds: stopwatch.roundedSeconds)
        if options.down {
            report.direction = .down
            report.undone = []
            // Files an upgrade ignores are a down run's down parts: not ignored here.
            let downParts = Set(source.set.migrations.compactMap { $0.down?.fileName })
            report.ignoredFiles = report.ignoredFiles.filter { !downParts.contains($0) }
        }
        return report
    }

    /// `migrations` in the set's order (out-of-order ones where they belong).
    static func inSetOrder(_ migrations: [DialectMigration], of source: Source) -> [DialectMigration] {
        let keys = Set(migrations.map(\.version))
        return source.set.migrations.filter { keys.contains($0.version) }
    }

    /// Notes for the report about what the plan accepted.
    static func notes(for plan: LedgerPlan) -> [String] {
        var notes: [String] = []
        for change in plan.changed {
            notes.append("\(change.file) changed since it was applied\(change.lineEndingsOnly ? " (line endings only)" : ""); accepted, as changed files were allowed")
        }
        for migration in plan.outOfOrder {
            notes.append("\(migration.fileName) is older than the newest applied migration; applied out of order, as allowed")
        }
        return notes
    }

    /// The note of a run on a database whose `user_version` disagrees with the runner's
    /// ledger (`LedgerPlan.mirrorOutOfLine`): the ledger was followed, and `user_version`
    /// was rewritten to `rewrittenTo` by this run, or is left to the next run that writes.
    static func mirrorNote(_ plan: LedgerPlan, ledger: (any MigrationLedger)?, rewrittenTo: Int32?) -> String? {
        guard plan.mirrorOutOfLine else { return nil }
        let table = ledger?.table ?? "the ledger"
        let count = plan.applied.count
        let direction = plan.userVersion > plan.recordedUserVersion
            ? "ahead of \(table), which records \(count) applied migration\(count == 1 ? "" : "s") (its runner took migrations back since)"
            : "behind \(table), which records \(count) applied migration\(count == 1 ? "" : "s") (its runner applied migrations since)"
        let action = rewrittenTo.map { "this run rewrote it: it is now \($0), in line with \(table)" }
            ?? "the next run that writes rewrites it"
        return "user_version is \(plan.userVersion), \(direction): \(table) is the record and Steward follows it; user_version is Steward's mirror of it, and \(action)"
    }

    /// The note of a run whose `user_version` counts applied migrations.
    static func appliedCountNote(_ version: Int32, ledger: (any MigrationLedger)?) -> String {
        "user_version counts applied migrations (\(version)): the versions do not all fit user_version, so \(ledger?.table ?? "the ledger") says which are applied"
    }

    // MARK: - Runs that only read

    /// Whether a run with `plan` writes anything besides golang-migrate's rewrite of its
    /// one row: a migration, a ledger row to backfill, the ledger table, `user_version`
    /// where it is the record (no runner's ledger), a baseline. The one answer to "is there
    /// work" for the current-database report and for what runs before the first write (the
    /// drift check, the rollback backup). Where the runner's ledger is the record,
    /// `user_version` is only Steward's mirror of it: out of line, it is rewritten by the
    /// next run that writes, and is no work by itself (a database the runner migrated is
    /// current).
    static func writes(plan: LedgerPlan, source: Source, ledgerExisted: Bool, userVersion: Int32) -> Bool {
        !plan.pending.isEmpty || !plan.undo.isEmpty || !plan.unrecorded.isEmpty || (source.ledger != nil && !ledgerExisted)
            || (!plan.followsLedger && plan.recordedUserVersion != userVersion)
    }

    /// The report of a run on a database that is already current, read inside the run's
    /// read transaction (`readTransaction(on:_:)`); nil when the run has anything to write
    /// (a pending migration, a ledger row to backfill or a ledger to create, a
    /// `user_version` to set, a baseline to adopt), which the full run then does under its
    /// write lock.
    ///
    /// It is the report the full run gives such a database, proved the same way: the plan
    /// read from `user_version` and the ledger, the foreign-key violations (all existing,
    /// so none new) and `PRAGMA quick_check`. What it skips only matters when a migration
    /// runs: the write lock, the set's check on an empty database, the FTS5 rebuilds, and
    /// the drift check (design notes, "Performance": start-up plus a no-op `migrate`).
    func reportIfCurrent(source: Source, on connection: Connection, stopwatch: Stopwatch) throws -> MigrateReport? {
        guard options.baseline == nil else { return nil }
        installHandlers(on: connection)
        defer {
            connection.setProgressHandler(instructions: 0, nil)
            connection.setBusyHandler(nil)
        }
        do {
            let enforced = try connection.integer(sql: "PRAGMA foreign_keys") == 1
            let current = try connection.userVersion()
            let (plan, ledgerExisted, rowsBefore) = try self.plan(for: source, on: connection)
            guard !plan.applied.isEmpty,
                  !Self.writes(plan: plan, source: source, ledgerExisted: ledgerExisted, userVersion: current)
            else { return nil }
            let violations = try ForeignKeySnapshot(of: connection)
            let foreignKeys = ForeignKeySnapshot.compare(before: violations, after: violations, enforced: enforced)
            try quickCheck(connection)
            if cancellation.isCancelled {
                throw StewardError.interrupted(by: cancellation, "; nothing changed")
            }
            var notes = Self.notes(for: plan)
            if let mirror = Self.mirrorNote(plan, ledger: source.ledger, rewrittenTo: nil) { notes.append(mirror) }
            if plan.rule == .appliedCount {
                notes.append(Self.appliedCountNote(current, ledger: source.ledger))
            }
            let ledger = source.ledger.map {
                MigrateReport.Ledger(table: $0.table, existed: true, rowsBefore: rowsBefore, recorded: 0, backfilled: [])
            }
            return report(source: source, mode: .apply, created: false, from: current, to: current,
                          appliedBefore: plan.applied, appliedAfter: plan.applied, applied: [],
                          pending: [], ledger: ledger, fts: [], foreignKeys: foreignKeys, notes: notes,
                          stopwatch: stopwatch)
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: true)
        }
    }

    func status(source: Source, on connection: Connection, stopwatch: Stopwatch) throws -> MigrateReport {
        let current: Int32
        let plan: LedgerPlan
        let ledger: MigrateReport.Ledger?
        let writes: Bool
        do {
            current = try connection.userVersion()
            let (found, existed, rows) = try self.plan(for: source, on: connection)
            plan = found
            // The decision the run makes before it writes, so that "current" here means a
            // run leaves the database as it is.
            writes = Self.writes(plan: found, source: source, ledgerExisted: existed, userVersion: current)
            ledger = source.ledger.map {
                .init(table: $0.table, existed: existed, rowsBefore: rows, recorded: 0, backfilled: [])
            }
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        var notes = Self.notes(for: plan)
        if let mirror = Self.mirrorNote(plan, ledger: source.ledger, rewrittenTo: nil) { notes.append(mirror) }
        var report = report(source: source, mode: .status, created: false, from: current, to: current,
                            appliedBefore: plan.applied, appliedAfter: plan.applied, applied: [],
                            pending: plan.pending, ledger: ledger, fts: [], foreignKeys: nil, notes: notes,
                            stopwatch: stopwatch)
        report.recordsPending = plan.pending.isEmpty && writes
        if options.down {
            report.undone = nil
            report.toUndo = plan.undo.map {
                .init(version: $0.version.integer, versionText: $0.ledgerVersion, file: $0.fileName,
                      downFile: $0.down.map(\.fileName))
            }
        }
        if current == 0, plan.applied.isEmpty {
            report.schemaMatches = matchingVersion(of: source, on: connection)
        }
        return report
    }

    /// For `--status` on a database at version 0 with tables and no ledger: the newest
    /// version whose schema the database has, if any.
    func matchingVersion(of source: Source, on connection: Connection) -> String? {
        guard let actual = try? SchemaFingerprint(reading: connection), !actual.isEmpty,
              let prefixes = try? expectedSchema(of: source, through: nil)
        else { return nil }
        return prefixes.last { actual.differences(from: $0.1).isEmpty }?.0.ledgerVersion
    }
}

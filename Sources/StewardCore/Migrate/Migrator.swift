import Foundation
import FileNames
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

/// `steward migrate`: applies a migration set to a database in one `BEGIN IMMEDIATE`
/// transaction, all or nothing (field notes §1 and §2).
public struct Migrator {
    public struct Options: Sendable {
        public var databasePath: String
        public var migrationsDirectory: String
        /// Stop at this version instead of the newest.
        public var targetVersion: VersionKey?
        /// The runner whose layout and ledger the set follows; detected when nil.
        public var dialect: Dialect?
        /// Accept applied migrations whose file changed since (the ledger's checksum differs).
        public var allowChanged = false
        /// Apply migrations older than the newest applied one.
        public var allowOutOfOrder = false
        /// Adopt a database that has the schema of this version but no record of it.
        public var baseline: VersionKey?
        /// SQLite extensions loaded into every connection the run opens, for sets whose
        /// schema calls their functions or modules.
        public var extensions: [String] = []
        public var dryRun = false
        public var statusOnly = false
        public var create = false
        /// How long to wait for a lock held by another connection, per wait.
        public var timeout: Double = 30

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
        /// `rebuiltBy` is `steward`, `migration` or `none`, as in the report.
        case rebuiltFTS(table: String, rebuiltBy: String, seconds: Double, checkSeconds: Double)
    }

    let options: Options
    let cancellation: Cancellation
    let progress: @Sendable (Event) -> Void

    public init(options: Options, cancellation: Cancellation,
                progress: @escaping @Sendable (Event) -> Void) {
        self.options = options
        self.cancellation = cancellation
        self.progress = progress
    }

    public func run() throws -> MigrateReport {
        let stopwatch = Stopwatch()
        let source = try loadSource()

        if options.statusOnly {
            return try status(source: source, stopwatch: stopwatch)
        }
        // Every file is split and run by SQLite on an empty private database before the
        // real one is touched, so that a broken set is refused with nothing changed. A set
        // that starts from a schema made elsewhere fails there; on a database past version
        // 0 its pending files are checked again on a copy of the real schema instead.
        var validation: StewardError?
        do {
            try validate(source.scripts)
        } catch let error as StewardError where error.kind == .badInput {
            validation = error
        }

        if options.dryRun {
            let original = try openExisting(readOnly: true)
            try checkMemory(for: original)
            let copy = try withExtensions(Connection.inMemory())
            do {
                try original.backup(to: copy)
            } catch let error as SQLiteError {
                throw readFailure(error)
            }
            return try migrate(connection: copy, source: source, validation: validation, created: false, stopwatch: stopwatch)
        }

        let (connection, created) = try FileProbe.exists(options.databasePath)
            ? (openExisting(readOnly: false), false) : createOrOpen()
        do {
            return try migrate(connection: connection, source: source, validation: validation, created: created, stopwatch: stopwatch)
        } catch {
            if created { removeIfStillEmpty() }
            throw error
        }
    }

    /// Removes the database this run created, if nothing was ever committed to it: still
    /// zero bytes and no journal beside it. A file another migrator has written to since
    /// is never touched.
    private func removeIfStillEmpty() {
        let path = options.databasePath
        var info = stat()
        guard stat(FileName.cString(path), &info) == 0, info.st_size == 0,
              !FileProbe.exists(path + "-journal"), !FileProbe.exists(path + "-wal")
        else { return }
        unlink(FileName.cString(path))
    }

    // MARK: - Steps

    /// `--dry-run` copies the whole database into memory: a file larger than the memory
    /// available is refused before the copy, rather than failing (or swapping) half way.
    private func checkMemory(for source: Connection) throws {
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
            "--dry-run keeps a whole copy of the database in memory, and \(options.databasePath) "
                + "(\(AvailableMemory.megabytes(bytes)) MB) is larger than the memory available "
                + "(\(AvailableMemory.megabytes(available)) MB); dry-run on a smaller copy or migrate a copy of the file instead")
    }

    /// An error opening or reading the database before the run: as inspect reports it,
    /// except that running out of memory is a resource failure (74), not bad input.
    private func readFailure(_ error: SQLiteError) -> StewardError {
        if error.isOutOfMemory {
            return StewardError(.inputOutput, "out of memory while reading \(options.databasePath); nothing changed")
        }
        return Inspector.explain(error, path: options.databasePath)
    }

    /// Rows a migration wrote past a CHECK or NOT NULL, or an index out of step with its
    /// table, are found here before they are committed. `case_sensitive_like` is a
    /// connection setting a migration may change: the rows are judged as every other
    /// connection will read them, with the default.
    private func quickCheck(_ connection: Connection) throws {
        let problems = try sqlite {
            try connection.execute(sql: "PRAGMA case_sensitive_like = OFF")
            return try connection.integrityCheck(quick: true, maximumErrors: 10)
        }
        guard problems != ["ok"] else { return }
        // quick_check names tables, indexes, pages and rowids, never values.
        let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; …" : "")
        throw StewardError(
            .checkFailed, "PRAGMA quick_check fails after the migrations (\(shown)); rolled back, nothing changed")
    }

    private func validate(_ scripts: [MigrationScript]) throws {
        let scratch = try withExtensions(Connection.inMemory())
        let cancellation = self.cancellation
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        for script in scripts {
            try script.apply(on: scratch, cancellation: cancellation, schemaOnly: true)
            guard !script.directives.isEmpty else { continue }
            let tables = try Self.fts5Tables(on: scratch)
            for directive in script.directives where tables[directive.table.lowercased()] == nil {
                throw StewardError(
                    .badInput,
                    "\(script.migration.fileName):\(directive.line): rebuild-fts names '\(directive.table)', which is not an FTS5 table")
            }
        }
    }

    /// Checks `scripts` on a private copy of the schema of `connection` (no rows): for a set
    /// whose first files alter tables made elsewhere.
    private func validate(_ scripts: [MigrationScript], onSchemaOf connection: Connection) throws {
        let scratch = try withExtensions(Connection.inMemory())
        try sqlite { try SchemaCopy.copy(from: connection, to: scratch) }
        let cancellation = self.cancellation
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        for script in scripts {
            try script.apply(on: scratch, cancellation: cancellation, schemaOnly: true)
        }
    }

    private func status(source: Source, stopwatch: Stopwatch) throws -> MigrateReport {
        let connection = try openExisting(readOnly: true)
        let current: Int32
        let plan: LedgerPlan
        let ledger: MigrateReport.Ledger?
        do {
            current = try connection.userVersion()
            let (found, existed, rows) = try self.plan(for: source, on: connection)
            plan = found
            ledger = source.ledger.map {
                .init(table: $0.table, existed: existed, rowsBefore: rows, recorded: 0, backfilled: [])
            }
        } catch let error as SQLiteError {
            throw readFailure(error)
        }
        var report = report(source: source, mode: "status", created: false, from: current, to: current, applied: [],
                            pending: plan.pending, ledger: ledger, fts: [], foreignKeys: nil, notes: Self.notes(for: plan),
                            stopwatch: stopwatch)
        if current == 0, plan.applied.isEmpty {
            report.schemaMatches = matchingVersion(of: source, on: connection)
        }
        return report
    }

    private func migrate(
        connection: Connection, source: Source, validation: StewardError?, created: Bool, stopwatch: Stopwatch
    ) throws -> MigrateReport {
        let mode = options.dryRun ? "dry-run" : "apply"
        installHandlers(on: connection)
        defer {
            connection.setProgressHandler(instructions: 0, nil)
            connection.setBusyHandler(nil)
        }

        // Foreign keys cannot be switched inside a transaction: off before, restored after.
        let enforced = try sqlite { try connection.integer(sql: "PRAGMA foreign_keys") == 1 }
        if enforced { try sqlite { try connection.execute(sql: "PRAGMA foreign_keys = OFF") } }
        defer { if enforced { _ = try? connection.execute(sql: "PRAGMA foreign_keys = ON") } }

        do {
            try connection.execute(sql: "BEGIN IMMEDIATE")
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: true)
        }
        // A run that created the file removes it when it fails while still empty; a run
        // that waited for that one's lock would then migrate a file nobody can find.
        if (try? connection.hasMoved()) == true {
            connection.rollbackIfNeeded()
            throw StewardError(.busy, "\(options.databasePath) was removed or replaced while this run waited for it; run again")
        }

        do {
            // Read inside the transaction: a second migrator waits for the first and
            // then finds nothing to do.
            let current = try sqlite { try connection.userVersion() }
            let (plan, ledgerExisted, rowsBefore) = try self.plan(for: source, on: connection)
            if let baseline = options.baseline {
                try checkBaseline(baseline, source: source, on: connection)
            }
            if let validation {
                // The set does not build from an empty database: only a database that
                // already holds the schema its pending files start from can take them.
                guard !plan.applied.isEmpty else { throw validation }
                try validate(plan.pending.compactMap(source.script(for:)), onSchemaOf: connection)
            }
            let pending = plan.pending.compactMap(source.script(for:))
            var notes = Self.notes(for: plan)
            if let baseline = options.baseline {
                notes.append("adopted at baseline \(baseline): the schema matches the set up to that version, \(plan.applied.count) migration\(plan.applied.count == 1 ? "" : "s") recorded as applied")
            }
            let violationsBefore = try sqlite { try ForeignKeySnapshot(of: connection) }
            let ftsBefore = try sqlite { try Self.fts5Tables(on: connection) }

            var applied: [MigrateReport.AppliedMigration] = []
            var rebuiltByMigrations = Set<String>()
            var backfilled: [String] = []
            if let ledger = source.ledger {
                try sqlite { try ledger.create(on: connection) }
                // Applied by Steward before the ledger existed: recorded first, in order.
                for migration in plan.unrecorded {
                    try sqlite { try ledger.record(migration, executionSeconds: 0, on: connection) }
                    backfilled.append(migration.fileName)
                }
            }
            var appliedSoFar = plan.applied
            for migration in plan.pending {
                guard let script = source.script(for: migration) else { continue }
                let version = migration.version.description
                progress(.applying(file: migration.fileName, version: version))
                let watch = Stopwatch()
                let count = try script.apply(
                    on: connection, cancellation: cancellation, onNote: { notes.append($0) }
                ) { table in
                    rebuiltByMigrations.insert(table.lowercased())
                }
                let seconds = watch.roundedSeconds
                try sqlite { try source.ledger?.record(migration, executionSeconds: watch.seconds, on: connection) }
                appliedSoFar.append(migration)
                try sqlite {
                    try connection.setUserVersion(LedgerPlan.userVersion(for: appliedSoFar, rule: plan.rule))
                }
                applied.append(.init(version: migration.version.integer, versionText: migration.ledgerVersion,
                                     file: migration.fileName, statements: count, durationSeconds: seconds))
                progress(.applied(file: migration.fileName, version: version, statements: count, seconds: seconds))
            }
            if let ledger = source.ledger {
                try sqlite { try ledger.finish(newest: appliedSoFar.max { $0.version < $1.version }, on: connection) }
            }
            // A database that had applied migrations but no user_version gets it now, so
            // that user_version and the ledger agree.
            let recordedVersion = LedgerPlan.userVersion(for: appliedSoFar, rule: plan.rule)
            if try sqlite({ try connection.userVersion() }) != recordedVersion {
                try sqlite { try connection.setUserVersion(recordedVersion) }
            }
            // The FTS lookup below uses LIKE; a migration may have made it case-sensitive.
            try sqlite { try connection.execute(sql: "PRAGMA case_sensitive_like = OFF") }

            let fts = try rebuildFTS(
                on: connection, before: ftsBefore, applied: pending, rebuiltByMigrations: rebuiltByMigrations)

            let violationsAfter = try sqlite { try ForeignKeySnapshot(of: connection) }
            let foreignKeys = ForeignKeySnapshot.compare(before: violationsBefore, after: violationsAfter, enforced: enforced)
            if foreignKeys.newViolationCount > 0 {
                let summary = foreignKeys.newViolations.map { "\($0.table) → \($0.parent): \($0.count)" }
                    .joined(separator: ", ")
                let counted = foreignKeys.comparedByCount.isEmpty ? ""
                    : "; compared by count for " + foreignKeys.comparedByCount.map { "\($0.table) (\($0.reason))" }
                        .joined(separator: ", ")
                throw StewardError(
                    .checkFailed,
                    "the migrations would add \(foreignKeys.newViolationCount) foreign key violation"
                        + "\(foreignKeys.newViolationCount == 1 ? "" : "s") (\(summary)\(counted)); rolled back, nothing changed")
            }
            try quickCheck(connection)

            if cancellation.isCancelled {
                throw StewardError.interrupted(by: cancellation, "; nothing changed")
            }
            do {
                try connection.execute(sql: "COMMIT")
            } catch let error as SQLiteError {
                throw explain(error, waitingForLock: true)
            }
            let ledger = source.ledger.map {
                MigrateReport.Ledger(table: $0.table, existed: ledgerExisted, rowsBefore: rowsBefore,
                                     recorded: backfilled.count + applied.count, backfilled: backfilled)
            }
            if plan.rule == .appliedCount {
                notes.append("user_version counts applied migrations (\(recordedVersion)): the versions do not all fit user_version, so \(source.ledger?.table ?? "the ledger") says which are applied")
            }
            return report(source: source, mode: mode, created: created, from: current, to: recordedVersion,
                          applied: applied, pending: [], ledger: ledger, fts: fts, foreignKeys: foreignKeys,
                          notes: notes, stopwatch: stopwatch)
        } catch {
            connection.rollbackIfNeeded()
            if let error = error as? SQLiteError { throw explain(error, waitingForLock: false) }
            throw error
        }
    }

    /// Rebuilds and checks every FTS5 table created or redefined by the run, and every
    /// table named by a directive in an applied migration.
    ///
    /// A table that a migration rebuilt itself is not rebuilt again (it is still checked:
    /// a rebuild followed by a redefinition shows up there as a mismatch).
    private func rebuildFTS(
        on connection: Connection, before: [String: FTS5Table], applied: [MigrationScript],
        rebuiltByMigrations: Set<String>
    ) throws -> [MigrateReport.FTSRebuild] {
        let after = try sqlite { try Self.fts5Tables(on: connection) }
        // Dropped and created again with the same declaration: the schema text is
        // unchanged but the new index is empty.
        let recreated = applied.reduce(into: Set<String>()) { $0.formUnion($1.createdVirtualTables) }
        var reasons: [(key: String, reason: String)] = []
        for (key, table) in after.sorted(by: { $0.key < $1.key }) {
            if let old = before[key] {
                if old.sql != table.sql || recreated.contains(key) { reasons.append((key, "redefined")) }
            } else {
                reasons.append((key, "created"))
            }
        }
        for script in applied {
            for directive in script.directives {
                let key = directive.table.lowercased()
                guard after[key] != nil else {
                    throw StewardError(
                        .badInput,
                        "\(script.migration.fileName):\(directive.line): rebuild-fts names '\(directive.table)', which is not an FTS5 table")
                }
                if !reasons.contains(where: { $0.key == key }) { reasons.append((key, "directive")) }
            }
        }

        var results: [MigrateReport.FTSRebuild] = []
        for (key, reason) in reasons {
            guard let table = after[key] else { continue }
            let name = Connection.quote(identifier: table.definition.name)
            progress(.rebuildingFTS(table: table.definition.name))
            currentWork.set(("rebuilding", table.definition.name))
            defer { currentWork.set(nil) }

            let rebuildWatch = Stopwatch()
            let canRebuild = table.definition.contentMode != .contentless
            let rebuiltBy: String
            if !canRebuild {
                rebuiltBy = "none"
            } else if rebuiltByMigrations.contains(key) && reason != "directive" {
                rebuiltBy = "migration"
            } else {
                rebuiltBy = "steward"
                try ftsStatement("INSERT INTO \(name)(\(name)) VALUES ('rebuild')", table: table.definition.name)
            }
            let rebuildSeconds = rebuildWatch.roundedSeconds
            currentWork.set(("checking", table.definition.name))
            let checkWatch = Stopwatch()
            // Rank 1 compares the index with the content table (SQLite 3.40); it fails
            // with SQLITE_CORRUPT_VTAB on drift.
            let rank = table.definition.contentMode == .external ? ", 1" : ""
            let rankColumn = table.definition.contentMode == .external ? ", rank" : ""
            do {
                try connection.execute(sql: "INSERT INTO \(name)(\(name)\(rankColumn)) VALUES ('integrity-check'\(rank))")
            } catch let error as SQLiteError where error.isCorrupt {
                throw StewardError(
                    .checkFailed,
                    "the FTS5 index of \(table.definition.name) does not match its content after the rebuild (\(error.message)); rolled back")
            } catch let error as SQLiteError {
                throw explain(error, waitingForLock: false, context: "checking \(table.definition.name)")
            }
            let checkSeconds = checkWatch.roundedSeconds
            progress(.rebuiltFTS(table: table.definition.name, rebuiltBy: rebuiltBy, seconds: rebuildSeconds,
                                 checkSeconds: checkSeconds))
            results.append(.init(table: table.definition.name, reason: reason, rebuilt: canRebuild,
                                 rebuiltBy: rebuiltBy, rebuildSeconds: rebuildSeconds, checked: true,
                                 checkSeconds: checkSeconds))
        }
        return results

        func ftsStatement(_ sql: String, table: String) throws {
            do {
                try connection.execute(sql: sql)
            } catch let error as SQLiteError {
                throw explain(error, waitingForLock: false, context: "rebuilding \(table)")
            }
        }
    }

    // MARK: - Handlers

    /// The FTS table being rebuilt, for the progress handler's live indicator.
    private let currentWork = SharedName()

    private func installHandlers(on connection: Connection) {
        let cancellation = self.cancellation
        let timeout = options.timeout
        // Each wait for a lock gets the whole timeout; a cancelled run stops waiting.
        let waitStart = SharedDate()
        connection.setBusyHandler { count in
            if count == 0 { waitStart.set(Date()) }
            if cancellation.isCancelled { return false }
            guard Date().timeIntervalSince(waitStart.get()) < timeout else { return false }
            usleep(useconds_t(min(50_000, 2_000 * (count + 1))))
            return true
        }
        let progress = self.progress
        let currentWork = self.currentWork
        let started = SharedDate()
        var lastTick = Date()
        connection.setProgressHandler(instructions: 10_000) {
            if cancellation.isCancelled { return false }
            if let (phase, table) = currentWork.get() {
                let now = Date()
                if currentWork.isNew { started.set(now); currentWork.isNew = false }
                if now.timeIntervalSince(lastTick) >= 0.2 {
                    lastTick = now
                    progress(.working(phase: phase, table: table, seconds: now.timeIntervalSince(started.get())))
                }
            }
            return true
        }
    }

    // MARK: - Helpers

    func openExisting(readOnly: Bool) throws -> Connection {
        let path = options.databasePath
        guard FileProbe.exists(path) else {
            throw StewardError(.notFound, "\(path): no such database (use --create to make a new one)")
        }
        // Existence, type and permissions; the header is read only when opening read-only,
        // to choose how. A read-write open leaves the header to SQLite, which reads it under
        // its locks: a plain read could catch another migrator's first commit half written.
        let probe = try FileProbe(path: path)
        // A zero-byte file is almost always a wrong path; only --create takes it as a new
        // database. A -wal beside it with content would hold a database after all.
        let walSize = (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? 0
        if probe.size == 0, walSize == 0, readOnly || !options.create {
            throw StewardError(
                .badInput,
                "\(path) is an empty file (0 bytes), not a database; use --create to make it a new database")
        }
        do {
            if readOnly {
                var header: DatabaseHeader?
                if probe.size > 0 {
                    do {
                        header = try DatabaseHeader(bytes: probe.headerBytes)
                    } catch let problem as DatabaseHeader.Problem {
                        throw StewardError(.badInput, "not a SQLite database: \(path) (\(problem))")
                    }
                }
                return try withExtensions(FileProbe.openReadOnly(path: path, header: header, busyTimeout: options.timeout))
            }
            let connection = try withExtensions(Connection(path: path, mode: [.readWrite]))
            // Until the run installs its own busy handler, wait like it would.
            connection.setBusyTimeout(milliseconds: Int32(min(options.timeout * 1000, Double(Int32.max))))
            _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
            if connection.isReadOnly {
                throw StewardError(.cannotCreate, "cannot write to \(path): the file or its directory is read-only")
            }
            return connection
        } catch let error as SQLiteError {
            if error.isBusy { throw explain(error, waitingForLock: true) }
            throw readFailure(error)
        }
    }

    /// Creates the database file exclusively, so that a run knows whether the file is its
    /// own; when another process created it first, opens that one like any existing file.
    private func createOrOpen() throws -> (Connection, Bool) {
        let path = options.databasePath
        guard options.create else {
            throw StewardError(.notFound, "\(path): no such database (use --create to make a new one)")
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
            let connection = try withExtensions(Connection(path: path, mode: [.readWrite]))
            connection.setBusyTimeout(milliseconds: Int32(min(options.timeout * 1000, Double(Int32.max))))
            return (connection, true)
        } catch let error as SQLiteError {
            removeIfStillEmpty()
            throw StewardError(.cannotCreate, "cannot create \(path): \(error.message)")
        }
    }

    /// `connection` with `--load-extension`'s extensions loaded.
    func withExtensions(_ connection: Connection) throws -> Connection {
        for path in options.extensions {
            do {
                try connection.loadExtension(path: path)
            } catch let error as SQLiteError {
                throw StewardError(.badInput, "cannot load the SQLite extension \(path): \(error.message)")
            }
        }
        return connection
    }

    func sqlite<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw explain(error, waitingForLock: false)
        }
    }

    private func explain(_ error: SQLiteError, waitingForLock: Bool, context: String? = nil) -> StewardError {
        let prefix = context.map { "\($0): " } ?? ""
        if error.isInterrupt || cancellation.isCancelled {
            return StewardError.interrupted(by: cancellation, "; nothing changed")
        }
        if error.isOutOfMemory {
            return StewardError(.inputOutput, "\(prefix)out of memory while migrating \(options.databasePath); nothing changed")
        }
        if error.isBusy {
            return StewardError.gaveUp(on: options.databasePath, after: options.timeout, error.message, prefix: prefix)
        }
        if error.code == .readOnly {
            return StewardError(.cannotCreate, "\(prefix)cannot write to \(options.databasePath): \(error.message)")
        }
        if error.isInputOutput {
            return StewardError(.inputOutput, "\(prefix)\(options.databasePath): \(error.message)")
        }
        // Whatever is running here reads rows: only a constraint's message, which names
        // the constraint, is shown (no row data in any message).
        return StewardError(.badInput, "\(prefix)\(options.databasePath): \(error.safeDescription)")
    }

    private func report(
        source: Source, mode: String, created: Bool, from: Int32, to: Int32,
        applied: [MigrateReport.AppliedMigration], pending: [DialectMigration], ledger: MigrateReport.Ledger?,
        fts: [MigrateReport.FTSRebuild], foreignKeys: MigrateReport.ForeignKeys?, notes: [String], stopwatch: Stopwatch
    ) -> MigrateReport {
        MigrateReport(
            stewardVersion: StewardVersion.current, sqliteVersion: SQLiteLibrary.version,
            database: options.databasePath, migrations: source.set.directory, mode: mode, created: created,
            dialect: source.set.dialect.rawValue, dialectReason: source.detection.reason,
            userVersionRule: LedgerPlan.rule(for: source.set.migrations).rawValue, ledger: ledger,
            fromVersion: from, toVersion: to, newestVersion: source.newestUserVersion, applied: applied,
            pending: pending.map { .init(version: $0.version.integer, versionText: $0.ledgerVersion, file: $0.fileName) },
            ignoredFiles: source.set.ignoredFiles, ftsRebuilt: fts, foreignKeys: foreignKeys, notes: notes,
            totalSeconds: stopwatch.roundedSeconds)
    }

    struct FTS5Table {
        let definition: FTS5Definition
        let sql: String
    }

    /// FTS5 tables of `main`, by lower-cased name.
    static func fts5Tables(on connection: Connection) throws -> [String: FTS5Table] {
        var result: [String: FTS5Table] = [:]
        // LIKE is case-insensitive for ASCII: a cheap filter before the declaration is read.
        try connection.forEachRow(sql: "SELECT name, sql FROM main.sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'") { row in
            let name = row.text(at: 0) ?? ""
            let sql = row.text(at: 1) ?? ""
            if let definition = FTS5Definition(name: name, sql: sql) {
                result[name.lowercased()] = FTS5Table(definition: definition, sql: sql)
            }
        }
        return result
    }
}

/// The work under way (phase and table), shared between the run and SQLite's
/// progress callback, which runs on the same thread.
final class SharedName: @unchecked Sendable {
    private var value: (String, String)?
    var isNew = false
    func set(_ work: (String, String)?) { value = work; isNew = work != nil }
    func get() -> (String, String)? { value }
}

final class SharedDate: @unchecked Sendable {
    private var value = Date()
    func set(_ date: Date) { value = date }
    func get() -> Date { value }
}

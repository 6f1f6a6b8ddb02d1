import Foundation
import SQLiteKit
import Synchronization
import StewardBase

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
                                 placeholders: FlywayPlaceholders(options.placeholders)).withoutDeclaration
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

import Foundation
import Synchronization

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

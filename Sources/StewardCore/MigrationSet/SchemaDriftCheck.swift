import Foundation
import SQLiteKit
import Synchronization
import StewardBase

/// Drift: a client's schema against the schema its applied migrations produce. What is
/// applied is what migrate reads (the runner's ledger, else `user_version`), in every
/// layout; the expected schema is those migrations, exactly, applied to an empty in-memory
/// database (schema statements run, row statements only prepared, as migrate's own check of
/// the set), built once per distinct applied set and shared by every job of the run. The
/// comparison is `SchemaFingerprint`, the one `--baseline` uses.
public final class SchemaDriftCheck: Sendable {
    /// What the check found for one database; in the migrate report as `schema`.
    public struct Comparison: Codable, Sendable, Equatable {
        public let status: Status
        /// The database's `user_version`.
        public let version: Int32
        /// The newest applied migration's version as its runner writes it; nil when none is
        /// applied or the check did not get that far.
        public let newestApplied: String?
        public let differences: [String]
        /// Why the check was skipped.
        public let reason: String?

        /// What the check found.
        public enum Status: String, Codable, Sendable {
            /// The schema is what the applied migrations make.
            case match
            /// It differs (migrated anyway with `--allow-drift`; `differences` says how).
            case drift
            /// The check could not compare (`reason` says why).
            case skipped
        }

        static func skipped(_ version: Int32, _ reason: String) -> Comparison {
            Comparison(status: .skipped, version: version, newestApplied: nil, differences: [], reason: reason)
        }

        /// The version the expected schema was built to, as the set's runner writes it; 0
        /// when nothing is applied (not `user_version`, which may be a mirror out of line).
        public var builtTo: String { newestApplied ?? "0" }
    }

    private let extensions: [String]
    /// Held while an applied set is built, so that each is built once.
    private let built = Mutex<[String: Result<SchemaFingerprint, StewardError>]>([:])
    private let buildCount = Atomic<Int>(0)

    /// How many applied sets this check built itself (for tests): none when the run's
    /// build of the set had them.
    var setBuilds: Int { buildCount.load(ordering: .relaxed) }

    /// - Parameter extensions: SQLite extensions the set's schema needs (`--load-extension`).
    public init(extensions: [String] = []) {
        self.extensions = extensions
    }

    /// Compares the database open on `connection` (at `userVersion`) with what `applied`,
    /// the migrations of `set` it has applied, produce.
    /// `built`, the run's build of the set, gives the expected schema when `applied` are
    /// its first migrations; otherwise they are built here (once per distinct set).
    func compare(
        on connection: Connection, set: DialectSet, applied: [DialectMigration], userVersion: Int32,
        built: SetBuild? = nil, cancellation: Cancellation
    ) -> Comparison {
        // Steward's own layout counts by user_version alone: a version that no file has
        // says the database was not made by this set as it is now.
        if set.dialect == .steward, userVersion > 0, !set.migrations.contains(where: { $0.version.integer == Int64(userVersion) }) {
            return .skipped(userVersion, "no migration of the set has version \(userVersion)")
        }
        let newest = applied.last?.ledgerVersion
        let expected: SchemaFingerprint
        if let schema = built?.schema(after: applied) {
            expected = schema
        } else if let built, built.fails(building: applied), let failure = built.failure {
            return .skipped(userVersion, Self.cannotBuild(failure.message))
        } else {
            switch self.expected(set: set, applied: applied, cancellation: cancellation) {
            case .success(let fingerprint): expected = fingerprint
            case .failure(let error): return .skipped(userVersion, error.message)
            }
        }
        do {
            let differences = try SchemaFingerprint(reading: connection).differences(from: expected)
            return Comparison(status: differences.isEmpty ? .match : .drift, version: userVersion, newestApplied: newest,
                              differences: differences, reason: nil)
        } catch let error as SQLiteError {
            return .skipped(userVersion, "cannot read the schema: \(error.messageAndCode)")
        } catch {
            return .skipped(userVersion, "cannot read the schema: \(SQLiteMessage.text(of: error))")
        }
    }

    /// For `verify`: what the database open on `connection` has applied of `set`, read as
    /// migrate reads it, then compared. Skipped with the reason when the ledger, the files
    /// and `user_version` disagree (the `ledger` check says how).
    public func compare(on connection: Connection, set: DialectSet, cancellation: Cancellation) -> Comparison {
        let userVersion = (try? connection.userVersion()) ?? 0
        do {
            var reading: LedgerReading?
            if let ledger = Ledgers.ledger(for: set.dialect), try ledger.exists(on: connection) {
                reading = try ledger.read(on: connection, migrations: set.migrations)
            }
            let plan = try LedgerPlan(set: set, reading: reading, userVersion: userVersion, options: .init())
            return compare(on: connection, set: set, applied: plan.applied, userVersion: userVersion, cancellation: cancellation)
        } catch let error as StewardError {
            return .skipped(userVersion, "what is applied cannot be read: \(error.message)")
        } catch let error as SQLiteError {
            return .skipped(userVersion, "what is applied cannot be read: \(error.messageAndCode)")
        } catch {
            return .skipped(userVersion, "what is applied cannot be read: \(SQLiteMessage.text(of: error))")
        }
    }

    private func expected(
        set: DialectSet, applied: [DialectMigration], cancellation: Cancellation
    ) -> Result<SchemaFingerprint, StewardError> {
        let key = ([set.dialect.rawValue] + applied.map(\.fileName)).joined(separator: "\u{0}")
        return built.withLock { built in
            if let known = built[key] { return known }
            let result: Result<SchemaFingerprint, StewardError>
            do {
                result = .success(try build(applied, cancellation: cancellation))
            } catch let error as StewardError {
                if error.kind == .interrupted { return .failure(error) }
                // Not the set's fault: said as it is ("cannot load the SQLite extension …").
                if error.isExtensionLoading { return .failure(error) }
                result = .failure(StewardError(.badInput, Self.cannotBuild(error.message)))
            } catch let error as SQLiteError {
                result = .failure(StewardError(.badInput, Self.cannotBuild(error.messageAndCode)))
            } catch {
                result = .failure(StewardError(.badInput, Self.cannotBuild(SQLiteMessage.text(of: error))))
            }
            built[key] = result
            return result
        }
    }

    private static func cannotBuild(_ reason: String) -> String {
        "the set cannot be built from an empty database: \(reason)"
    }

    private func build(_ migrations: [DialectMigration], cancellation: Cancellation) throws -> SchemaFingerprint {
        buildCount.add(1, ordering: .relaxed)
        let scratch = try Connection.inMemory()
        for path in extensions {
            do {
                try scratch.loadExtension(path: path)
            } catch let error as SQLiteError {
                throw StewardError.cannotLoadExtension(path, error)
            }
        }
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        for migration in migrations {
            try MigrationScript(migration).apply(on: scratch, cancellation: cancellation, schemaOnly: true)
        }
        return try SchemaFingerprint(reading: scratch)
    }
}

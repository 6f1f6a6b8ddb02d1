import Foundation
import SQLiteKit
import Synchronization

/// Drift: a client's schema against the schema the migration set produces at the client's
/// version. The expected schema of each version is built once, on an empty in-memory
/// database (schema statements run, row statements only prepared, as migrate's own check
/// of the set), and shared by every job of the run.
public final class SchemaDriftCheck: Sendable {
    /// What the check found for one database; in the migrate report as `schema`.
    public struct Comparison: Codable, Sendable, Equatable {
        /// `match`, `drift` (migrated anyway with `--allow-drift`) or `skipped`.
        public let status: String
        public let version: Int32
        public let differences: [String]
        /// Why the check was skipped.
        public let reason: String?
    }

    private let set: MigrationSet
    /// Held while a version is built, so that each is built once.
    private let built = Mutex<[Int32: Result<SchemaShape, StewardError>]>([:])

    public init(migrationsDirectory: String) throws {
        set = try MigrationSet(directory: migrationsDirectory)
    }

    /// Compares the database at `path`, which is at `version`.
    public func compare(databaseAt path: String, version: Int32, cancellation: Cancellation) -> Comparison {
        do {
            return compare(on: try Connection(path: path, mode: .readOnly), version: version, cancellation: cancellation)
        } catch let error as SQLiteError {
            // The migration's own open reports what is wrong with the file.
            return Comparison(status: "skipped", version: version, differences: [],
                              reason: "cannot read the schema: SQLite error \(error.code)")
        } catch {
            return Comparison(status: "skipped", version: version, differences: [], reason: "cannot read the schema: \(error)")
        }
    }

    /// Compares the database open on `connection`, which is at `version`.
    public func compare(on connection: Connection, version: Int32, cancellation: Cancellation) -> Comparison {
        let expected: SchemaShape
        switch self.expected(at: version, cancellation: cancellation) {
        case .success(let shape): expected = shape
        case .failure(let error):
            return Comparison(status: "skipped", version: version, differences: [], reason: error.message)
        }
        do {
            let differences = try SchemaShape(reading: connection).differences(from: expected)
            return Comparison(status: differences.isEmpty ? "match" : "drift", version: version, differences: differences, reason: nil)
        } catch let error as SQLiteError {
            return Comparison(status: "skipped", version: version, differences: [],
                              reason: "cannot read the schema: SQLite error \(error.code)")
        } catch {
            return Comparison(status: "skipped", version: version, differences: [], reason: "cannot read the schema: \(error)")
        }
    }

    private func expected(at version: Int32, cancellation: Cancellation) -> Result<SchemaShape, StewardError> {
        built.withLock { built in
            if let known = built[version] { return known }
            let result = build(at: version, cancellation: cancellation)
            built[version] = result
            return result
        }
    }

    private func build(at version: Int32, cancellation: Cancellation) -> Result<SchemaShape, StewardError> {
        let result: Result<SchemaShape, StewardError>
        if version > set.newestVersion {
            result = .failure(StewardError(.badInput, "version \(version) is newer than the set's newest, \(set.newestVersion)"))
        } else if version > 0, !set.migrations.contains(where: { $0.version == version }) {
            result = .failure(StewardError(.badInput, "no migration of the set has version \(version)"))
        } else {
            do {
                let scratch = try Connection.inMemory()
                for migration in set.migrations where migration.version <= version {
                    try MigrationScript(migration).apply(on: scratch, cancellation: cancellation, schemaOnly: true)
                }
                result = .success(try SchemaShape(reading: scratch))
            } catch let error as StewardError {
                result = .failure(StewardError(.badInput, "the set cannot be built from an empty database: \(error.message)"))
            } catch {
                result = .failure(StewardError(.badInput, "the set cannot be built from an empty database: \(error)"))
            }
        }
        return result
    }
}

import Foundation
import SQLiteKit

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
}

import SQLiteKit

extension Migrator {
    /// The schema the set builds up to and including `version`, on a private empty database.
    func expectedSchema(of source: Source, through version: VersionKey?) throws -> [(DialectMigration, SchemaFingerprint)] {
        let scratch = try withExtensions(Connection.inMemory())
        let cancellation = self.cancellation
        scratch.setProgressHandler(instructions: 10_000) { !cancellation.isCancelled }
        var result: [(DialectMigration, SchemaFingerprint)] = []
        for migration in source.set.migrations {
            if let version, migration.version > version { break }
            guard let script = source.script(for: migration) else { continue }
            try script.apply(on: scratch, cancellation: cancellation, schemaOnly: true)
            result.append((migration, try sqlite { try SchemaFingerprint(reading: scratch) }))
        }
        return result
    }

    /// `--baseline VERSION`: the database must hold exactly the schema the set builds up to
    /// VERSION; otherwise the run is refused naming each difference (objects, never rows).
    func checkBaseline(_ version: VersionKey, source: Source, build: SetBuild, on connection: Connection) throws {
        let shown = source.shown(version)
        guard source.set.migrations.contains(where: { $0.version == version }) else {
            throw StewardError(.badInput, "baseline version \(shown): no migration in \(source.set.directory) has that version")
        }
        let expected: SchemaFingerprint
        let through = source.set.migrations.filter { $0.version <= version }
        if let built = build.schema(after: through) {
            expected = built
        } else if build.fails(building: through), let failure = build.failure {
            throw StewardError(
                .badInput, "baseline version \(shown): the set does not build from an empty database up to that version (\(failure.message))")
        } else {
            do {
                guard let last = try expectedSchema(of: source, through: version).last else {
                    throw StewardError(.badInput, "baseline version \(shown): the set builds nothing up to that version")
                }
                expected = last.1
            } catch let error as StewardError where error.kind == .badInput {
                throw StewardError(
                    .badInput, "baseline version \(shown): the set does not build from an empty database up to that version (\(error.message))")
            }
        }
        let actual = try sqlite { try SchemaFingerprint(reading: connection) }
        let differences = actual.differences(from: expected)
        guard differences.isEmpty else {
            let listed = differences.prefix(8).joined(separator: "; ") + (differences.count > 8 ? "; and \(differences.count - 8) more" : "")
            throw StewardError(
                .badInput,
                "the schema of \(options.databasePath) does not match version \(shown) of the set (\(listed)); nothing was recorded")
        }
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

import SQLiteKit

/// The set built once on an empty in-memory database (schema statements run, row
/// statements only prepared): the set's check before a run writes (`failure`), and the
/// schema after each migration, which the drift check and `--baseline` compare with. One
/// build serves all three (they were three builds of the same files).
struct SetBuild: Sendable {
    struct Step: Sendable {
        let migration: DialectMigration
        let schema: SchemaFingerprint
    }

    /// The schema of the empty database.
    let empty: SchemaFingerprint
    /// After each migration, in the set's order, as far as the set built (and its schema
    /// could be read).
    let steps: [Step]
    /// Why the set does not build from an empty database; nil when it does.
    let failure: StewardError?
    /// The index in the set of the migration that failed (with `failure`); the steps can
    /// stop earlier, where a schema could not be read.
    var failedAt: (index: Int, fileName: String)? = nil

    /// The schema that exactly `applied` make, when they are the set's first migrations and
    /// the build got that far; nil otherwise (the caller builds them itself).
    func schema(after applied: [DialectMigration]) -> SchemaFingerprint? {
        guard !applied.isEmpty else { return empty }
        guard applied.count <= steps.count,
              zip(applied, steps).allSatisfy({ $0.fileName == $1.migration.fileName })
        else { return nil }
        return steps[applied.count - 1].schema
    }

    /// Whether `applied`, the set's first migrations, cannot be built: the set failed at
    /// one of them.
    func fails(building applied: [DialectMigration]) -> Bool {
        guard failure != nil, let failedAt, applied.count > failedAt.index,
              applied[failedAt.index].fileName == failedAt.fileName
        else { return false }
        return zip(applied, steps).allSatisfy { $0.fileName == $1.migration.fileName }
    }
}

extension Migrator {
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

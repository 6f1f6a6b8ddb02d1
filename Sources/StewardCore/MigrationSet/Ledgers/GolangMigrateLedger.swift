import SQLiteKit
import StewardBase

/// golang-migrate's `schema_migrations(version, dirty)`: one row, the newest applied version.
/// Table, index and rows as golang-migrate/migrate database/sqlite3/sqlite3.go writes them
/// (`ensureVersionTable`, `SetVersion`: delete every row, insert the version with dirty
/// false once the migration succeeded).
struct GolangMigrateLedger: MigrationLedger {
    var dialect: Dialect { .golangMigrate }

    func create(on connection: Connection) throws {
        try connection.execute(sql: """
            CREATE TABLE IF NOT EXISTS schema_migrations (version uint64,dirty bool);
            CREATE UNIQUE INDEX IF NOT EXISTS version_unique ON schema_migrations (version);
            """)
    }

    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        var reading = LedgerReading()
        let rows = try connection.rows(sql: "SELECT version, dirty FROM schema_migrations")
        guard let row = rows.first, let version = row[0].integerValue else { return reading }
        if rows.count > 1 {
            reading.dirty = "schema_migrations holds \(rows.count) rows; golang-migrate keeps exactly one (the newest applied version)"
            return reading
        }
        if row[1].integerValue ?? 0 != 0 {
            reading.dirty = """
                golang-migrate marks version \(version) dirty: a run failed part way through that \
                migration, so the schema may hold some of it and not the rest. Check the schema by hand, \
                finish or undo that migration, then record the version that is really there with \
                'migrate force VERSION'
                """
            return reading
        }
        reading.rows = 1
        let key = VersionKey(version)
        if !migrations.contains(where: { $0.version == key }), version != 0 {
            reading.unknown.append(String(version))
        }
        for migration in migrations where migration.version <= key {
            reading.applied.insert(migration.version)
        }
        return reading
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {}

    /// golang-migrate's down step (migrate.go `runMigrations`, then database/sqlite3's
    /// `SetVersion`): every row deleted, then the version below written with dirty false;
    /// below the first migration (`NilVersion`, -1) nothing is written, and the table stays
    /// empty.
    func unrecord(_ migration: DialectMigration, newest: DialectMigration?, on connection: Connection) throws {
        try connection.execute(sql: "DELETE FROM schema_migrations")
        guard let newest else { return }
        let version = try integerVersion(of: newest, runner: "golang-migrate's versions")
        try connection.execute(
            sql: "INSERT INTO schema_migrations (version, dirty) VALUES (?, ?)", bindings: [.integer(version), .integer(0)])
    }

    func finish(newest: DialectMigration?, on connection: Connection) throws {
        guard let newest else { return }
        let version = try integerVersion(of: newest, runner: "golang-migrate's versions")
        // A row that already says so is left alone: a run with nothing to apply writes
        // nothing (and is answered as current, `Migrator.reportIfCurrent`).
        let rows = try connection.rows(sql: "SELECT version, dirty FROM schema_migrations")
        if rows.count == 1, rows[0].first?.integerValue == version, rows[0].last?.integerValue == 0 { return }
        try connection.execute(sql: "DELETE FROM schema_migrations")
        try connection.execute(
            sql: "INSERT INTO schema_migrations (version, dirty) VALUES (?, ?)", bindings: [.integer(version), .integer(0)])
    }
}

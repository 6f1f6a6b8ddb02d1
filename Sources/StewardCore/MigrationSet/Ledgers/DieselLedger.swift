import SQLiteKit

/// diesel's `__diesel_schema_migrations`: one row per applied migration, the version as text
/// (the folder name up to its first `_`, dashes removed). Table as diesel-rs/diesel
/// diesel/src/migration/setup_migration_table.sql creates it; the insert of
/// diesel_migrations/src/migration_harness.rs (`run_migration`) writes only the version.
/// A down run deletes the version's row after its down part ran (v2.3.12,
/// `revert_migration`): the ledgers' own `unrecord`.
struct DieselLedger: MigrationLedger {
    var dialect: Dialect { .diesel }

    func create(on connection: Connection) throws {
        try connection.execute(sql: """
            CREATE TABLE IF NOT EXISTS __diesel_schema_migrations (
                   version VARCHAR(50) PRIMARY KEY NOT NULL,
                   run_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
            );
            """)
    }

    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        try Ledgers.readTextVersions(sql: "SELECT version FROM __diesel_schema_migrations ORDER BY version", on: connection, migrations: migrations)
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        try write("INSERT INTO `__diesel_schema_migrations` (`version`) VALUES (?)", migration, on: connection)
    }
}

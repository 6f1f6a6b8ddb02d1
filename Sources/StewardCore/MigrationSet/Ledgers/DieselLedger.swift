import SQLiteKit

/// diesel's `__diesel_schema_migrations`: one row per applied migration, the version as text
/// (the folder name up to its first `_`, dashes removed). Table as diesel-rs/diesel
/// diesel/src/migration/setup_migration_table.sql creates it; the insert of
/// diesel_migrations/src/migration_harness.rs (`run_migration`) writes only the version.
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

    /// diesel-rs/diesel v2.3.12 diesel_migrations/src/migration_harness.rs
    /// (`revert_migration`): the down part runs, then the version's row is deleted.
    func unrecord(_ migration: DialectMigration, newest: DialectMigration?, on connection: Connection) throws {
        try connection.execute(
            sql: "DELETE FROM `__diesel_schema_migrations` WHERE `version` = ?", bindings: [.text(migration.ledgerVersion)])
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        try connection.execute(
            sql: "INSERT INTO `__diesel_schema_migrations` (`version`) VALUES (?)", bindings: [.text(migration.ledgerVersion)])
    }
}

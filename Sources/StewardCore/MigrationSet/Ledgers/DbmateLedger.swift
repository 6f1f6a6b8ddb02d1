import SQLiteKit

/// dbmate's `schema_migrations(version)`: one row per applied migration, the version as the
/// text of the file name's digits. Table and insert as amacneil/dbmate
/// pkg/driver/sqlite/sqlite.go writes them (`CreateMigrationsTable`, `InsertMigration`).
struct DbmateLedger: MigrationLedger {
    var dialect: Dialect { .dbmate }

    func create(on connection: Connection) throws {
        try connection.execute(sql: "create table if not exists \"schema_migrations\" (version varchar(128) primary key)")
    }

    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        try Ledgers.readTextVersions(sql: "select version from \"schema_migrations\" order by version", on: connection, migrations: migrations)
    }

    /// amacneil/dbmate v2.35.0 pkg/driver/sqlite/sqlite.go `DeleteMigration`:
    /// `delete from schema_migrations where version = ?`, after the down part ran.
    func unrecord(_ migration: DialectMigration, newest: DialectMigration?, on connection: Connection) throws {
        try connection.execute(
            sql: "delete from \"schema_migrations\" where version = ?", bindings: [.text(migration.ledgerVersion)])
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        try connection.execute(
            sql: "insert into \"schema_migrations\" (version) values (?)", bindings: [.text(migration.ledgerVersion)])
    }
}

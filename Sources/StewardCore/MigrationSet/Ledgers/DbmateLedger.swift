import SQLiteKit

/// dbmate's `schema_migrations(version)`: one row per applied migration, the version as the
/// text of the file name's digits. Table and insert as amacneil/dbmate
/// pkg/driver/sqlite/sqlite.go writes them (`CreateMigrationsTable`, `InsertMigration`).
/// A down run deletes the version's row after its down part ran (`DeleteMigration`,
/// v2.35.0: `delete from schema_migrations where version = ?`): the ledgers' own `unrecord`.
struct DbmateLedger: MigrationLedger {
    var dialect: Dialect { .dbmate }

    func create(on connection: Connection) throws {
        try connection.execute(sql: "create table if not exists \"schema_migrations\" (version varchar(128) primary key)")
    }

    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        try Ledgers.readTextVersions(sql: "select version from \"schema_migrations\" order by version", on: connection, migrations: migrations)
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        try write("insert into \"schema_migrations\" (version) values (?)", migration, on: connection)
    }
}

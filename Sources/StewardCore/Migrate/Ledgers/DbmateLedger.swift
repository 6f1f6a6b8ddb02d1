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
        var reading = LedgerReading()
        let byText = Dictionary(migrations.map { ($0.ledgerVersion, $0) }, uniquingKeysWith: { first, _ in first })
        try connection.forEachRow(sql: "select version from \"schema_migrations\" order by version") { row in
            let version = row.text(at: 0) ?? ""
            reading.rows += 1
            if let migration = byText[version] {
                reading.applied.insert(migration.version)
            } else {
                reading.unknown.append(version)
            }
        }
        return reading
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        try connection.execute(
            sql: "insert into \"schema_migrations\" (version) values (?)", bindings: [.text(migration.ledgerVersion)])
    }
}

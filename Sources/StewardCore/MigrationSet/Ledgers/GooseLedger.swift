import SQLiteKit
import StewardBase

/// goose's `goose_db_version`. Table, insert and listing as pressly/goose
/// internal/dialect/dialectquery/sqlite3.go writes them. goose creates the table with a first
/// row for version 0 (applied); a version counts as applied when its newest row (highest id)
/// says so, as goose's listing reads it.
struct GooseLedger: MigrationLedger {
    var dialect: Dialect { .goose }

    func create(on connection: Connection) throws {
        guard try !exists(on: connection) else { return }
        try connection.execute(sql: """
            CREATE TABLE goose_db_version (
            \t\tid INTEGER PRIMARY KEY AUTOINCREMENT,
            \t\tversion_id INTEGER NOT NULL,
            \t\tis_applied INTEGER NOT NULL,
            \t\ttstamp TIMESTAMP DEFAULT (datetime('now'))
            \t)
            """)
        try connection.execute(
            sql: "INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, ?)", bindings: [.integer(0), .integer(1)])
    }

    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        var reading = LedgerReading()
        let byVersion = Dictionary(migrations.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<Int64>()
        var order: [VersionKey] = []
        try connection.forEachRow(sql: "SELECT version_id, is_applied FROM goose_db_version ORDER BY id DESC") { row in
            let version = row.int64(at: 0)
            guard version != 0, seen.insert(version).inserted, row.int64(at: 1) != 0 else { return }
            reading.rows += 1
            if let migration = byVersion[VersionKey(version)] {
                reading.applied.insert(migration.version)
                order.append(migration.version)
            } else {
                reading.unknown.append(String(version))
            }
        }
        reading.takenBackOrder = order
        return reading
    }

    /// pressly/goose v3.27.3 internal/dialect/dialectquery/sqlite3.go `DeleteVersion`:
    /// `DELETE FROM goose_db_version WHERE version_id=?`, every row of the version (the
    /// version-0 row goose writes with the table stays).
    func unrecord(_ migration: DialectMigration, newest: DialectMigration?, on connection: Connection) throws {
        guard let version = migration.version.integer else { return }
        try connection.execute(sql: "DELETE FROM goose_db_version WHERE version_id=?", bindings: [.integer(version)])
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        let version = try integerVersion(of: migration, runner: "goose's 64-bit versions")
        try connection.execute(
            sql: "INSERT INTO goose_db_version (version_id, is_applied) VALUES (?, ?)",
            bindings: [.integer(version), .integer(1)])
    }
}

import ArchiveKit
import SQLiteKit
import StewardBase

/// sqlx's `_sqlx_migrations`. Table, read and insert as launchbadge/sqlx
/// sqlx-sqlite/src/migrate.rs writes them (`ensure_migrations_table`,
/// `list_applied_migrations`, `dirty_version`, `apply`); the checksum is the SHA-384 of the
/// file's text (sqlx-core/src/migrate/migration.rs, `checksum`). sqlx inserts -1 as the
/// execution time and updates it after its commit; Steward writes the measured nanoseconds
/// in the insert, inside its own transaction. A down run deletes the version's row after
/// its down part ran (v0.8.6 `revert`: `DELETE FROM _sqlx_migrations WHERE version = ?1`):
/// the ledgers' own `unrecord` (the version's text compares as the integer it is, by the
/// column's INTEGER affinity).
struct SqlxLedger: MigrationLedger {
    var dialect: Dialect { .sqlx }

    func create(on connection: Connection) throws {
        try connection.execute(sql: """
            CREATE TABLE IF NOT EXISTS _sqlx_migrations (
                version BIGINT PRIMARY KEY,
                description TEXT NOT NULL,
                installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
                success BOOLEAN NOT NULL,
                checksum BLOB NOT NULL,
                execution_time BIGINT NOT NULL
            );
            """)
    }

    static func checksum(_ bytes: [UInt8]) throws -> [UInt8] {
        try Ledgers.digest("SHA-384") { try SHA384.digest(of: bytes) }
    }

    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        var reading = LedgerReading()
        let byVersion = Dictionary(migrations.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        try connection.forEachRow(sql: "SELECT version, checksum, success FROM _sqlx_migrations ORDER BY version") { row in
            let version = row.int64(at: 0)
            if row.int64(at: 2) == 0 {
                reading.dirty = reading.dirty ?? """
                    _sqlx_migrations records version \(version) with success = false: an earlier run stopped \
                    half way through it, and sqlx itself refuses to continue. Check what of it is in the \
                    schema, finish or undo it by hand, then delete that row
                    """
                return
            }
            reading.rows += 1
            guard let migration = byVersion[VersionKey(version)] else {
                reading.unknown.append(String(version))
                return
            }
            reading.applied.insert(migration.version)
            let recorded = row.blob(at: 1)
            if try Self.checksum(migration.bytes) != recorded {
                let endings = try Self.checksum(LineEndings.unix(migration.bytes)) == recorded
                    || Self.checksum(LineEndings.windows(migration.bytes)) == recorded
                reading.changed.append(.init(file: migration.fileName, lineEndingsOnly: endings))
            }
        }
        return reading
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        let version = try integerVersion(of: migration, runner: "sqlx's 64-bit versions")
        try connection.execute(
            sql: """
                INSERT INTO _sqlx_migrations ( version, description, success, checksum, execution_time )
                VALUES ( ?1, ?2, TRUE, ?3, ?4 )
                """,
            bindings: [.integer(version), .text(migration.description), .blob(try Self.checksum(migration.bytes)),
                       .integer(Int64((executionSeconds * 1e9).rounded()))])
    }
}

import SQLiteKit
import StewardBase

/// Flyway's `flyway_schema_history`. Table and index as flyway-core
/// internal/database/sqlite/SQLiteDatabase.java (`getRawCreateScript`) creates them, the row
/// as internal/database/base/Database.java (`getInsertStatement`) and
/// internal/schemahistory/JdbcTableSchemaHistory.java (`doAddAppliedMigration`) write it:
/// the next rank, the version with `_` read as `.`, the description, type `SQL`, the file
/// name, the CRC32 checksum (`CRC32.flyway`), `installed_by` empty (SQLiteDatabase's
/// current user), the execution time in milliseconds and success 1.
struct FlywayLedger: MigrationLedger {
    var dialect: Dialect { .flyway }

    func create(on connection: Connection) throws {
        guard try !exists(on: connection) else { return }
        try connection.execute(sql: """
            CREATE TABLE "main"."flyway_schema_history" (
                "installed_rank" INT NOT NULL PRIMARY KEY,
                "version" VARCHAR(50),
                "description" VARCHAR(200) NOT NULL,
                "type" VARCHAR(20) NOT NULL,
                "script" VARCHAR(1000) NOT NULL,
                "checksum" INT,
                "installed_by" VARCHAR(100) NOT NULL,
                "installed_on" TEXT NOT NULL DEFAULT (strftime('%Y-%m-%d %H:%M:%f','now')),
                "execution_time" INT NOT NULL,
                "success" BOOLEAN NOT NULL
            );
            CREATE INDEX "main"."flyway_schema_history_s_idx" ON "flyway_schema_history" ("success");
            """)
    }

    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        var reading = LedgerReading()
        let byVersion = Dictionary(migrations.map { ($0.version, $0) }, uniquingKeysWith: { first, _ in first })
        var baseline: VersionKey?
        try connection.forEachRow(sql: """
            SELECT "version", "type", "checksum", "success" FROM "flyway_schema_history" ORDER BY "installed_rank"
            """) { row in
            guard let text = row.text(at: 0), let version = VersionKey(text, dotted: true) else { return }
            let type = row.text(at: 1) ?? ""
            if row.int64(at: 3) == 0 {
                reading.dirty = reading.dirty ?? """
                    flyway_schema_history records version \(text) as failed: an earlier run stopped part way \
                    through it. Check the schema by hand, then run 'flyway repair' to remove the failed entry
                    """
                return
            }
            reading.rows += 1
            if type == "BASELINE" {
                baseline = version
                return
            }
            guard let migration = byVersion[version] else {
                reading.unknown.append(text)
                return
            }
            reading.applied.insert(migration.version)
            if !row.isNull(at: 2), row.int64(at: 2) != Int64(CRC32.flyway(migration.bytes)) {
                reading.changed.append(.init(file: migration.fileName, lineEndingsOnly: false))
            }
        }
        // Flyway ignores the migrations at or below a baseline.
        if let baseline {
            for migration in migrations where migration.version <= baseline {
                reading.applied.insert(migration.version)
            }
        }
        return reading
    }

    /// Never called: a down run of a Flyway set is refused before it starts (Flyway's undo is not part of its free edition).
    func unrecord(_ migration: DialectMigration, newest: DialectMigration?, on connection: Connection) throws {
        throw StewardError(.internal, "Flyway's ledger cannot record a migration taken back")
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        let rank = try connection.integer(sql: "SELECT coalesce(max(\"installed_rank\"), 0) + 1 FROM \"flyway_schema_history\"")
        try connection.execute(
            sql: """
                INSERT INTO "main"."flyway_schema_history" ("installed_rank", "version", "description", "type", \
                "script", "checksum", "installed_by", "execution_time", "success") VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            bindings: [.integer(rank), .text(migration.ledgerVersion), .text(migration.description), .text("SQL"),
                       .text(migration.fileName), .integer(Int64(CRC32.flyway(migration.bytes))), .text(""),
                       .integer(Int64((executionSeconds * 1000).rounded())), .integer(1)])
    }
}

/// CRC-32 (IEEE 802.3, reflected polynomial 0xEDB88320), the checksum of `java.util.zip.CRC32`
/// that Flyway records. A checksum, not a cryptographic primitive: libcrypto has none.
enum CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 {
            value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1
        }
        return value
    }

    static func checksum<S: Sequence>(_ bytes: S) -> UInt32 where S.Element == UInt8 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc = table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8)
        }
        return crc ^ 0xFFFF_FFFF
    }

    /// Flyway's checksum of a migration file, as flyway-core
    /// internal/resolver/ChecksumCalculator.java computes it: the file read line by line
    /// (`BufferedReader.readLine`, which drops `\n`, `\r\n` and `\r`), a byte-order mark
    /// dropped from the first line, each line's UTF-8 bytes fed to CRC32, and the result
    /// cast to a signed 32-bit `int`.
    static func flyway(_ bytes: [UInt8]) -> Int32 {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        return Int32(bitPattern: checksum(body.lazy.filter { $0 != 0x0A && $0 != 0x0D }))
    }
}

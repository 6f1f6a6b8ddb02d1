import ArchiveKit
import SQLiteKit
import StewardBase

/// drizzle's `__drizzle_migrations(id, hash, created_at)`. Table, read and insert as
/// drizzle-team/drizzle-orm drizzle-orm/src/sqlite-core/dialect.ts (`migrate`) writes them:
/// drizzle reads only the newest `created_at` and runs every journal entry whose `when` is
/// later, inserting the file's hash and the entry's `when`. The hash is the SHA-256 (hex) of
/// the file's text exactly as read, CRLF and byte-order mark included: drizzle-orm 0.45.2
/// (the newest release) and v1.0.0-rc.4 drizzle-orm/src/migrator.ts (`readMigrationFiles`)
/// hash `fs.readFileSync(path).toString()` with `crypto.createHash('sha256')`.
struct DrizzleLedger: MigrationLedger {
    var dialect: Dialect { .drizzle }

    func create(on connection: Connection) throws {
        try connection.execute(sql: """
            CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (
            \t\t\t\tid SERIAL PRIMARY KEY,
            \t\t\t\thash text NOT NULL,
            \t\t\t\tcreated_at numeric
            \t\t\t)
            """)
    }

    static func hash(_ bytes: [UInt8]) throws -> String {
        try Ledgers.digest("SHA-256") { try SHA256Hasher.hex(of: bytes) }
    }

    func read(on connection: Connection, migrations: [DialectMigration]) throws -> LedgerReading {
        var reading = LedgerReading()
        var hashes: [Int64: [String]] = [:]
        var newest: Int64?
        try connection.forEachRow(sql: "SELECT hash, created_at FROM \"__drizzle_migrations\"") { row in
            let when = row.int64(at: 1)
            reading.rows += 1
            hashes[when, default: []].append(row.text(at: 0) ?? "")
            newest = max(newest ?? when, when)
        }
        guard let newest else { return reading }
        for migration in migrations {
            guard let when = migration.journalWhen, when <= newest else { continue }
            reading.applied.insert(migration.version)
            guard let recorded = hashes[when] else { continue }
            if !recorded.contains(try Self.hash(migration.bytes)) {
                // A file whose line endings were converted since (git's autocrlf) is named so.
                let endings = try recorded.contains(Self.hash(LineEndings.unix(migration.bytes)))
                    || recorded.contains(Self.hash(LineEndings.windows(migration.bytes)))
                reading.changed.append(.init(file: migration.fileName, lineEndingsOnly: endings))
            }
        }
        let known = Set(migrations.compactMap(\.journalWhen))
        reading.unknown = hashes.keys.filter { !known.contains($0) }.sorted().map { "created_at \($0)" }
        return reading
    }

    /// Never called: a down run of a drizzle set is refused before it starts (drizzle has no down migrations).
    func unrecord(_ migration: DialectMigration, newest: DialectMigration?, on connection: Connection) throws {
        throw StewardError(.internal, "drizzle's ledger cannot record a migration taken back")
    }

    func record(_ migration: DialectMigration, executionSeconds: Double, on connection: Connection) throws {
        guard let when = migration.journalWhen else {
            throw StewardError(.internal, "\(migration.fileName): no journal entry")
        }
        try connection.execute(
            sql: "INSERT INTO \"__drizzle_migrations\" (\"hash\", \"created_at\") VALUES(?, ?)",
            bindings: [.text(try Self.hash(migration.bytes)), .integer(when)])
    }
}

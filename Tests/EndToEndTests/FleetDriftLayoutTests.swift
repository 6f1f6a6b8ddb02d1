import Foundation
import SQLiteKit
import Testing
import TestSupport

private let dbmateAvailable = (try? systemTool(["dbmate", "--version"]).status) == 0

/// Drift in every layout: what a database has applied is what its runner's
/// ledger says, the expected schema is those migrations applied to an empty database, and a
/// database changed by hand is refused (65) with the difference while the others migrate.
@Suite struct FleetDriftLayoutTests {
    let directory: TemporaryDirectory
    var set: String { directory.file("set") }

    init() throws {
        directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: set, withIntermediateDirectories: true)
    }

    func write(_ name: String, _ text: String, into folder: String? = nil) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: ((folder ?? set) as NSString).appendingPathComponent(name)))
    }

    func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

    /// Runs the fleet and returns its NDJSON lines by path.
    func fleet(_ paths: [String], _ extra: [String] = []) throws -> (StewardRun, [String: [String: Any]]) {
        let run = try StewardProcess.run(["migrate", "--migrations", set, "--json", "--jobs", "2"] + extra + paths.flatMap { ["--db", $0] })
        return (run, try run.databaseLines())
    }

    /// The database a line is about: `database.path` (the fleet envelope).
    static func path(of object: [String: Any]) -> String? {
        (object["database"] as? [String: Any])?["path"] as? String
    }

    func message(_ line: [String: Any]?) -> String {
        (line?["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    @Test(.enabled(if: dbmateAvailable, "dbmate is not installed (scripts/install-deps.sh installs it with pip)"))
    func aDbmateFleetBuiltByDbmateRefusesTheHandChangedDatabaseAndMigratesTheOthers() throws {
        let files = [
            ("20240101000001_users.sql", "-- migrate:up\nCREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);\n\n-- migrate:down\nDROP TABLE users;\n"),
            ("20240101000002_email.sql", "-- migrate:up\nALTER TABLE users ADD email TEXT;\n\n-- migrate:down\nALTER TABLE users DROP COLUMN email;\n"),
            ("20240101000003_index.sql", "-- migrate:up\nCREATE INDEX users_email ON users(email);\n\n-- migrate:down\nDROP INDEX users_email;\n"),
        ]
        // dbmate itself builds the databases with the first two migrations.
        let early = directory.file("early")
        try FileManager.default.createDirectory(atPath: early, withIntermediateDirectories: true)
        for (index, (name, text)) in files.enumerated() {
            try write(name, text)
            if index < 2 { try write(name, text, into: early) }
        }
        let paths = ["a.db", "b.db", "changed.db"].map(directory.file)
        for path in paths {
            let up = try systemTool(["dbmate", "--url", "sqlite:\(path)", "--migrations-dir", early, "--no-dump-schema", "up"])
            #expect(up.status == 0, "\(up.output)")
        }
        let changed = paths[2]
        try Connection(path: changed).execute(sql: "ALTER TABLE users ADD COLUMN nickname TEXT")
        let before = bytes(changed)

        let (run, lines) = try fleet(paths)
        #expect(run.status == 65, "\(run.stdout)\(run.stderr)")
        for path in paths.prefix(2) {
            #expect(lines[path]?["outcome"] as? String == "migrated", "\(lines[path] ?? [:])")
            let schema = lines[path]?["schema"] as? [String: Any]
            #expect(schema?["status"] as? String == "match", "\(schema ?? [:])")
            #expect(schema?["newestApplied"] as? String == "20240101000002")
        }
        #expect(lines[changed]?["exitCode"] as? Int == 65)
        #expect(message(lines[changed]).contains("schema drift"), "\(message(lines[changed]))")
        #expect(message(lines[changed]).contains("table users: column nickname extra"), "\(message(lines[changed]))")
        #expect(message(lines[changed]).contains("version 20240101000002"), "\(message(lines[changed]))")
        #expect(bytes(changed) == before)

        // The real dbmate agrees with what Steward did to the others.
        let status = try systemTool(["dbmate", "--url", "sqlite:\(paths[0])", "--migrations-dir", set, "--no-dump-schema", "status", "--exit-code"])
        #expect(status.status == 0, "\(status.output)")

        let allowed = try fleet([changed], ["--allow-drift"])
        #expect(allowed.0.status == 0, "\(allowed.0.stdout)")
        #expect((allowed.1[changed]?["schema"] as? [String: Any])?["differences"] as? [String] == ["table users: column nickname extra"])
    }

    /// sqlx's ledger, filled in the test as sqlx writes it (SHA-384 from Python's hashlib).
    @Test func anSqlxFleetWithPrefilledLedgersRefusesTheHandChangedDatabase() throws {
        try write("20240101120000_create_users.sql", "CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);\n")
        try write("20240102120000_add_email.sql", "ALTER TABLE users ADD email TEXT;\n")
        try write("20240103120000_add_index.sql", "CREATE INDEX users_email ON users(email);\n")
        let applied = ["20240101120000_create_users.sql", "20240102120000_add_email.sql"]
        var checksums: [String: String] = [:]
        for name in applied {
            let result = try systemTool([
                "python3", "-c", "import sys, hashlib; print(hashlib.sha384(open(sys.argv[1], 'rb').read()).hexdigest())",
                (set as NSString).appendingPathComponent(name),
            ])
            checksums[name] = result.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let paths = ["a.db", "b.db", "changed.db"].map(directory.file)
        for path in paths {
            let connection = try Connection(path: path)
            try connection.execute(sql: """
                CREATE TABLE _sqlx_migrations (
                    version BIGINT PRIMARY KEY, description TEXT NOT NULL,
                    installed_on TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP, success BOOLEAN NOT NULL,
                    checksum BLOB NOT NULL, execution_time BIGINT NOT NULL);
                CREATE TABLE users(id INTEGER PRIMARY KEY, name TEXT);
                ALTER TABLE users ADD email TEXT;
                """)
            for name in applied {
                // SQLite 3.40 has no unhex(): the checksum goes in as a blob literal.
                try connection.execute(
                    sql: "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) "
                        + "VALUES (?1, ?2, TRUE, X'\(checksums[name] ?? "")', 1)",
                    bindings: [.integer(Int64(name.prefix(14)) ?? 0), .text(String(name.dropFirst(15).dropLast(4)))])
            }
        }
        let changed = paths[2]
        try Connection(path: changed).execute(sql: "CREATE INDEX by_hand ON users(name)")
        let before = bytes(changed)

        let (run, lines) = try fleet(paths)
        #expect(run.status == 65, "\(run.stdout)\(run.stderr)")
        for path in paths.prefix(2) {
            #expect(lines[path]?["outcome"] as? String == "migrated", "\(lines[path] ?? [:])")
            #expect(lines[path]?["dialect"] as? String == "sqlx")
            #expect((lines[path]?["schema"] as? [String: Any])?["status"] as? String == "match")
        }
        #expect(message(lines[changed]).contains("index by_hand extra"), "\(message(lines[changed]))")
        #expect(bytes(changed) == before)

        // verify's schema check reads the same ledger: the migrated one matches, the changed one fails.
        let verify = try StewardProcess.run(["verify", "--json", "--migrations", set, "--db", paths[0], "--db", changed])
        var checks: [String: [String: Any]] = [:]
        for object in try verify.jsonLines() {
            if let path = Self.path(of: object) {
                checks[path] = (object["checks"] as? [[String: Any]])?.first { $0["name"] as? String == "schema" }
            }
        }
        #expect(checks[paths[0]]?["status"] as? String == "pass", "\(verify.stdout)")
        #expect(checks[changed]?["status"] as? String == "fail", "\(verify.stdout)")
        #expect(checks[changed]?["details"] as? [String] == ["index by_hand extra"])
    }

    /// goose's ledger, filled as goose writes it (a first row for version 0).
    @Test func aGooseFleetComparesWhatItsLedgerSaysIsApplied() throws {
        try write("20240101000001_users.sql", "-- +goose Up\nCREATE TABLE users(id INTEGER PRIMARY KEY);\n-- +goose Down\nDROP TABLE users;\n")
        try write("20240101000002_name.sql", "-- +goose Up\nALTER TABLE users ADD name TEXT;\n-- +goose Down\nALTER TABLE users DROP COLUMN name;\n")
        let paths = ["a.db", "changed.db"].map(directory.file)
        for path in paths {
            try Connection(path: path).execute(sql: """
                CREATE TABLE goose_db_version (id INTEGER PRIMARY KEY AUTOINCREMENT, version_id INTEGER NOT NULL,
                    is_applied INTEGER NOT NULL, tstamp TIMESTAMP DEFAULT (datetime('now')));
                INSERT INTO goose_db_version (version_id, is_applied) VALUES (0, 1), (20240101000001, 1);
                CREATE TABLE users(id INTEGER PRIMARY KEY);
                """)
        }
        try Connection(path: paths[1]).execute(sql: "CREATE TABLE notes(x)")
        let (run, lines) = try fleet(paths)
        #expect(run.status == 65, "\(run.stdout)\(run.stderr)")
        #expect(lines[paths[0]]?["outcome"] as? String == "migrated")
        #expect(message(lines[paths[1]]).contains("table notes extra"), "\(message(lines[paths[1]]))")
    }

    /// A set that starts from a schema made elsewhere cannot be built from an empty
    /// database: the check is skipped and says why, and the migration goes on.
    @Test func aBaselineSetSkipsTheCheckSayingWhy() throws {
        try write("0001_extend.sql", "ALTER TABLE legacy ADD COLUMN extra TEXT;\n")
        try write("0002_index.sql", "CREATE INDEX legacy_extra ON legacy(extra);\n")
        let path = directory.file("legacy.db")
        let connection = try Connection(path: path)
        try connection.execute(sql: "CREATE TABLE legacy(id INTEGER PRIMARY KEY); ALTER TABLE legacy ADD COLUMN extra TEXT;")
        try connection.setUserVersion(1)
        let (run, lines) = try fleet([path])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let schema = try #require(lines[path]?["schema"] as? [String: Any])
        #expect(schema["status"] as? String == "skipped")
        #expect((schema["reason"] as? String)?.contains("cannot be built from an empty database") == true, "\(schema)")
    }
}

import Foundation
import SQLiteKit
import Testing
@testable import StewardCore
import TestSupport

/// Migration sets Steward cannot run faithfully are refused before anything runs,
/// and what a run leaves behind is compared row by row and checked before the commit.
@Suite struct MigrationSafetyTests: MigratorSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(layout: "steward") }

    // MARK: - Versioned files that are not SQL

    @Test func codeMigrationsRefuseTheWholeSetNamingEachFile() throws {
        try write("0215_create_note.sql", "CREATE TABLE note(id INTEGER PRIMARY KEY, body TEXT);\n")
        try write("0216__move_bodies.js", "module.exports = {}\n")
        try write("20240101_x.go", "package migrations\n")
        try write("0217_drop_body.sql", "ALTER TABLE note DROP COLUMN body;\n")
        let error = try failure { $0.create = true }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("0216__move_bodies.js"))
        #expect(error.message.contains("20240101_x.go"))
        #expect(!error.message.contains("0215_create_note.sql"))
        #expect(!FileManager.default.fileExists(atPath: database), "nothing may run, not even --create")
    }

    @Test(arguments: [
        ("0216__x.js", true), ("20240101_x.go", true), ("1-init.ts", true), ("3.rb", true), ("0003_x.sql.bak", true),
        ("V2__add.java", true), ("V1.2__x.py", true), ("U3__undo.sql.txt", true), ("R__views.kt", true), ("V__x", true),
        ("V1_2__x.js", true),
        ("README.md", false), ("schema.go", false), ("V1_x.js", false), ("Vx__y.js", false), ("2021.md", true),
        ("0001_a.down.sql", false), ("0001_a.sql", false), (".0002_hidden.js", false), ("v1__lower.js", false),
    ] as [(String, Bool)])
    func versionedNames(name: String, refused: Bool) throws {
        try write("0001_a.sql", "SELECT 1;\n")
        try write(name)
        if refused {
            let error = try failure { $0.statusOnly = true }
            #expect(error.kind == .badInput && error.message.contains(name), "\(error.message)")
        } else {
            #expect(throws: Never.self) { try DialectSet(directory: migrations, dialect: .steward) }
        }
    }

    @Test func subdirectoriesAreNotFilesOfTheSet() throws {
        try write("0001_a.sql", "SELECT 1;\n")
        // drizzle keeps its journal in meta/; a directory with a versioned name is not a file.
        try write("meta/_journal.json", "{}")
        try write("0002_snapshots/0002.json", "{}")
        let set = try DialectSet(directory: migrations, dialect: .steward)
        #expect(set.migrations.map(\.fileName) == ["0001_a.sql"])
    }

    // MARK: - Goose and dbmate section markers

    @Test(arguments: [
        ("-- +goose Up\nCREATE TABLE t(x);\n\n-- +goose Down\nDROP TABLE t;\n", 1, "goose"),
        ("-- a comment\n--+goose up\nCREATE TABLE t(x);\n", 2, "goose"),
        ("CREATE TABLE t(x);\n  -- +goose StatementBegin\n", 2, "goose"),
        ("-- migrate:up\nCREATE TABLE t(x);\n-- migrate:down\nDROP TABLE t;\n", 1, "dbmate"),
        ("\n\n--   migrate:down\r\nDROP TABLE t;\r\n", 3, "dbmate"),
    ] as [(String, Int, String)])
    func sectionMarkersAreRefusedWithFileAndLine(sql: String, line: Int, runner: String) throws {
        try write("0001_init.sql", sql)
        // Detected, these layouts run as goose or dbmate would (DialectSetTests); in
        // Steward's own layout a marker still refuses the file.
        let error = try failure { $0.create = true; $0.dialect = .steward }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("0001_init.sql:\(line):"), "\(error.message)")
        #expect(error.message.contains(runner))
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func aTimestampVersionedGooseFileIsRefusedForItsMarker() throws {
        try write("20230821024138_init.sql", "-- +goose Up\nCREATE TABLE todo(id INTEGER PRIMARY KEY);\n-- +goose Down\nDROP TABLE todo;\n")
        let error = try failure { $0.create = true; $0.dialect = .steward }
        #expect(error.message.contains("20230821024138_init.sql:1:"), "\(error.message)")
    }

    @Test func markersInsideOtherTextAreNotSectionMarkers() throws {
        try write("0001_init.sql", "CREATE TABLE t(note TEXT DEFAULT 'see -- +goose Up');\n-- goose Up is not a marker\n")
        #expect(try migrate { $0.create = true }.applied.count == 1)
    }

    // MARK: - A set with no migration

    @Test func anEmptyDirectoryIsAnErrorAndCreatesNothing() throws {
        let error = try failure { $0.create = true }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("no migrations found in \(migrations)"))
        #expect(error.message.contains("empty"))
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func theDieselLayoutIsNamed() throws {
        try write("2021-01-01-000000_init/up.sql", "CREATE TABLE posts(id INTEGER PRIMARY KEY);\n")
        try write("2021-01-01-000000_init/down.sql", "DROP TABLE posts;\n")
        try write("2021-02-01-000000_more/up.sql", "CREATE TABLE tags(id INTEGER PRIMARY KEY);\n")
        try write(".keep", "")
        let error = try failure { $0.create = true; $0.dialect = .steward }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("no migrations found"))
        #expect(error.message.contains("2021-01-01-000000_init/up.sql"))
        #expect(error.message.contains("diesel"))
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func onlyDownFilesAndNotesAreNamed() throws {
        try write("1_init.down.sql", "DROP TABLE t;\n")
        try write("README.md", "notes\n")
        let error = try failure { $0.statusOnly = true }
        #expect(error.message.contains("1_init.down.sql") && error.message.contains("README.md"), "\(error.message)")
    }

    // MARK: - Foreign keys compared row by row

    /// The schema through a migration, the rows (orphans among them) behind its back.
    func makeOrphans(_ schema: String, rows: String) throws {
        try write("0001_schema.sql", schema)
        _ = try migrate { $0.create = true }
        try Connection(path: database).execute(sql: rows)
    }

    @Test func swappingOneOrphanForAnotherIsRefused() throws {
        try makeOrphans("""
            CREATE TABLE ticket(id INTEGER PRIMARY KEY);
            CREATE TABLE note(id INTEGER PRIMARY KEY, ticket_id INTEGER REFERENCES ticket(id));
            """, rows: """
            INSERT INTO ticket VALUES (1);
            INSERT INTO note VALUES (1, 1), (2, 99);
            """)
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        // The old orphan goes, a new one comes: the same count per table and parent.
        try write("0002_swap.sql", "DELETE FROM note WHERE id = 2;\nUPDATE note SET ticket_id = 42 WHERE id = 1;\n")
        let error = try failure()
        #expect(error.kind == .checkFailed)
        #expect(error.message.contains("add 1 foreign key violation"), "\(error.message)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    }

    @Test func anOldOrphanLeftAloneIsNotNew() throws {
        try makeOrphans("""
            CREATE TABLE ticket(id INTEGER PRIMARY KEY);
            CREATE TABLE note(id INTEGER PRIMARY KEY, ticket_id INTEGER REFERENCES ticket(id));
            """, rows: """
            INSERT INTO note VALUES (1, 99);
            """)
        try write("0002_more.sql", "INSERT INTO ticket VALUES (5);\nINSERT INTO note VALUES (2, 5);\n")
        let keys = try #require(try migrate().foreignKeys)
        #expect(keys.newViolationCount == 0 && keys.violationsBefore == 1 && keys.violationsAfter == 1)
        #expect(keys.comparedByCount.isEmpty)
    }

    @Test func withoutRowidRowsAreKeyedByTheirPrimaryKey() throws {
        try makeOrphans("""
            CREATE TABLE ticket(code TEXT PRIMARY KEY) WITHOUT ROWID;
            CREATE TABLE note(a TEXT, b INTEGER, ticket_code TEXT REFERENCES ticket(code), PRIMARY KEY (a, b)) WITHOUT ROWID;
            """, rows: """
            INSERT INTO ticket VALUES ('T1');
            INSERT INTO note VALUES ('x', 1, 'T1'), ('x', 2, 'GONE'), ('y', 1, NULL);
            """)
        try write("0002_swap.sql", "DELETE FROM note WHERE b = 2;\nINSERT INTO note VALUES ('z', 9, 'ALSO-GONE');\n")
        let error = try failure()
        #expect(error.kind == .checkFailed && error.message.contains("add 1 foreign key violation"), "\(error.message)")

        try write("0002_swap.sql", "UPDATE note SET ticket_code = 'T1' WHERE a = 'y';\n")
        let keys = try #require(try migrate().foreignKeys)
        #expect(keys.newViolationCount == 0 && keys.violationsAfter == 1 && keys.comparedByCount.isEmpty)
    }

    @Test func aTableRebuiltWithoutIntegerPrimaryKeyFallsBackToCounts() throws {
        try makeOrphans("""
            CREATE TABLE ticket(id INTEGER PRIMARY KEY);
            CREATE TABLE note(body TEXT, ticket_id INTEGER REFERENCES ticket(id));
            """, rows: """
            INSERT INTO ticket VALUES (1);
            INSERT INTO note VALUES ('a', 1), ('b', 1), ('c', 99);
            """)
        // The classic rebuild, in an order that gives the orphan another rowid.
        try write("0002_rebuild.sql", """
            CREATE TABLE note_new(body TEXT NOT NULL, ticket_id INTEGER REFERENCES ticket(id));
            INSERT INTO note_new SELECT body, ticket_id FROM note ORDER BY body DESC;
            DROP TABLE note;
            ALTER TABLE note_new RENAME TO note;
            """)
        let keys = try #require(try migrate().foreignKeys)
        #expect(keys.newViolationCount == 0)
        #expect(keys.comparedByCount.map(\.table) == ["note"])
    }

    // MARK: - Pragmas that bypass checks, and quick_check before the commit

    @Test(arguments: ["PRAGMA ignore_check_constraints = ON", "PRAGMA writable_schema = 1", "PRAGMA query_only = ON",
                      "pragma main.Writable_Schema", "PRAGMA query_only"])
    func checkBypassingPragmasAreRefusedWithFileAndLine(pragma: String) throws {
        try write("0001_a.sql", "CREATE TABLE t(x CHECK (x > 0));\n\n\(pragma);\nINSERT INTO t VALUES (-1);\n")
        let error = try failure { $0.create = true }
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0001_a.sql:3: PRAGMA"), "\(error.message)")
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func rowsThatBreakACheckAsOthersReadItAreRolledBack() throws {
        try write("0001_a.sql", "CREATE TABLE t(code TEXT CHECK (code NOT LIKE 'A%'));\n")
        _ = try migrate { $0.create = true }
        let before = try Data(contentsOf: URL(fileURLWithPath: database))
        // Case-sensitive LIKE lets 'abc' past the CHECK; every other connection reads it
        // case-insensitively, and the sqlite3 CLI's integrity_check reports it.
        try write("0002_b.sql", "PRAGMA case_sensitive_like = ON;\nINSERT INTO t VALUES ('abc');\n")
        let error = try failure()
        #expect(error.kind == .checkFailed)
        #expect(error.message.contains("quick_check") && error.message.contains("CHECK constraint failed"), "\(error.message)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)) == before)
    }

    // MARK: - SQLite's runtime messages can quote rows

    @Test func aRuntimeErrorDoesNotQuoteRowData() throws {
        try write("0001_a.sql", "CREATE TABLE doc(body TEXT, path TEXT, x INTEGER);\n")
        _ = try migrate { $0.create = true }
        let connection = try Connection(path: database)
        try connection.execute(sql: "INSERT INTO doc VALUES ('{\"a\":1}', 'SECRET-7f3a', NULL)")
        try write("0002_b.sql", "-- copy a value out of the document\nUPDATE doc SET x = json_extract(body, path);\n")
        let error = try failure()
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0002_b.sql:2:"), "\(error.message)")
        #expect(!error.message.contains("SECRET"), "\(error.message)")
        #expect(error.message.contains("SQLite error \(ResultCode.error)"))
    }

    @Test func aConstraintMessageIsStillQuoted() throws {
        try write("0001_a.sql", "CREATE TABLE t(x INTEGER NOT NULL);\nINSERT INTO t VALUES (NULL);\n")
        let error = try failure { $0.create = true }
        #expect(error.message.contains("NOT NULL constraint failed: t.x"), "\(error.message)")
    }

    // MARK: - Memory for --dry-run, and a zero-byte file

    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/proc/meminfo"), "MemAvailable comes from /proc/meminfo"))
    func availableMemoryIsReadFromTheKernel() throws {
        let bytes = try #require(AvailableMemory.bytes)
        #expect(bytes > 1_000_000)
    }

    @Test func aZeroByteFileIsNotADatabaseWithoutCreate() throws {
        try write("0001_a.sql", "CREATE TABLE t(x);\n")
        #expect(FileManager.default.createFile(atPath: database, contents: Data()))
        for change: (inout Migrator.Options) -> Void in [{ _ in }, { $0.statusOnly = true }, { $0.dryRun = true }] {
            let error = try failure(change)
            #expect(error.kind == .badInput && error.message.contains("empty file"), "\(error.message)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: database)).isEmpty)
        let report = try migrate { $0.create = true }
        #expect(report.applied.count == 1 && !report.created)
        #expect(try Connection(path: database).userVersion() == 1)
    }
}

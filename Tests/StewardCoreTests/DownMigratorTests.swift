import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// `migrate --down --to V` as a library call (issue 29), in every layout that has down
/// parts: up to N, rows written, down to V; the schema is what the set makes at V, the
/// surviving rows are kept, the ledger holds what the runner's own down command leaves,
/// and up again reaches N with the same schema.
@Suite struct DownMigratorTests: MigratorSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    /// Each layout's three migrations: `ticket`, then `note` (with an index and a foreign key
    /// to ticket), then `tag`; each with its down part.
    enum Layout: String, CaseIterable, CustomTestStringConvertible {
        case steward, golangMigrate, sqlx, goose, dbmate, diesel

        var testDescription: String { rawValue }

        var dialect: Dialect {
            switch self {
            case .steward: .steward
            case .golangMigrate: .golangMigrate
            case .sqlx: .sqlx
            case .goose: .goose
            case .dbmate: .dbmate
            case .diesel: .diesel
            }
        }

        static let ups = [
            "CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL);",
            "CREATE TABLE note(id INTEGER PRIMARY KEY, ticket_id INTEGER REFERENCES ticket(id), body TEXT);\nCREATE INDEX note_ticket ON note(ticket_id);",
            "CREATE TABLE tag(name TEXT PRIMARY KEY) WITHOUT ROWID;",
        ]
        static let downs = ["DROP TABLE ticket;", "DROP INDEX note_ticket;\nDROP TABLE note;", "DROP TABLE tag;"]
        static let names = ["ticket", "note", "tag"]

        /// The files of the set, as the runner lays them out.
        func files() -> [(String, String)] {
            var files: [(String, String)] = []
            for index in 0..<3 {
                let (number, name, up, down) = (index + 1, Self.names[index], Self.ups[index] + "\n", Self.downs[index] + "\n")
                switch self {
                case .steward:
                    files += [("000\(number)_\(name).sql", up), ("000\(number)_\(name).down.sql", down)]
                case .golangMigrate, .sqlx:
                    files += [("\(number)_\(name).up.sql", up), ("\(number)_\(name).down.sql", down)]
                case .goose:
                    files.append(("0000\(number)_\(name).sql", "-- +goose Up\n\(up)-- +goose Down\n\(down)"))
                case .dbmate:
                    files.append(("\(number)_\(name).sql", "-- migrate:up\n\(up)\n-- migrate:down\n\(down)"))
                case .diesel:
                    files += [("2024-01-0\(number)-000000_\(name)/up.sql", up), ("2024-01-0\(number)-000000_\(name)/down.sql", down)]
                }
            }
            if self == .steward { files.append((".steward-dialect", "steward\n")) }
            return files
        }

        /// The version `--to` names for the set's first migration.
        var first: RequestedVersion {
            self == .diesel ? RequestedVersion("20240101000000")! : 1
        }

        /// The ledger's rows as the runner's own down command leaves them, written out here
        /// from the runners' sources (not read from Steward), after going down to the first
        /// migration (`toFirst`) or to 0. Timestamps and checksums are left out.
        func expectedLedger(toFirst: Bool) -> (sql: String, rows: [[SQLiteValue]])? {
            switch self {
            case .steward:
                return nil
            case .golangMigrate:
                // One row, the version below, dirty false; nothing below the first.
                return ("SELECT version, dirty FROM schema_migrations", toFirst ? [[.integer(1), .integer(0)]] : [])
            case .sqlx:
                return ("SELECT version, description, success FROM _sqlx_migrations ORDER BY version",
                        toFirst ? [[.integer(1), .text("ticket"), .integer(1)]] : [])
            case .goose:
                // The version-0 row goose writes with its table stays.
                return ("SELECT version_id, is_applied FROM goose_db_version ORDER BY id",
                        toFirst ? [[.integer(0), .integer(1)], [.integer(1), .integer(1)]] : [[.integer(0), .integer(1)]])
            case .dbmate:
                return ("SELECT version FROM schema_migrations ORDER BY version", toFirst ? [[.text("1")]] : [])
            case .diesel:
                return ("SELECT version FROM __diesel_schema_migrations ORDER BY version", toFirst ? [[.text("20240101000000")]] : [])
            }
        }
    }

    func writeSet(_ layout: Layout) throws {
        for (name, text) in layout.files() { try write(name, text) }
    }

    func run(_ layout: Layout, on path: String? = nil, _ change: (inout Migrator.Options) -> Void = { _ in }) throws -> MigrateReport {
        try migrate {
            if let path { $0.databasePath = path }
            if layout == .golangMigrate || layout == .sqlx { $0.dialect = layout.dialect }
            change(&$0)
        }
    }

    func schema(_ path: String) throws -> SchemaFingerprint {
        try SchemaFingerprint(reading: Connection(path: path))
    }

    func fileBytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: database)) }

    @Test(arguments: Layout.allCases, [true, false])
    func downAndUpAgainInEveryLayout(layout: Layout, toFirst: Bool) throws {
        try writeSet(layout)
        _ = try run(layout) { $0.create = true }
        let schemaAtNewest = try schema(database)
        try Connection(path: database).execute(sql: """
            INSERT INTO ticket(id, title) VALUES (1, 'written since the upgrade'), (2, 'another');
            INSERT INTO note(ticket_id, body) VALUES (1, 'n');
            INSERT INTO tag(name) VALUES ('t');
            """)

        let target: RequestedVersion = toFirst ? layout.first : 0
        let report = try run(layout) {
            $0.down = true
            $0.targetVersion = target
        }
        #expect(report.outcome == .migrated)
        #expect(report.direction == .down)
        #expect(!report.ignoredFiles.contains { $0.hasSuffix(".down.sql") }, "\(report.ignoredFiles)")
        #expect(report.undone?.count == (toFirst ? 2 : 3))
        #expect(report.appliedCountAfter == (toFirst ? 1 : 0))
        let connection = try Connection(path: database)
        #expect(try connection.userVersion() == (toFirst ? 1 : 0))

        // The schema the set makes at the target, on a database of its own.
        let fresh = directory.file("fresh.db")
        if toFirst {
            _ = try run(layout, on: fresh) {
                $0.create = true
                $0.targetVersion = target
            }
            #expect(try schema(database).differences(from: schema(fresh)) == [])
            #expect(try connection.rows(sql: "SELECT id, title FROM ticket ORDER BY id")
                    == [[.integer(1), .text("written since the upgrade")], [.integer(2), .text("another")]])
        } else {
            let tables = try connection.rows(
                sql: "SELECT name FROM sqlite_schema WHERE name IN ('ticket', 'note', 'tag', 'note_ticket')")
            #expect(tables.isEmpty)
        }
        if let expected = layout.expectedLedger(toFirst: toFirst) {
            #expect(try connection.rows(sql: expected.sql) == expected.rows)
        }
        #expect(try connection.rows(sql: "PRAGMA integrity_check") == [[.text("ok")]])

        // Up again: the undone migrations are applied again, and the schema is the same.
        let again = try run(layout)
        #expect(again.applied.count == (toFirst ? 2 : 3))
        #expect(try schema(database).differences(from: schemaAtNewest) == [])
    }

    @Test func aDatabaseAtOrBelowTheTargetIsCurrentAndLeftAlone() throws {
        try writeSet(.steward)
        _ = try run(.steward) {
            $0.create = true
            $0.targetVersion = 1
        }
        let before = try fileBytes()
        for target: RequestedVersion in [1, 2] {
            let report = try run(.steward) {
                $0.down = true
                $0.targetVersion = target
            }
            #expect(report.outcome == .current)
            #expect(report.undone?.isEmpty == true)
        }
        #expect(try fileBytes() == before)
    }

    @Test func aTargetAboveTheNewestMigrationIsRefused() throws {
        try writeSet(.steward)
        _ = try run(.steward) { $0.create = true }
        let before = try fileBytes()
        let error = try failure {
            $0.down = true
            $0.targetVersion = 7
        }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("version 7 is above the newest migration"))
        #expect(try fileBytes() == before)
    }

    @Test func missingAndEmptyDownPartsRefuseTheWholeRunNamingEachFile() throws {
        try write(".steward-dialect", "steward\n")
        try writeTable("0001", "a")
        for (number, name) in [("0002", "b"), ("0003", "c"), ("0004", "d")] { try writeTable(number, name, down: false) }
        try write("0004_d.down.sql", "-- nothing\n;\n")
        _ = try run(.steward) { $0.create = true }
        let before = try fileBytes()
        let error = try failure {
            $0.down = true
            $0.targetVersion = 0
        }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("no down part for \(workspace.migration("0003_c.sql")), \(workspace.migration("0002_b.sql"))"))
        #expect(error.message.contains("an empty down part (no statement) in \(workspace.migration("0004_d.down.sql"))"))
        #expect(error.message.hasSuffix("nothing changed"))
        #expect(try fileBytes() == before)

        // --status shows them without refusing.
        let status = try run(.steward) {
            $0.down = true
            $0.targetVersion = 0
            $0.statusOnly = true
        }
        #expect(status.toUndo?.map(\.file) == ["0004_d.sql", "0003_c.sql", "0002_b.sql", "0001_a.sql"])
        #expect(status.toUndo?.map(\.downFile) == ["0004_d.down.sql", nil, nil, "0001_a.down.sql"])
        #expect(status.outcome == .pending)
    }

    @Test(arguments: [Dialect.drizzle, .flyway])
    func drizzleAndFlywayAreRefusedPointingAtTheRollbackBundle(dialect: Dialect) throws {
        if dialect == .flyway {
            try write("V1__a.sql", "CREATE TABLE a(x);\n")
        } else {
            try write("0000_a.sql", "CREATE TABLE a(x);\n")
            try write("meta/_journal.json", #"{"dialect":"sqlite","entries":[{"idx":0,"when":1700000000000,"tag":"0000_a"}]}"#)
        }
        _ = try migrate { $0.create = true }
        let before = try fileBytes()
        let error = try failure {
            $0.down = true
            $0.targetVersion = 0
        }
        #expect(error.kind == .badInput)
        #expect(error.remedy == .restoreRollbackBundle)
        #expect(error.message.contains(dialect == .drizzle ? "drizzle has no down migrations" : "not part of its free edition"))
        #expect(try fileBytes() == before)
    }

    @Test func aDownPartWhoseUpFileChangedIsRefusedUnlessAllowed() throws {
        try writeSet(.sqlx)
        _ = try run(.sqlx) { $0.create = true }
        // Changed since it was applied (a comment: the schema it makes is the same).
        try write("3_tag.up.sql", "-- reviewed\nCREATE TABLE tag(name TEXT PRIMARY KEY) WITHOUT ROWID;\n")
        let before = try fileBytes()
        let error = try failure {
            $0.dialect = .sqlx
            $0.down = true
            $0.targetVersion = 1
        }
        #expect(error.remedy == .allowChangedMigrations)
        #expect(try fileBytes() == before)
        let report = try run(.sqlx) {
            $0.down = true
            $0.targetVersion = 1
            $0.allowChanged = true
        }
        #expect(report.undone?.map(\.file) == ["3_tag.down.sql", "2_note.down.sql"])
    }

    @Test func aGooseDownPartCutShortRefusesTheDownRunAndNotTheUpRun() throws {
        try write("00001_a.sql", """
            -- +goose Up
            CREATE TABLE a(x);
            -- +goose Down
            CREATE TRIGGER t AFTER INSERT ON a BEGIN
              SELECT 1;
            END;
            DROP TABLE a;
            """)
        let up = try migrate { $0.create = true }
        #expect(up.applied.count == 1)
        let before = try fileBytes()
        let error = try failure {
            $0.down = true
            $0.targetVersion = 0
        }
        #expect(error.message.contains("00001_a.sql:4: goose sends lines 4-5 of the down part"))
        #expect(try fileBytes() == before)
    }

    @Test func aFailingDownPartRollsEverythingBack() throws {
        try writeSet(.steward)
        try write("0002_note.down.sql", "DROP TABLE note;\nDROP TABLE no_such_table;\n")
        _ = try run(.steward) { $0.create = true }
        let before = try fileBytes()
        #expect(throws: StewardError.self) {
            _ = try run(.steward) {
                $0.down = true
                $0.targetVersion = 1
            }
        }
        #expect(try fileBytes() == before)
    }

    @Test func aDownPartThatOrphansRowsIsRefusedByTheForeignKeyComparison() throws {
        try writeSet(.steward)
        // A wrong down part: it deletes the tickets the notes still point at.
        try write("0003_tag.down.sql", "DROP TABLE tag;\nDELETE FROM ticket;\n")
        _ = try run(.steward) { $0.create = true }
        try Connection(path: database).execute(sql: "INSERT INTO ticket VALUES (1, 't'); INSERT INTO note(ticket_id, body) VALUES (1, 'n');")
        let before = try fileBytes()
        let error = try failure {
            $0.down = true
            $0.targetVersion = 2
        }
        #expect(error.kind == .checkFailed)
        #expect(error.message.contains("foreign key violation"))
        #expect(try fileBytes() == before)
    }

    @Test func theGuardRefusesADownPartThatLosesWhatItDoesNotName() throws {
        try write(".steward-dialect", "steward\n")
        try write("0001_ticket.sql", "CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT);\nCREATE INDEX ticket_title ON ticket(title);\n")
        try write("0001_ticket.down.sql", "DROP TABLE ticket;\n")
        try write("0002_status.sql", "ALTER TABLE ticket ADD COLUMN status TEXT;\n")
        // The rebuild that takes the column away loses the index of migration 1 with the old table.
        try write("0002_status.down.sql", """
            CREATE TABLE ticket_new(id INTEGER PRIMARY KEY, title TEXT);
            INSERT INTO ticket_new SELECT id, title FROM ticket;
            DROP TABLE ticket;
            ALTER TABLE ticket_new RENAME TO ticket;
            """)
        _ = try migrate { $0.create = true }
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title) VALUES ('a')")
        let before = try fileBytes()
        let error = try failure {
            $0.down = true
            $0.targetVersion = 1
        }
        #expect(error.kind == .checkFailed)
        #expect(error.message.contains("index ticket_title on ticket lost with its table"), "\(error.message)")
        #expect(try fileBytes() == before)

        // The same rebuild that makes the index again loses nothing.
        try write("0002_status.down.sql", """
            CREATE TABLE ticket_new(id INTEGER PRIMARY KEY, title TEXT);
            INSERT INTO ticket_new SELECT id, title FROM ticket;
            DROP TABLE ticket;
            ALTER TABLE ticket_new RENAME TO ticket;
            CREATE INDEX ticket_title ON ticket(title);
            """)
        let report = try migrate {
            $0.down = true
            $0.targetVersion = 1
        }
        #expect(report.undone?.map(\.file) == ["0002_status.down.sql"])
        #expect(try Connection(path: database).rows(sql: "SELECT title FROM ticket") == [[.text("a")]])
    }

    @Test func gooseTakesBackInTheOrderOfApplicationAndStopsAtTheTarget() throws {
        try writeSet(.goose)
        _ = try run(.goose) {
            $0.create = true
            $0.targetVersion = 1
        }
        try FileManager.default.moveItem(atPath: workspace.migration("00002_note.sql"), toPath: directory.file("held-back.sql"))
        _ = try run(.goose)
        try FileManager.default.moveItem(atPath: directory.file("held-back.sql"), toPath: workspace.migration("00002_note.sql"))
        _ = try run(.goose) { $0.allowOutOfOrder = true }
        // Applied 1, 3, then 2: goose's down-to 2 finds 2 most recently applied and stops.
        let atTwo = try run(.goose) {
            $0.down = true
            $0.targetVersion = 2
        }
        #expect(atTwo.outcome == .current)
        // Down to 1: 2 first (applied last), then 3.
        let report = try run(.goose) {
            $0.down = true
            $0.targetVersion = 1
        }
        #expect(report.undone?.map(\.versionText) == ["00002", "00003"])
        #expect(try Connection(path: database).rows(sql: "SELECT version_id FROM goose_db_version ORDER BY id")
                == [[.integer(0)], [.integer(1)]])
    }

    @Test func anAllowanceInTheDownPartNamesItsLoss() throws {
        try write(".steward-dialect", "steward\n")
        try write("0001_ticket.sql", "CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT, status TEXT);\n")
        try write("0001_ticket.down.sql", "DROP TABLE ticket;\n")
        try write("0002_closed.sql", "CREATE TABLE archive(id INTEGER PRIMARY KEY);\n")
        // Taking 2 back also drops the closed tickets through a rebuild's WHERE.
        let rebuild = """
            DROP TABLE archive;
            CREATE TABLE ticket_new(id INTEGER PRIMARY KEY, title TEXT, status TEXT);
            INSERT INTO ticket_new SELECT * FROM ticket WHERE status IS NOT 'closed';
            DROP TABLE ticket;
            ALTER TABLE ticket_new RENAME TO ticket;

            """
        try write("0002_closed.down.sql", rebuild)
        _ = try migrate { $0.create = true }
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title, status) VALUES ('a', 'open'), ('b', 'closed')")
        let before = try fileBytes()
        let error = try failure {
            $0.down = true
            $0.targetVersion = 1
        }
        #expect(error.kind == .checkFailed)
        #expect(error.message.contains("ticket"), "\(error.message)")
        #expect(try fileBytes() == before)

        try write("0002_closed.down.sql", "-- steward: allow row-loss ticket\n" + rebuild)
        let report = try migrate {
            $0.down = true
            $0.targetVersion = 1
        }
        #expect(report.accounting?.allowances.map(\.used) == [true])
        #expect(try Connection(path: database).rows(sql: "SELECT title FROM ticket") == [[.text("a")]])
    }

    @Test func aDryRunTakesBackOnACopyAndLeavesTheFileAlone() throws {
        try writeSet(.goose)
        _ = try run(.goose) { $0.create = true }
        let before = try fileBytes()
        let report = try run(.goose) {
            $0.down = true
            $0.targetVersion = 1
            $0.dryRun = true
        }
        #expect(report.outcome == .wouldMigrate)
        #expect(report.undone?.map(\.versionText) == ["00003", "00002"])
        #expect(try fileBytes() == before)
    }

    @Test func progressNamesEachDownPart() throws {
        try writeSet(.dbmate)
        _ = try run(.dbmate) { $0.create = true }
        let recording = Recording<Migrator.Event>()
        var options = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        options.down = true
        options.targetVersion = 1
        _ = try Migrator(options: options) { recording.append($0) }.run()
        #expect(recording.lines == ["undoing 3_tag.sql 3", "undone 3_tag.sql 3 1", "undoing 2_note.sql 2", "undone 2_note.sql 2 2"])
    }
}

/// A down part that declares an FTS5 table again gets the upgrade's rebuild and check.
@Suite struct DownMigratorSearchTests: MigratorSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(layout: "steward") }

    @Test func anFTS5TableADownPartRedefinesIsRebuiltAndChecked() throws {
        try write("0001_ticket.sql", """
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');
            CREATE TRIGGER ticket_ai AFTER INSERT ON ticket BEGIN
              INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title);
            END;
            """)
        try write("0002_trigram.sql", """
            DROP TABLE ticket_fts;
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id', tokenize='trigram');
            """)
        try write("0002_trigram.down.sql", """
            DROP TABLE ticket_fts;
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');
            """)
        _ = try migrate { $0.create = true }
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title) VALUES ('written since the upgrade')")
        let report = try migrate {
            $0.down = true
            $0.targetVersion = 1
        }
        #expect(report.ftsRebuilt.map(\.table) == ["ticket_fts"])
        #expect(report.ftsRebuilt.first?.rebuiltBy == .steward)
        #expect(report.ftsRebuilt.first?.checked == true)
        let connection = try Connection(path: database)
        #expect(try connection.integer(sql: "SELECT count(*) FROM ticket_fts WHERE ticket_fts MATCH 'upgrade'") == 1)
        #expect(try connection.userVersion() == 1)
    }
}

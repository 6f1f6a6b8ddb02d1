import Foundation
import SQLiteKit
import Testing
@testable import StewardCore
import TestSupport

/// The migration guard (issue 28): destructive migrations in which every statement
/// succeeds are refused before COMMIT, the database byte-identical, and accepted once the
/// loss is allowed in the migration, in Steward's layout and in goose's, sqlx's and diesel's.
@Suite struct MigrationGuardTests: MigratorSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    enum Layout: String, CaseIterable, CustomTestStringConvertible {
        case steward, goose, sqlx, diesel

        var dialect: Dialect {
            switch self {
            case .steward: .steward
            case .goose: .goose
            case .sqlx: .sqlx
            case .diesel: .diesel
            }
        }

        var testDescription: String { rawValue }

        /// Writes migration `number` (1 or 2) in this layout; `up` is its up part.
        func write(_ number: Int, _ name: String, up: String, in directory: TemporaryDirectory) throws {
            switch self {
            case .steward:
                try directory.write(up, to: "migrations/000\(number)_\(name).sql")
            case .goose:
                try directory.write("-- +goose Up\n\(up)\n-- +goose Down\nSELECT 1;\n", to: "migrations/0000\(number)_\(name).sql")
            case .sqlx:
                try directory.write(up, to: "migrations/2024010100000\(number)_\(name).sql")
            case .diesel:
                try directory.write(up, to: "migrations/2024-01-01-00000\(number)_\(name)/up.sql")
                try directory.write("SELECT 1;\n", to: "migrations/2024-01-01-00000\(number)_\(name)/down.sql")
            }
        }
    }

    /// One destructive migration: the schema and rows before it, the migration, what the
    /// refusal names, and the allowance lines that let it through.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let base: String
        let rows: String
        let migration: String
        let refusal: [String]
        let allowances: [String]
        var testDescription: String { name }
    }

    static let ticket = """
        CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT);
        """
    static let ticketRows = "INSERT INTO ticket(title, status) VALUES ('a', 'open'), ('b', NULL), ('c', 'done');"
    static let searchBase = ticket + """

        CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');
        CREATE TRIGGER ticket_ai AFTER INSERT ON ticket BEGIN INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END;
        CREATE TRIGGER ticket_ad AFTER DELETE ON ticket BEGIN INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title); END;
        CREATE TRIGGER ticket_au AFTER UPDATE ON ticket BEGIN INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title); INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END;
        """
    static let syncTriggers = """
        CREATE TRIGGER ticket_ai AFTER INSERT ON ticket BEGIN INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END;
        CREATE TRIGGER ticket_ad AFTER DELETE ON ticket BEGIN INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title); END;
        CREATE TRIGGER ticket_au AFTER UPDATE ON ticket BEGIN INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title); INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title); END;
        """
    /// The rebuild the SQLite documentation describes, keeping every row.
    static func rebuild(_ table: String = "ticket", columns: String = "id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT",
                        copy: String = "SELECT * FROM ticket", options: String = "", insert: String = "INSERT") -> String {
        """
        CREATE TABLE \(table)_new(\(columns))\(options);
        \(insert) INTO \(table)_new \(copy);
        DROP TABLE \(table);
        ALTER TABLE \(table)_new RENAME TO \(table);
        """
    }

    static let cases: [Case] = [
        Case(name: "rebuild dropping the FTS5 sync triggers", base: searchBase, rows: ticketRows,
             migration: rebuild(),
             refusal: ["trigger ticket_ai on ticket lost with its table: DROP TABLE ticket at", "lost its sync triggers for insert (ticket_ai)"],
             allowances: ["drop-trigger ticket_ai", "drop-trigger ticket_ad", "drop-trigger ticket_au"]),
        Case(name: "dropping an index", base: ticket + "\nCREATE INDEX ticket_status ON ticket(status);", rows: ticketRows,
             migration: rebuild(),
             refusal: ["index ticket_status on ticket lost with its table: DROP TABLE ticket at"],
             allowances: ["drop-index ticket_status"]),
        Case(name: "dropping a trigger",
             base: ticket + "\nCREATE TABLE audit(what TEXT);\nCREATE TRIGGER ticket_audit AFTER DELETE ON ticket BEGIN INSERT INTO audit VALUES ('deleted'); END;",
             rows: ticketRows, migration: rebuild(),
             refusal: ["trigger ticket_audit on ticket lost with its table"],
             allowances: ["drop-trigger ticket_audit"]),
        Case(name: "dropping a view with the table it reads",
             base: ticket + "\nCREATE TABLE archive(id INTEGER PRIMARY KEY);\nCREATE VIEW archived AS SELECT id FROM archive;",
             rows: ticketRows, migration: "DROP TABLE archive;",
             refusal: ["view archived no longer compiles against the new schema (no such table: main.archive)"],
             allowances: ["drop-view archived"]),
        Case(name: "WHERE losing rows", base: ticket, rows: ticketRows,
             migration: rebuild(copy: "SELECT * FROM ticket WHERE status IS NOT NULL"),
             refusal: ["table ticket lost 1 of its 3 rows (", ": dropped and made again without all its rows"],
             allowances: ["row-loss ticket"]),
        Case(name: "INNER JOIN losing rows",
             base: ticket + "\nCREATE TABLE owner(ticket_id INTEGER, name TEXT);", rows: ticketRows + "\nINSERT INTO owner VALUES (1, 'x'), (3, 'y');",
             migration: rebuild(columns: "id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT, owner TEXT",
                                copy: "SELECT t.id, t.title, t.status, o.name FROM ticket t JOIN owner o ON o.ticket_id = t.id"),
             refusal: ["table ticket lost 1 of its 3 rows"],
             allowances: ["row-loss ticket"]),
        Case(name: "INSERT OR IGNORE under a new UNIQUE", base: ticket,
             rows: "INSERT INTO ticket(title, status) VALUES ('same', 'open'), ('same', 'done'), ('other', NULL);",
             migration: rebuild(columns: "id INTEGER PRIMARY KEY, title TEXT NOT NULL UNIQUE, status TEXT", insert: "INSERT OR IGNORE"),
             refusal: ["table ticket lost 1 of its 3 rows"],
             allowances: ["row-loss ticket"]),
        Case(name: "STRICT lost", base: "CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT) STRICT;",
             rows: ticketRows, migration: rebuild(),
             refusal: ["table ticket was rebuilt without STRICT"],
             allowances: ["option-change ticket"]),
        Case(name: "WITHOUT ROWID lost", base: "CREATE TABLE tag(name TEXT PRIMARY KEY, uses INTEGER) WITHOUT ROWID;",
             rows: "INSERT INTO tag VALUES ('a', 1), ('b', 2);",
             migration: rebuild("tag", columns: "name TEXT PRIMARY KEY, uses INTEGER", copy: "SELECT * FROM tag"),
             refusal: ["table tag was rebuilt without WITHOUT ROWID"],
             allowances: ["option-change tag"]),
        Case(name: "AUTOINCREMENT lost", base: "CREATE TABLE ticket(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, status TEXT);",
             rows: ticketRows, migration: rebuild(),
             refusal: ["table ticket was rebuilt without AUTOINCREMENT"],
             allowances: ["option-change ticket"]),
        Case(name: "sqlite_sequence reset", base: "CREATE TABLE ticket(id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, status TEXT);",
             rows: ticketRows + "\nDELETE FROM ticket WHERE id = 3;",
             migration: rebuild(columns: "id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL, status TEXT"),
             refusal: ["the AUTOINCREMENT counter of ticket went down from 3 to 2"],
             allowances: ["sequence-reset ticket"]),
        Case(name: "a view left reading a dropped column",
             base: ticket + "\nCREATE VIEW open_ticket AS SELECT id, title FROM ticket WHERE status = 'open';",
             rows: ticketRows,
             migration: """
                CREATE TABLE ticket_backup(id, title);
                INSERT INTO ticket_backup SELECT id, title FROM ticket;
                DROP TABLE ticket;
                CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
                INSERT INTO ticket SELECT id, title FROM ticket_backup;
                DROP TABLE ticket_backup;
                """,
             refusal: ["view open_ticket no longer compiles against the new schema (no such column: status)"],
             allowances: ["drop-view open_ticket"]),
        Case(name: "a content table losing rows, its FTS5 index stale",
             base: searchBase, rows: ticketRows,
             migration: rebuild(copy: "SELECT * FROM ticket WHERE status IS NOT NULL") + "\n" + syncTriggers,
             refusal: ["table ticket lost 1 of its 3 rows", "the FTS5 index of ticket_fts no longer matches its content table ticket"],
             allowances: ["row-loss ticket"]),
    ]

    func bytes() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: database)) }

    /// Builds the database at migration 1 with its rows, then writes migration 2.
    func prepare(_ test: Case, layout: Layout, allowances: [String] = [], extra: String = "") throws {
        try layout.write(1, "base", up: test.base + "\n", in: directory)
        _ = try migrate { $0.create = true; $0.dialect = layout.dialect }
        try Connection(path: database).execute(sql: test.rows)
        let comments = allowances.map { "-- steward: allow \($0)\n" }.joined()
        try layout.write(2, "change", up: comments + extra + test.migration + "\n", in: directory)
    }

    @Test(arguments: cases, Layout.allCases)
    func refusedWithTheDatabaseUnchanged(_ test: Case, layout: Layout) throws {
        try prepare(test, layout: layout)
        let before = try bytes()
        let error = try failure { $0.dialect = layout.dialect }
        #expect(error.kind == .checkFailed)
        for fragment in test.refusal {
            #expect(error.message.contains(fragment), "\(error.message)")
        }
        #expect(error.message.hasSuffix("rolled back, nothing changed"))
        #expect(try bytes() == before)
        // The dry run accounts the same way.
        #expect(try failure { $0.dialect = layout.dialect; $0.dryRun = true }.kind == .checkFailed)
    }

    @Test(arguments: cases, Layout.allCases)
    func acceptedWithItsAllowance(_ test: Case, layout: Layout) throws {
        // A stale search index is mended, not allowed: the rebuild runs in the migration.
        let stale = test.name.contains("stale")
        try prepare(test, layout: layout, allowances: test.allowances, extra: stale ? "-- steward: rebuild-fts ticket_fts\n" : "")
        let report = try migrate { $0.dialect = layout.dialect }
        #expect(report.applied.count == 1)
        let accounting = try #require(report.accounting)
        let used = accounting.allowances.filter(\.used).map { "\($0.kind.rawValue) \($0.name)" }
        #expect(Set(used) == Set(test.allowances), "\(accounting.allowances)")
        #expect(accounting.allowances.allSatisfy { $0.givenAt?.contains("change") == true })
    }

    @Test(arguments: Layout.allCases)
    func theCallersAllowanceWorksLikeTheComment(layout: Layout) throws {
        let test = Self.cases[1]
        try prepare(test, layout: layout)
        let report = try migrate {
            $0.dialect = layout.dialect
            $0.allowances = [MigrationAllowance(kind: .dropIndex, name: "ticket_status", location: nil)]
        }
        let lost = try #require(report.accounting?.migrations.first?.lost.first)
        #expect(lost.object.name == "ticket_status" && lost.allowedBy == "caller" && lost.droppedWith == "ticket")
    }

    @Test(arguments: Layout.allCases)
    func aRenameFirstRebuildLeavingChildrenOnTheOldTableIsRefused(layout: Layout) throws {
        let test = Case(
            name: "rename-first", base: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) ON DELETE CASCADE);
                """,
            rows: "INSERT INTO parent VALUES (1, 'a'), (2, 'b'); INSERT INTO child VALUES (1, 1), (2, 2);",
            migration: """
                ALTER TABLE parent RENAME TO parent_old;
                CREATE TABLE parent(id INTEGER PRIMARY KEY, name TEXT, note TEXT);
                INSERT INTO parent SELECT id, name, NULL FROM parent_old;
                DROP TABLE parent_old;
                """, refusal: [], allowances: [])
        try prepare(test, layout: layout)
        let before = try bytes()
        let error = try failure { $0.dialect = layout.dialect }
        #expect(error.kind == .checkFailed)
        #expect(error.message.contains("foreign key child → parent_old names a table that no longer exists"), "\(error.message)")
        #expect(try bytes() == before)
        // With the old table kept, the children are moved onto it: refused too.
        try layout.write(2, "change", up: test.migration.replacingOccurrences(of: "DROP TABLE parent_old;", with: "") + "\n", in: directory)
        let moved = try failure { $0.dialect = layout.dialect }
        #expect(moved.message.contains("the foreign key of child (parent_id) that referenced parent now references parent_old"), "\(moved.message)")
    }

    @Test(arguments: Layout.allCases)
    func rebuildingAParentWithCascadingChildrenKeepsEveryChildRow(layout: Layout) throws {
        let test = Case(
            name: "cascade", base: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) ON DELETE CASCADE);
                """,
            rows: "INSERT INTO parent VALUES (1, 'a'), (2, 'b'); INSERT INTO child VALUES (1, 1), (2, 2), (3, 2);",
            migration: Self.rebuild("parent", columns: "id INTEGER PRIMARY KEY, name TEXT NOT NULL DEFAULT ''", copy: "SELECT * FROM parent"),
            refusal: [], allowances: [])
        try prepare(test, layout: layout)
        // The application runs with foreign keys on; the run keeps them off, so dropping
        // the parent cascades nothing.
        let report = try migrate { $0.dialect = layout.dialect }
        #expect(try Connection(path: database).integer(sql: "SELECT count(*) FROM child") == 3)
        let parent = try #require(report.accounting?.tables.first { $0.table == "parent" })
        #expect(parent.rowsBefore == 2 && parent.rowsAfter == 2)
    }

    // MARK: - What the guard lets through, and how it reports

    @Test func explicitDropsAndDeletesAreNamedAndReported() throws {
        try Layout.steward.write(1, "base", up: Self.ticket + "\nCREATE INDEX ticket_status ON ticket(status);\nCREATE TABLE old_log(x);\n", in: directory)
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        try Connection(path: database).execute(sql: Self.ticketRows + "INSERT INTO old_log VALUES (1), (2);")
        try Layout.steward.write(2, "change", up: """
            DROP INDEX ticket_status;
            DELETE FROM ticket WHERE status IS NULL;
            DROP TABLE old_log;
            CREATE INDEX ticket_title ON ticket(title);
            """, in: directory)
        let report = try migrate { $0.dialect = .steward }
        let accounting = try #require(report.accounting)
        let migration = try #require(accounting.migrations.first)
        #expect(migration.droppedExplicitly.map(\.name) == ["ticket_status"])
        #expect(migration.created.map(\.name) == ["ticket_title"])
        #expect(migration.lost.isEmpty)
        let ticket = try #require(accounting.tables.first { $0.table == "ticket" })
        #expect(ticket.rowsBefore == 3 && ticket.rowsAfter == 2 && ticket.deleted)
        let log = try #require(accounting.tables.first { $0.table == "old_log" })
        #expect(log.dropped && log.rowsBefore == 2 && log.rowsAfter == nil)
    }

    @Test func aRebuildThatRecreatesWhatItDroppedPassesWithoutAllowance() throws {
        try Layout.steward.write(1, "base", up: Self.searchBase + "\nCREATE INDEX ticket_status ON ticket(status);\n", in: directory)
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        try Connection(path: database).execute(sql: Self.ticketRows)
        try Layout.steward.write(2, "change", up: Self.rebuild(columns: "id INTEGER PRIMARY KEY, title TEXT NOT NULL, status TEXT, due TEXT",
                                                               copy: "SELECT id, title, status, NULL FROM ticket")
                                 + "\nCREATE INDEX ticket_status ON ticket(status, due);\n" + Self.syncTriggers + "\n", in: directory)
        let report = try migrate { $0.dialect = .steward }
        let accounting = try #require(report.accounting)
        #expect(accounting.migrations.first?.lost.isEmpty == true)
        let changed = Set(accounting.migrations.first?.changed.map(\.name) ?? [])
        #expect(changed.contains("ticket_status"))
        #expect(accounting.searchChecked == ["ticket_fts"])
        #expect(accounting.tables.first { $0.table == "ticket" }?.rowsAfter == 3)
    }

    @Test func renamesAreFollowed() throws {
        try Layout.steward.write(1, "base", up: Self.ticket + "\nCREATE INDEX ticket_status ON ticket(status);\n", in: directory)
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        try Connection(path: database).execute(sql: Self.ticketRows)
        try Layout.steward.write(2, "change", up: "ALTER TABLE ticket RENAME TO issue;\nALTER TABLE issue RENAME COLUMN title TO subject;\n", in: directory)
        let report = try migrate { $0.dialect = .steward }
        let ticket = try #require(report.accounting?.tables.first { $0.table == "ticket" })
        #expect(ticket.renamedTo == "issue" && ticket.rowsAfter == 3 && !ticket.dropped)
    }

    @Test func anAllowanceThatMatchesNothingIsBadInputWithItsLine() throws {
        try Layout.steward.write(1, "base", up: Self.ticket + "\n", in: directory)
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        try Layout.steward.write(2, "change", up: "-- steward: allow drop-index no_such_index\nALTER TABLE ticket ADD due TEXT;\n", in: directory)
        let before = try bytes()
        let error = try failure { $0.dialect = .steward }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("0002_change.sql:1 'drop-index no_such_index' matches nothing this run did"), "\(error.message)")
        #expect(try bytes() == before)
    }

    @Test(arguments: ["-- steward: allow row-loss", "-- steward: allow everything ticket", "-- steward: allow row-loss a b"])
    func aMalformedAllowanceIsBadInputWithItsLine(_ line: String) throws {
        try Layout.steward.write(1, "base", up: "SELECT 1;\n\(line)\n", in: directory)
        let error = try failure { $0.create = true; $0.dialect = .steward }
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0001_base.sql:2: "), "\(error.message)")
    }

    @Test func theCallersValueIsKindColonName() throws {
        #expect(try MigrationAllowance.parse(callerValue: "row-loss:ticket").get() == MigrationAllowance(kind: .rowLoss, name: "ticket", location: nil))
        #expect(try MigrationAllowance.parse(callerValue: "drop-index:\"odd name\"").get().name == "odd name")
        for bad in ["row-loss", "nope:ticket", "row-loss:"] {
            #expect(throws: AllowanceError.self) { try MigrationAllowance.parse(callerValue: bad).get() }
        }
    }

    @Test func aDeferredSearchTableIsNotRefusedForItsDrift() throws {
        // The content table loses a row (allowed); the index still holds it. An application
        // that indexes in the background declares the table deferred.
        let test = try #require(Self.cases.first { $0.name.contains("stale") })
        try prepare(test, layout: .steward, allowances: test.allowances)
        let before = try bytes()
        let error = try failure { $0.dialect = .steward }
        #expect(error.message.contains("the FTS5 index of ticket_fts no longer matches its content table ticket"), "\(error.message)")
        #expect(try bytes() == before)
        let report = try migrate { $0.dialect = .steward; $0.ftsDeferred = ["Ticket_FTS"] }
        #expect(report.applied.count == 1)
        #expect(report.accounting?.searchChecked == ["ticket_fts"])
    }

    @Test func allowedDropsOfSyncTriggersCoverTheirLostCoverage() throws {
        // The triggers' allowances answer both the lost objects and the lost sync coverage.
        try prepare(Self.cases[0], layout: .steward)
        let report = try migrate {
            $0.dialect = .steward
            $0.allowances = ["ticket_ai", "ticket_ad", "ticket_au"].map { MigrationAllowance(kind: .dropTrigger, name: $0, location: nil) }
        }
        #expect(report.accounting?.migrations.first?.lost.count == 3)
    }

    // MARK: - No false alarms (found on real sets: vaultwarden, karakeep, Plume, atuin, komga)

    /// One base, one migration, applied on a database with rows: must pass.
    func passes(base: String, rows: String = "", migration: String) throws -> MigrateReport {
        try Layout.steward.write(1, "base", up: base + "\n", in: directory)
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        if !rows.isEmpty { try Connection(path: database).execute(sql: rows) }
        try Layout.steward.write(2, "change", up: migration + "\n", in: directory)
        return try migrate { $0.dialect = .steward }
    }

    @Test func aColumnAddedWithAReferenceIsNotARewrittenForeignKey() throws {
        // karakeep 0019: the new key comes after one with other actions.
        _ = try passes(
            base: "CREATE TABLE user(id TEXT PRIMARY KEY);\nCREATE TABLE lists(id TEXT PRIMARY KEY, userId TEXT NOT NULL, FOREIGN KEY (userId) REFERENCES user(id) ON DELETE CASCADE);",
            rows: "INSERT INTO user VALUES ('u'); INSERT INTO lists VALUES ('l', 'u');",
            migration: "ALTER TABLE lists ADD parentId TEXT REFERENCES lists(id) ON DELETE SET NULL;")
    }

    @Test func aTableRecreatedWithOtherReferencesIsNotARewrittenForeignKey() throws {
        // vaultwarden 2018-04-27: the table is made again by the migration, its keys changed.
        _ = try passes(
            base: """
                CREATE TABLE users(uuid TEXT PRIMARY KEY); CREATE TABLE folders(uuid TEXT PRIMARY KEY); CREATE TABLE organizations(uuid TEXT PRIMARY KEY);
                CREATE TABLE ciphers(uuid TEXT PRIMARY KEY, user_uuid TEXT REFERENCES users(uuid), folder_uuid TEXT REFERENCES folders(uuid));
                """,
            migration: """
                ALTER TABLE ciphers RENAME TO oldCiphers;
                CREATE TABLE ciphers(uuid TEXT PRIMARY KEY, user_uuid TEXT REFERENCES users(uuid), organization_uuid TEXT REFERENCES organizations(uuid));
                INSERT INTO ciphers SELECT uuid, user_uuid, NULL FROM oldCiphers;
                DROP TABLE oldCiphers;
                """)
    }

    @Test func aForwardReferenceToATableNotMadeYetIsNotALoss() throws {
        // Plume 2018-04-22: users references medias, which a later migration creates.
        _ = try passes(base: "CREATE TABLE instances(id INTEGER PRIMARY KEY);",
                       migration: "CREATE TABLE users(id INTEGER PRIMARY KEY, avatar_id INTEGER REFERENCES medias(id));")
    }

    @Test func theIndexesOfATableDroppedForGoodWentWithItsDrop() throws {
        // atuin 20230315220114, karakeep 0012, komga's spring session: DROP TABLE names them.
        let report = try passes(base: "CREATE TABLE events(id INTEGER PRIMARY KEY, h TEXT); CREATE INDEX events_h ON events(h);",
                                rows: "INSERT INTO events(h) VALUES ('x');", migration: "DROP TABLE events;")
        let migration = try #require(report.accounting?.migrations.first)
        #expect(migration.lost.isEmpty)
        #expect(migration.droppedWithTable.map(\.name) == ["events_h"])
    }

    @Test func aTableDroppedAndMadeAgainWithoutItsRowsSaysSo() throws {
        // vaultwarden 2024-02-14 (sso_nonce): the rows are gone; an allowance says it is meant.
        try Layout.steward.write(1, "base", up: "CREATE TABLE sso_nonce(nonce TEXT PRIMARY KEY);\n", in: directory)
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        try Connection(path: database).execute(sql: "INSERT INTO sso_nonce VALUES ('a'), ('b');")
        try Layout.steward.write(2, "change", up: "DROP TABLE sso_nonce;\nCREATE TABLE sso_nonce(state TEXT PRIMARY KEY, nonce TEXT);\n", in: directory)
        let error = try failure { $0.dialect = .steward }
        #expect(error.message.contains("table sso_nonce lost 2 of its 2 rows (0002_change.sql: dropped and made again without all its rows"), "\(error.message)")
    }

    @Test func aForeignKeysPragmaInAnEarlierFileDoesNotChangeTheSetsSchema() throws {
        // wealthfolio: PRAGMA foreign_keys = ON took effect in the schema-only build (SQLite
        // sets the flag while preparing it), so a later legacy rename rewrote a reference
        // there and not in the database: the drift check refused a database Steward built.
        try directory.write("CREATE TABLE a(id TEXT PRIMARY KEY); CREATE TABLE q(s TEXT, CONSTRAINT f FOREIGN KEY (s) REFERENCES a(id));\n",
                            to: "migrations/0001_base.sql")
        try directory.write("PRAGMA foreign_keys = ON;\n", to: "migrations/0002_fk_on.sql")
        try directory.write("""
            PRAGMA legacy_alter_table = ON;
            ALTER TABLE a RENAME TO a_old;
            CREATE TABLE a(id TEXT PRIMARY KEY, extra TEXT);
            INSERT INTO a(id) SELECT id FROM a_old;
            DROP TABLE a_old;
            PRAGMA legacy_alter_table = OFF;

            """, to: "migrations/0003_rebuild.sql")
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        try directory.write("CREATE TABLE z(id INTEGER PRIMARY KEY);\n", to: "migrations/0004_next.sql")
        let report = try migrate { $0.dialect = .steward }
        #expect(report.applied.map(\.file) == ["0004_next.sql"])
    }

    @Test func nothingPendingRunsNoGuard() throws {
        try Layout.steward.write(1, "base", up: Self.ticket + "\n", in: directory)
        _ = try migrate { $0.create = true; $0.dialect = .steward }
        #expect(try migrate { $0.dialect = .steward }.accounting == nil)
    }
}

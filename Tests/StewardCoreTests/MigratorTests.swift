import Foundation
@testable import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// `Migrator` as a library: report fields, FTS5 rebuilds, modes, progress and failures,
/// on databases and migration sets of each test's own.
@Suite struct MigratorTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "tickets.db", layout: "steward") }

    static let ticketSQL = """
        CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
        INSERT INTO ticket(title) VALUES ('printer jammed'), ('coffee machine running');
        """
    static let ticketSearchSQL = """
        CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');
        """

    func options(_ change: (inout Migrator.Options) -> Void = { _ in }) -> Migrator.Options {
        var options = Migrator.Options(databasePath: database, migrationsDirectory: migrations)
        options.timeout = 2
        change(&options)
        return options
    }

    func migrate(
        cancellation: Cancellation = Cancellation(), _ change: (inout Migrator.Options) -> Void = { _ in }
    ) throws -> MigrateReport {
        try Migrator(options: options(change), cancellation: cancellation).run().migration
    }

    func refusal(
        cancellation: Cancellation = Cancellation(), _ change: (inout Migrator.Options) -> Void = { _ in }
    ) throws -> StewardError {
        try #require(throws: StewardError.self) { try migrate(cancellation: cancellation, change) }
    }

    func fileBytes() throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: database))
    }

    func search(_ table: String, _ query: String) throws -> [[SQLiteValue]] {
        try Connection(path: database, mode: [.readOnly]).rows(
            sql: "SELECT rowid FROM \(table) WHERE \(table) MATCH ? ORDER BY rowid", bindings: [.text(query)])
    }

    /// A database at version 1: the ticket table with two rows, searchable by ticket_fts.
    func makeVersionOne() throws {
        try write("0001_ticket.sql", Self.ticketSQL + "\n" + Self.ticketSearchSQL)
        _ = try migrate { $0.create = true }
        #expect(try Connection(path: database).userVersion() == 1)
    }

    // MARK: - Report

    @Test func freshDatabaseReport() throws {
        try write("0001_ticket.sql", Self.ticketSQL)
        try write("0002_search.sql", """
            -- The rows of 0001 are indexed by the rebuild.
            -- steward: rebuild-fts ticket_fts
            \(Self.ticketSearchSQL)
            CREATE INDEX ticket_title ON ticket(title);
            """)
        try write("0002_search.down.sql", "DROP TABLE ticket_fts;\n")
        try write("README.md", "notes\n")

        let report = try migrate { $0.create = true }
        #expect(report.command == "migrate")
        #expect(report.mode == .apply)
        #expect(report.created)
        #expect(report.database.path == database)
        #expect(report.migrations == migrations)
        #expect(report.stewardVersion == StewardVersion.current)
        #expect(report.sqliteVersion == SQLiteLibrary.version)
        #expect(report.fromVersion == 0)
        #expect(report.toVersion == 2)
        #expect(report.newestVersion == 2)
        #expect(report.applied.map(\.version) == [1, 2])
        #expect(report.applied.map(\.file) == ["0001_ticket.sql", "0002_search.sql"])
        #expect(report.applied.map(\.statements) == [2, 2])
        #expect(report.applied.allSatisfy { $0.durationSeconds >= 0 })
        #expect(report.pending.isEmpty)
        #expect(report.ignoredFiles == ["0002_search.down.sql", "README.md"])
        // Created in this run: the directive does not add a second entry.
        let fts = try #require(report.ftsRebuilt.only)
        #expect(fts.table == "ticket_fts")
        #expect(fts.reason == .created)
        #expect(fts.rebuilt && fts.checked)
        let keys = try #require(report.foreignKeys)
        #expect(keys.violationsBefore == 0 && keys.violationsAfter == 0)
        #expect(keys.newViolations.isEmpty && keys.existingViolations.isEmpty)
        #expect(report.totalSeconds >= 0)

        #expect(try Connection(path: database).userVersion() == 2)
        #expect(try search("ticket_fts", "printer") == [[.integer(1)]])
    }

    @Test func ftsTableRedefinedWithAnotherTokenizerIsRebuilt() throws {
        try makeVersionOne()
        #expect(try search("ticket_fts", "jamming").isEmpty)
        try write("0002_porter.sql", """
            DROP TABLE ticket_fts;
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id', tokenize='porter');
            """)
        let report = try migrate()
        #expect(report.fromVersion == 1 && report.toVersion == 2)
        let fts = try #require(report.ftsRebuilt.only)
        #expect(fts.table == "ticket_fts")
        #expect(fts.reason == .redefined)
        #expect(fts.rebuilt && fts.checked)
        #expect(try search("ticket_fts", "jamming") == [[.integer(1)]])
        #expect(try search("ticket_fts", "run") == [[.integer(2)]])
    }

    @Test func ftsTableDroppedAndCreatedAgainUnchangedIsRebuilt() throws {
        try makeVersionOne()
        // Same declaration, so the schema text does not change, but the new index is empty.
        try write("0002_recreate.sql", "DROP TABLE ticket_fts;\n\(Self.ticketSearchSQL)\n")
        let report = try migrate()
        let fts = try #require(report.ftsRebuilt.only)
        #expect(fts.table == "ticket_fts")
        #expect(fts.reason == .redefined)
        #expect(fts.rebuilt && fts.checked)
        #expect(try search("ticket_fts", "printer") == [[.integer(1)]])
    }

    @Test func directiveRebuildsAnExistingTable() throws {
        try makeVersionOne()
        // Rows written without sync triggers: the index does not know them yet.
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title) VALUES ('projector flickers')")
        #expect(try search("ticket_fts", "projector").isEmpty)
        try write("0002_reindex.sql", """
            CREATE INDEX ticket_title ON ticket(title);
            -- steward: rebuild-fts TICKET_FTS
            """)
        let report = try migrate()
        let fts = try #require(report.ftsRebuilt.only)
        #expect(fts.table == "ticket_fts")
        #expect(fts.reason == .directive)
        #expect(fts.rebuilt && fts.checked)
        #expect(try search("ticket_fts", "projector") == [[.integer(3)]])
    }

    @Test func untouchedFTSTableIsLeftAlone() throws {
        try makeVersionOne()
        try write("0002_other.sql", "CREATE TABLE other(x);\n")
        let report = try migrate()
        #expect(report.applied.map(\.version) == [2])
        #expect(report.ftsRebuilt.isEmpty)
    }

    @Test func contentlessTableIsCheckedButNotRebuilt() throws {
        try write("0001_notes.sql", """
            CREATE VIRTUAL TABLE note_fts USING fts5(body, content='');
            INSERT INTO note_fts(rowid, body) VALUES (1, 'alpha beta'), (2, 'gamma');
            """)
        try write("0002_touch.sql", "-- steward: rebuild-fts note_fts\nCREATE TABLE other(x);\n")
        let created = try migrate { $0.create = true; $0.targetVersion = 1 }
        let fts = try #require(created.ftsRebuilt.only)
        #expect(fts.table == "note_fts")
        #expect(fts.reason == .created)
        #expect(!fts.rebuilt)
        #expect(fts.checked)

        let directive = try #require(try migrate().ftsRebuilt.only)
        #expect(directive.reason == .directive)
        #expect(!directive.rebuilt && directive.checked)
        #expect(try search("note_fts", "gamma") == [[.integer(2)]])
    }

    @Test func internalContentTableIsRebuiltAndChecked() throws {
        try write("0001_docs.sql", """
            CREATE VIRTUAL TABLE doc_fts USING fts5(title, body);
            INSERT INTO doc_fts(title, body) VALUES ('setup', 'install the printer'), ('billing', 'monthly invoice');
            """)
        let report = try migrate { $0.create = true }
        let fts = try #require(report.ftsRebuilt.only)
        #expect(fts.table == "doc_fts")
        #expect(fts.reason == .created)
        #expect(fts.rebuilt && fts.checked)
        #expect(try search("doc_fts", "invoice") == [[.integer(2)]])
    }

    // MARK: - Status and dry run

    @Test func statusListsPendingAndChangesNothing() throws {
        try makeVersionOne()
        try write("0002_a.sql", "CREATE TABLE a(x);\n")
        try write("0005_b.sql", "CREATE TABLE b(x);\n")
        let before = try fileBytes()

        let report = try migrate { $0.statusOnly = true }
        #expect(report.mode == .status)
        #expect(!report.created)
        #expect(report.fromVersion == 1 && report.toVersion == 1)
        #expect(report.newestVersion == 5)
        #expect(report.pending.map(\.version) == [2, 5])
        #expect(report.pending.map(\.file) == ["0002_a.sql", "0005_b.sql"])
        #expect(report.applied.isEmpty)
        #expect(report.ftsRebuilt.isEmpty)
        #expect(report.foreignKeys == nil)

        let upToTwo = try migrate { $0.statusOnly = true; $0.targetVersion = 2 }
        #expect(upToTwo.pending.map(\.version) == [2])
        #expect(try fileBytes() == before)
        #expect(try directory.contents() == ["migrations", "tickets.db"])
    }

    @Test func statusOfAMissingDatabaseIsNotFoundEvenWithCreate() throws {
        try write("0001_a.sql", "CREATE TABLE a(x);\n")
        let error = try refusal { $0.statusOnly = true; $0.create = true }
        #expect(error.kind == .notFound)
        #expect(error.message.contains(database))
        #expect(!FileManager.default.fileExists(atPath: database))
    }

    @Test func dryRunReportsThePlanAndLeavesTheFileByteIdentical() throws {
        try makeVersionOne()
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title) VALUES ('projector flickers')")
        try write("0002_porter.sql", """
            DROP TABLE ticket_fts;
            CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id', tokenize='porter');
            """)
        try write("0003_more.sql", "CREATE TABLE more(x);\nINSERT INTO more VALUES (1);\n")
        let before = try fileBytes()
        let state = try DatabaseState(path: database)

        let report = try migrate { $0.dryRun = true }
        #expect(report.mode == .dryRun)
        #expect(!report.created)
        #expect(report.fromVersion == 1 && report.toVersion == 3)
        #expect(report.applied.map(\.statements) == [2, 2])
        #expect(report.ftsRebuilt.map(\.reason) == [.redefined])
        #expect(try fileBytes() == before)
        #expect(try DatabaseState(path: database) == state)
        #expect(try directory.contents() == ["migrations", "tickets.db"])
    }

    // MARK: - Targets

    @Test func toStopsAtTheTarget() throws {
        try write("0001_a.sql", "CREATE TABLE a(x);\n")
        try write("0003_b.sql", "CREATE TABLE b(x);\n")
        try write("0007_c.sql", "CREATE TABLE c(x);\n")
        let first = try migrate { $0.create = true; $0.targetVersion = 3 }
        #expect(first.toVersion == 3)
        #expect(first.applied.map(\.version) == [1, 3])
        let second = try migrate()
        #expect(second.fromVersion == 3 && second.toVersion == 7)
        #expect(second.applied.map(\.file) == ["0007_c.sql"])
        // --to the current version is a no-op, not a refusal.
        #expect(try migrate { $0.targetVersion = 7 }.applied.isEmpty)
    }

    @Test(arguments: [2, 4, 100] as [Int32])
    func toAVersionNotInTheSetIsRefused(target: Int32) throws {
        try write("0001_a.sql", "CREATE TABLE a(x);\n")
        try write("0003_b.sql", "CREATE TABLE b(x);\n")
        _ = try migrate { $0.create = true; $0.targetVersion = 1 }
        let before = try fileBytes()
        let error = try refusal { $0.targetVersion = RequestedVersion(VersionKey(Int64(target))) }
        #expect(error == StewardError(.badInput, "no migration in \(migrations) has version \(target)"))
        #expect(try fileBytes() == before)
    }

    @Test func toBelowTheCurrentVersionIsRefused() throws {
        try write("0001_a.sql", "CREATE TABLE a(x);\n")
        try write("0002_b.sql", "CREATE TABLE b(x);\n")
        _ = try migrate { $0.create = true }
        let before = try fileBytes()
        let error = try refusal { $0.targetVersion = 1 }
        #expect(error == StewardError(.badInput, "database is at version 2, newer than the target version 1; refusing to downgrade",
                                      remedy: .takeMigrationsBack))
        #expect(try fileBytes() == before)
        #expect(try Connection(path: database).userVersion() == 2)
    }

    // MARK: - Progress

    @Test func progressEventsComeInOrder() throws {
        try write("0001_ticket.sql", Self.ticketSQL)
        try write("0002_search.sql", Self.ticketSearchSQL)
        try write("0003_docs.sql", "CREATE VIRTUAL TABLE doc_fts USING fts5(body);\n")
        let log = Recording<Migrator.Event>()
        _ = try Migrator(options: options { $0.create = true }) { log.append($0) }.run()
        #expect(log.lines.filter { !$0.hasPrefix("working") } == [
            "applying 0001_ticket.sql 1",
            "applied 0001_ticket.sql 1 2",
            "applying 0002_search.sql 2",
            "applied 0002_search.sql 2 1",
            "applying 0003_docs.sql 3",
            "applied 0003_docs.sql 3 1",
            "rebuildingFTS doc_fts",
            "rebuiltFTS doc_fts",
            "rebuildingFTS ticket_fts",
            "rebuiltFTS ticket_fts",
        ])
    }

    @Test func statusAndNoOpRunsReportNoProgress() throws {
        try makeVersionOne()
        let log = Recording<Migrator.Event>()
        _ = try Migrator(options: options { $0.statusOnly = true }) { log.append($0) }.run()
        _ = try Migrator(options: options()) { log.append($0) }.run()
        #expect(log.lines.isEmpty)
    }

    // MARK: - Failures

    @Test func cancelledRunChangesNothing() throws {
        try makeVersionOne()
        try write("0002_a.sql", "CREATE TABLE a(x);\nINSERT INTO a VALUES (1);\n")
        let before = try fileBytes()
        let state = try DatabaseState(path: database)
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")

        let error = try refusal(cancellation: cancellation)
        #expect(error.kind == .interrupted)
        #expect(error.message.contains("SIGINT"))
        #expect(try fileBytes() == before)
        #expect(try DatabaseState(path: database) == state)
        #expect(try directory.contents() == ["migrations", "tickets.db"])
    }

    @Test func cancelledRunCreatesNoDatabase() throws {
        try write("0001_a.sql", "CREATE TABLE a(x);\n")
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGTERM")
        let error = try refusal(cancellation: cancellation) { $0.create = true }
        #expect(error.kind == .interrupted)
        #expect(try directory.contents() == ["migrations"])
    }

    @Test func createdDatabaseIsRemovedWhenTheRunFails() throws {
        // Valid on the empty validation database; fails only when the INSERT runs.
        try write("0001_a.sql", "CREATE TABLE a(x INTEGER CHECK (x > 0));\n")
        try write("0002_b.sql", "CREATE TABLE b(y);\n\nINSERT INTO a VALUES (0);\n")
        let error = try refusal { $0.create = true }
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("0002_b.sql:3: "), "\(error.message)")
        #expect(try directory.contents() == ["migrations"], "no database, journal or WAL left behind")
    }

    // MARK: - Foreign keys

    @Test func foreignKeysAreCheckedAtTheEndNotPerStatement() throws {
        // A fresh connection starts with foreign_keys at the library's compiled default
        // (off here). Migrator opens its own connection, so enforcedBefore reports that
        // default, and the OFF/ON switch around the run cannot be observed from outside:
        // the pragma belongs to the connection, not the file.
        let fresh = try Connection(path: directory.file("probe.db"))
        #expect(try fresh.integer(sql: "PRAGMA foreign_keys") == 0)

        try write("0001_schema.sql", """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER NOT NULL REFERENCES parent(id));
            """)
        // The child comes first: with enforcement on, the first INSERT would fail.
        try write("0002_rows.sql", """
            INSERT INTO child(parent_id) VALUES (1);
            INSERT INTO parent(id) VALUES (1);
            """)
        let report = try migrate { $0.create = true }
        let keys = try #require(report.foreignKeys)
        #expect(!keys.enforcedBefore)
        #expect(keys.violationsBefore == 0 && keys.violationsAfter == 0)
        #expect(keys.newViolations.isEmpty)
        #expect(try Connection(path: database).integer(sql: "SELECT count(*) FROM child") == 1)
    }

    static func violation(_ table: String, _ parent: String, row: Int64 = 1, constraint: Int = 0) -> ForeignKeySnapshot.Violation {
        ForeignKeySnapshot.Violation(table: table, constraint: constraint, parent: parent, row: .rowid(row))
    }

    static func group(_ table: String, _ parent: String, _ count: Int) -> MigrateReport.ForeignKeyGroup {
        MigrateReport.ForeignKeyGroup(table: table, parent: parent, count: count)
    }

    /// Snapshots whose tables keep their keys and their root pages.
    static func compare(_ before: [ForeignKeySnapshot.Violation], _ after: [ForeignKeySnapshot.Violation],
                        enforced: Bool = false) -> MigrateReport.ForeignKeys {
        func snapshot(_ violations: [ForeignKeySnapshot.Violation]) -> ForeignKeySnapshot {
            let tables = Dictionary(violations.map { ($0.table.lowercased(), ForeignKeySnapshot.TableIdentity(rootPage: 2, hasStableKeys: true)) },
                                    uniquingKeysWith: { first, _ in first })
            return ForeignKeySnapshot(violations: violations, tables: tables)
        }
        return ForeignKeySnapshot.compare(before: snapshot(before), after: snapshot(after), enforced: enforced)
    }

    @Test(arguments: [
        // Nothing before or after.
        ([], [], [], []),
        // Old orphans alone do not count as new.
        ([violation("note", "ticket")], [violation("note", "ticket")], [], [group("note", "ticket", 1)]),
        // More of an existing group: only the extra rows are new.
        ([violation("note", "ticket")],
         [violation("note", "ticket"), violation("note", "ticket", row: 2, constraint: 1), violation("note", "ticket", row: 3),
          violation("comment", "ticket")],
         [group("comment", "ticket", 1), group("note", "ticket", 2)],
         [group("note", "ticket", 1)]),
        // Fewer than before: nothing new.
        ([violation("note", "ticket"), violation("note", "ticket", row: 2)], [violation("note", "ticket")],
         [], [group("note", "ticket", 2)]),
        // One orphan gone and another made: as many as before, and one of them is new.
        ([violation("note", "ticket", row: 1)], [violation("note", "ticket", row: 2)],
         [group("note", "ticket", 1)], [group("note", "ticket", 1)]),
        // The same row breaking another foreign key is a new violation.
        ([violation("note", "ticket", constraint: 0)], [violation("note", "ticket", constraint: 1)],
         [group("note", "ticket", 1)], [group("note", "ticket", 1)]),
        // Same child, another parent: a group of its own.
        ([violation("note", "ticket")], [violation("note", "ticket"), violation("note", "customer", row: 2)],
         [group("note", "customer", 1)], [group("note", "ticket", 1)]),
        // Sorted by table, then parent.
        ([], [violation("b", "z"), violation("a", "y"), violation("b", "x", row: 2)],
         [group("a", "y", 1), group("b", "x", 1), group("b", "z", 1)], []),
    ] as [([ForeignKeySnapshot.Violation], [ForeignKeySnapshot.Violation], [MigrateReport.ForeignKeyGroup], [MigrateReport.ForeignKeyGroup])])
    func compareRowsNewAndExistingViolations(
        before: [ForeignKeySnapshot.Violation], after: [ForeignKeySnapshot.Violation],
        new: [MigrateReport.ForeignKeyGroup], existing: [MigrateReport.ForeignKeyGroup]
    ) {
        let result = Self.compare(before, after)
        #expect(result.newViolations == new)
        #expect(result.newViolationCount == new.reduce(0) { $0 + $1.count })
        #expect(result.existingViolations == existing)
        #expect(result.violationsBefore == before.count)
        #expect(result.violationsAfter == after.count)
        #expect(result.comparedByCount.isEmpty)
    }

    @Test func aTableRebuiltWithoutIntegerPrimaryKeyIsComparedByCount() {
        let before = ForeignKeySnapshot(
            violations: [Self.violation("note", "ticket", row: 5)],
            tables: ["note": .init(rootPage: 3, hasStableKeys: false)])
        // Rebuilt: another root page, the orphan copied under a new rowid.
        let after = ForeignKeySnapshot(
            violations: [Self.violation("note", "ticket", row: 1)],
            tables: ["note": .init(rootPage: 9, hasStableKeys: false)])
        let result = ForeignKeySnapshot.compare(before: before, after: after, enforced: false)
        #expect(result.newViolationCount == 0)
        #expect(result.comparedByCount.map(\.table) == ["note"])
        #expect(result.comparedByCount.first?.reason.contains("INTEGER PRIMARY KEY") == true)

        // Same root page: the rowids are the rows, and row 1 is new.
        let kept = ForeignKeySnapshot(
            violations: [Self.violation("note", "ticket", row: 1)],
            tables: ["note": .init(rootPage: 3, hasStableKeys: false)])
        #expect(ForeignKeySnapshot.compare(before: before, after: kept, enforced: false).newViolationCount == 1)
    }
}

extension Array {
    /// The single element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}

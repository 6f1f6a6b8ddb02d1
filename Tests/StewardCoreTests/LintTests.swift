import Foundation
import SQLiteKit
import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// `steward lint` as a library call: the feature table row by row, each rule, `--min-sqlite`,
/// `--from` and `--sample`, on sets the tests write.
@Suite struct LintTests {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func write(_ files: [String: String]) throws {
        for (name, text) in files { try workspace.writeMigration(name, text) }
    }

    func lint(_ configure: (inout Linter.Options) -> Void = { _ in }) throws -> LintReport {
        var options = Linter.Options(migrationsDirectory: workspace.migrations)
        options.dialect = .steward
        configure(&options)
        return try Linter(options: options).run()
    }

    func rules(_ report: LintReport) -> [String] {
        report.findings.map(\.rule.rawValue)
    }

    // MARK: - The feature table

    /// Each row: a statement that uses the feature, and one that looks alike and does not.
    static let rows: [(id: String, uses: [String], doesNot: [String])] = [
        ("upsert", ["INSERT INTO t(a) VALUES (1) ON CONFLICT(a) DO NOTHING", "INSERT INTO t(a) VALUES (1) ON CONFLICT DO UPDATE SET a = 2"],
         ["CREATE TABLE t(a UNIQUE ON CONFLICT REPLACE)", "INSERT OR REPLACE INTO t(a) VALUES (1)"]),
        ("window-functions", ["SELECT row_number() OVER (ORDER BY a) FROM t", "SELECT sum(a) OVER w FROM t WINDOW w AS (ORDER BY a)"],
         ["SELECT count(*) FROM t -- OVER (x)", "SELECT a AS over FROM t"]),
        ("rename-column", ["ALTER TABLE t RENAME COLUMN a TO b", "ALTER TABLE t RENAME a TO b"], ["ALTER TABLE t RENAME TO u"]),
        ("nulls-first-last", ["SELECT a FROM t ORDER BY a NULLS LAST"], ["SELECT 'NULLS LAST' FROM t ORDER BY a"]),
        ("aggregate-filter", ["SELECT count(*) FILTER (WHERE a > 1) FROM t"], ["SELECT a AS filter FROM t WHERE a > 1"]),
        ("generated-columns", ["CREATE TABLE t(a INT, b INT GENERATED ALWAYS AS (a * 2))", "CREATE TABLE t(a, b AS (a + 1))",
                               "ALTER TABLE t ADD COLUMN c AS (a + 1)"],
         ["CREATE TABLE t AS SELECT 1 AS a", "CREATE TABLE t(a INT CHECK (CAST(a AS INT) > 0))", "SELECT CAST(a AS TEXT) FROM t"]),
        ("iif", ["SELECT iif(a, 1, 2) FROM t"], ["CREATE TABLE iif(a)", "SELECT 'iif(1)' FROM t"]),
        ("fts5-trigram", ["CREATE VIRTUAL TABLE f USING fts5(a, tokenize = 'trigram')",
                          "CREATE VIRTUAL TABLE f USING fts5(a, tokenize=\"trigram case_sensitive 1\")"],
         ["CREATE VIRTUAL TABLE f USING fts5(a, tokenize = 'unicode61 remove_diacritics 2')"]),
        ("drop-column", ["ALTER TABLE t DROP COLUMN a", "ALTER TABLE main.t DROP a"], ["DROP TABLE t", "ALTER TABLE t ADD COLUMN dropped INT"]),
        ("returning", ["INSERT INTO t(a) VALUES (1) RETURNING id", "DELETE FROM t WHERE a = 1 RETURNING *"],
         ["SELECT 'RETURNING' FROM t", "-- RETURNING\nSELECT 1"]),
        ("math-functions", ["SELECT sqrt(a) FROM t", "UPDATE t SET a = ln(a)"], ["CREATE TABLE log(a)", "INSERT INTO log(a) VALUES (1)", "SELECT t.floor FROM t"]),
        ("materialized-cte", ["WITH c AS MATERIALIZED (SELECT 1) SELECT * FROM c", "WITH c AS NOT MATERIALIZED (SELECT 1) SELECT * FROM c"],
         ["WITH c AS (SELECT 1) SELECT * FROM c"]),
        ("strict-tables", ["CREATE TABLE t(a INT) STRICT", "CREATE TABLE t(a INT PRIMARY KEY) WITHOUT ROWID, STRICT"],
         ["CREATE TABLE t(strict INT)", "CREATE TABLE t(a INT) WITHOUT ROWID"]),
        ("json-arrow-operators", ["SELECT a ->> '$.x' FROM t", "SELECT a -> 'x' FROM t"], ["SELECT a - -1 FROM t", "SELECT '->' FROM t"]),
        ("unixepoch", ["SELECT unixepoch('now')"], ["SELECT strftime('%s', 'now')"]),
        ("is-distinct-from", ["SELECT a IS NOT DISTINCT FROM b FROM t", "SELECT a IS DISTINCT FROM b FROM t"],
         ["SELECT DISTINCT a FROM t WHERE a IS NOT NULL"]),
        ("right-full-join", ["SELECT * FROM a RIGHT JOIN b ON 1", "SELECT * FROM a FULL OUTER JOIN b ON 1"], ["SELECT * FROM a LEFT JOIN b ON 1"]),
        ("octet-length-timediff", ["SELECT octet_length(a) FROM t", "SELECT timediff('now', a) FROM t"], ["SELECT length(a) FROM t"]),
        ("concat-string-agg", ["SELECT string_agg(a, ',') FROM t", "SELECT concat_ws('-', a, b) FROM t"], ["SELECT group_concat(a, ',') FROM t"]),
        ("jsonb", ["SELECT jsonb_extract(a, '$.x') FROM t", "SELECT jsonb('{}')"], ["SELECT json_extract(a, '$.x') FROM t"]),
    ]

    @Test func everyRowOfTheTableIsTested() {
        #expect(Set(Self.rows.map(\.id)) == Set(SQLiteFeature.all.map(\.id)))
        for row in Self.rows { #expect(!row.uses.isEmpty && !row.doesNot.isEmpty, "\(row.id)") }
    }

    @Test(arguments: rows.map(\.id))
    func aFeatureIsSeenWhereUsedAndOnlyThere(id: String) throws {
        let feature = try #require(SQLiteFeature.all.first { $0.id == id })
        let row = try #require(Self.rows.first { $0.id == id })
        for sql in row.uses {
            #expect(feature.firstUse(in: SQLScanner.tokens(of: sql), knownFunctions: nil) != nil, "\(id) in: \(sql)")
        }
        for sql in row.doesNot {
            #expect(feature.firstUse(in: SQLScanner.tokens(of: sql), knownFunctions: nil) == nil, "no \(id) in: \(sql)")
        }
    }

    /// The releases the issue names, as SQLite's release history gives them.
    @Test func theReleasesAreTheReleaseHistorys() {
        let expected: [String: String] = [
            "upsert": "3.24.0", "window-functions": "3.25.0", "rename-column": "3.25.0", "generated-columns": "3.31.0",
            "drop-column": "3.35.0", "returning": "3.35.0", "strict-tables": "3.37.0", "json-arrow-operators": "3.38.0",
            "unixepoch": "3.38.0", "iif": "3.32.0", "fts5-trigram": "3.34.0", "is-distinct-from": "3.39.0",
            "math-functions": "3.35.0", "jsonb": "3.45.0",
        ]
        for (id, version) in expected {
            #expect(SQLiteFeature.all.first { $0.id == id }?.version.description == version, "\(id)")
            #expect(SQLiteFeature.all.first { $0.id == id }?.citation.hasPrefix(version) == true, "\(id) cites its release")
        }
    }

    /// A function the linked SQLite does not list is the application's own, not the feature.
    @Test func aFunctionCountsOnlyWhenTheLinkedSQLiteHasIt() throws {
        let feature = try #require(SQLiteFeature.all.first { $0.id == "unixepoch" })
        let tokens = SQLScanner.tokens(of: "SELECT unixepoch('now')")
        #expect(feature.firstUse(in: tokens, knownFunctions: ["unixepoch"]) != nil)
        #expect(feature.firstUse(in: tokens, knownFunctions: ["date"]) == nil)
    }

    @Test func versionsCompareAndRead() {
        #expect(SQLiteVersion("3.35.0")! > SQLiteVersion("3.32.9")!)
        #expect(SQLiteVersion("3.9")! < SQLiteVersion("3.10.0")!)
        #expect(SQLiteVersion("3.x") == nil)
        #expect(SQLiteVersion("3") == nil)
        #expect(SQLiteVersion("3.40.1")?.description == "3.40.1")
    }

    // MARK: - Per statement, per migration, --min-sqlite

    @Test func aSetNeeding335FailsUnder332AndPassesUnder3401() throws {
        try write([
            "0001_t.sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, a TEXT, b TEXT);\n",
            "0002_drop.sql": "-- drops b\n\nALTER TABLE t\n  DROP COLUMN b;\n",
        ])
        let old = try lint { $0.requiredSQLite = SQLiteVersion("3.32.0") }
        #expect(!old.passed)
        let finding = try #require(old.findings.first)
        #expect(finding.rule == .sqliteVersion)
        #expect(finding.location == "0002_drop.sql:4", "the line of DROP, not of the statement's first token")
        #expect(finding.feature == "drop-column")
        #expect(old.minimumSQLite?.description == "3.35.0")
        #expect(old.migrations.map { $0.minimumSQLite?.description } == [nil, "3.35.0"])
        #expect(old.migrations[1].needs.first?.line == 3)

        let new = try lint { $0.requiredSQLite = SQLiteVersion("3.40.1") }
        #expect(new.passed)
        #expect(new.findings.isEmpty)
    }

    @Test func withoutARequiredReleaseFeaturesAreReportedNotFindings() throws {
        try write(["0001_t.sql": "CREATE TABLE t(a INT) STRICT;\nSELECT unixepoch('now');\n"])
        let report = try lint()
        #expect(report.passed)
        #expect(report.minimumSQLite?.description == "3.38.0")
        #expect(report.features.map(\.id) == ["strict-tables", "unixepoch"])
        #expect(report.features.allSatisfy { $0.releaseNotes.hasPrefix("https://sqlite.org/releaselog/3_") })
    }

    // MARK: - Rules

    @Test func aNotNullColumnWithoutADefault() throws {
        try write([
            "0001_t.sql": "CREATE TABLE t(id INTEGER PRIMARY KEY);\n",
            "0002_add.sql": "ALTER TABLE t ADD COLUMN a INT NOT NULL;\n",
            "0003_add.sql": "ALTER TABLE t ADD COLUMN b INT NOT NULL DEFAULT 0;\nALTER TABLE t ADD c TEXT;\n",
        ])
        let report = try lint()
        #expect(rules(report) == ["not-null-without-default"])
        #expect(report.findings.first?.location == "0002_add.sql:1")
    }

    @Test func dropColumnOfAnIndexedColumn() throws {
        try write([
            "0001_t.sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b INT);\nCREATE INDEX t_a ON t(a);\n",
            "0002_drop.sql": "ALTER TABLE t DROP COLUMN b;\nALTER TABLE t DROP COLUMN a;\n",
        ])
        let report = try lint()
        let rule = report.findings.filter { $0.rule == .dropIndexedColumn }
        #expect(rule.map(\.location) == ["0002_drop.sql:2"], "b has no index: no finding on line 1")
        #expect(rule.first?.message.contains("t_a") == true)
        #expect(rules(report).contains("statement-fails"), "SQLite refuses it too")
    }

    static let content = """
        CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT NOT NULL);
        """
    static let search = """
        CREATE VIRTUAL TABLE ticket_fts USING fts5(title, content='ticket', content_rowid='id');
        CREATE TRIGGER ticket_ai AFTER INSERT ON ticket BEGIN
          INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title);
        END;
        CREATE TRIGGER ticket_ad AFTER DELETE ON ticket BEGIN
          INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title);
        END;
        CREATE TRIGGER ticket_au AFTER UPDATE ON ticket BEGIN
          INSERT INTO ticket_fts(ticket_fts, rowid, title) VALUES ('delete', old.id, old.title);
          INSERT INTO ticket_fts(rowid, title) VALUES (new.id, new.title);
        END;

        """

    @Test func anFTS5TableOverATableWithoutARebuild() throws {
        try write(["0001_ticket.sql": Self.content, "0002_search.sql": Self.search])
        let report = try lint()
        #expect(rules(report) == ["fts-content-without-rebuild"])
        #expect(report.findings.first?.file == "0002_search.sql")
    }

    @Test func anFTS5TableOverATableWithItsRebuild() throws {
        try write(["0001_ticket.sql": Self.content, "0002_search.sql": "-- steward: rebuild-fts ticket_fts\n" + Self.search])
        #expect(try lint().findings.isEmpty)
        try write(["0002_search.sql": Self.search + "INSERT INTO ticket_fts(ticket_fts) VALUES ('rebuild');\n"])
        #expect(try lint().findings.isEmpty)
    }

    @Test func aContentTableRebuiltWithoutTheIndexsRebuild() throws {
        let rebuild = """
            CREATE TABLE ticket_new(id INTEGER PRIMARY KEY, title TEXT NOT NULL, body TEXT);
            INSERT INTO ticket_new(id, title) SELECT id, title FROM ticket;
            DROP TABLE ticket;
            ALTER TABLE ticket_new RENAME TO ticket;

            """
        let triggers = Self.search.components(separatedBy: "\n").drop { !$0.hasPrefix("CREATE TRIGGER") }.joined(separator: "\n")
        try write([
            "0001_ticket.sql": Self.content + "\n-- steward: rebuild-fts ticket_fts\n" + Self.search,
            "0002_rebuild.sql": rebuild + triggers,
        ])
        #expect(rules(try lint()) == ["fts-content-without-rebuild"])
        try write(["0002_rebuild.sql": "-- steward: rebuild-fts ticket_fts\n" + rebuild + triggers])
        #expect(try lint().findings.isEmpty)
    }

    @Test func aRebuildThatDoesNotRecreateTheTriggers() throws {
        let rebuild = """
            CREATE TABLE t_new(id INTEGER PRIMARY KEY, a INT);
            INSERT INTO t_new SELECT id, a FROM t;
            DROP TABLE t;
            ALTER TABLE t_new RENAME TO t;

            """
        try write([
            "0001_t.sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT);\nCREATE TABLE audit(n);\nCREATE TRIGGER t_audit AFTER INSERT ON t BEGIN INSERT INTO audit VALUES (1); END;\n",
            "0002_rebuild.sql": rebuild,
        ])
        let report = try lint()
        #expect(rules(report) == ["rebuild-loses-triggers"])
        #expect(report.findings.first?.location == "0002_rebuild.sql:3", "where the DROP TABLE took it")
        try write(["0002_rebuild.sql": rebuild + "CREATE TRIGGER t_audit AFTER INSERT ON t BEGIN INSERT INTO audit VALUES (1); END;\n"])
        #expect(try lint().findings.isEmpty)
    }

    @Test func nonTransactionalStatements() throws {
        try write(["0001_t.sql": "CREATE TABLE t(a);\nVACUUM;\nPRAGMA journal_mode = WAL;\nINSERT INTO t VALUES (1);\n"])
        let report = try lint()
        #expect(report.findings.map { "\($0.rule.rawValue) \($0.location)" } == ["non-transactional 0001_t.sql:2", "non-transactional 0001_t.sql:3"])
        #expect(report.migrations.first?.statements == 2, "the other statements ran")
        try write(["0001_t.sql": "BEGIN;\nCREATE TABLE t(a);\nSAVEPOINT s;\nRELEASE s;\nCOMMIT;\n"])
        #expect(try lint().findings.isEmpty, "a file's outer BEGIN … COMMIT and savepoints run in the transaction")
    }

    // MARK: - Where the scratch database starts

    /// Rows are lost only where there are rows: the sample shows what an empty scratch
    /// database cannot.
    @Test func aSampleShowsRowLossAnEmptyScratchDatabaseCannot() throws {
        try write([
            "0001_t.sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT);\n",
            "0002_keep.sql": "CREATE TABLE t_new(id INTEGER PRIMARY KEY, a INT);\nINSERT INTO t_new SELECT * FROM t WHERE a > 1;\nDROP TABLE t;\nALTER TABLE t_new RENAME TO t;\n",
        ])
        #expect(try lint().findings.isEmpty)

        let sample = workspace.directory.file("sample.db")
        let connection = try Connection(path: sample)
        try connection.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT); INSERT INTO t(a) VALUES (1), (2), (3); PRAGMA user_version = 1;")
        let before = try Data(contentsOf: URL(fileURLWithPath: sample))
        let report = try lint { $0.samplePath = sample }
        #expect(rules(report) == ["row-loss"])
        #expect(report.migrations.map(\.file) == ["0002_keep.sql"], "the sample had 0001 applied")
        #expect(report.migrations.first?.tables.first.map { ($0.rowsBefore, $0.rowsAfter) } ?? (0, nil) == (3, 2))
        #expect(try Data(contentsOf: URL(fileURLWithPath: sample)) == before, "the sample is not written")
    }

    @Test func fromAVersion() throws {
        try write([
            "0001_t.sql": "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT) STRICT;\n",
            "0002_u.sql": "CREATE TABLE u(a);\n",
        ])
        let report = try lint {
            $0.from = RequestedVersion("1")
            $0.requiredSQLite = SQLiteVersion("3.30.0")
        }
        #expect(report.baseMigrations == ["0001_t.sql"])
        #expect(report.migrations.map(\.file) == ["0002_u.sql"])
        #expect(report.passed, "STRICT is in a migration that is not linted")
        #expect(throws: StewardError.self) { try lint { $0.from = RequestedVersion("7") } }
    }

    @Test func aFailingMigrationStopsTheLint() throws {
        try write([
            "0001_t.sql": "CREATE TABLE t(a);\nINSERT INTO nowhere VALUES (1);\n",
            "0002_u.sql": "CREATE TABLE u(a);\n",
        ])
        let report = try lint()
        #expect(rules(report) == ["statement-fails"])
        #expect(report.findings.first?.location == "0001_t.sql:2")
        #expect(report.notLinted == ["0002_u.sql"])
    }

    /// The set is read by migrate's reader in every layout: only up parts run, and lines
    /// are the file's.
    @Test func otherRunnersLayouts() throws {
        try write([
            "00001_t.sql": "-- +goose Up\nCREATE TABLE t(id INTEGER PRIMARY KEY, a INT, b INT);\n\n-- +goose Down\nDROP TABLE t;\n",
            "00002_drop.sql": "-- +goose Up\n-- +goose StatementBegin\nALTER TABLE t DROP COLUMN b;\n-- +goose StatementEnd\n\n-- +goose Down\nALTER TABLE t ADD COLUMN b INT;\n",
        ])
        let goose = try lint {
            $0.dialect = .goose
            $0.requiredSQLite = SQLiteVersion("3.34.0")
        }
        #expect(goose.dialect == .goose)
        #expect(goose.findings.map { "\($0.rule.rawValue) \($0.location)" } == ["sqlite-version 00002_drop.sql:3"])
        #expect(goose.migrations.map(\.statements) == [1, 1], "the down parts do not run")

        let dbmate = try Workspace()
        try dbmate.writeMigration("20240101000000_t.sql", "-- migrate:up\nCREATE TABLE t(a INT);\nVACUUM;\n-- migrate:down\nDROP TABLE t;\n")
        var options = Linter.Options(migrationsDirectory: dbmate.migrations)
        options.dialect = .dbmate
        let report = try Linter(options: options).run()
        #expect(report.findings.map { "\($0.rule.rawValue) \($0.location)" } == ["non-transactional 20240101000000_t.sql:3"])
    }

    @Test func theDemoSetIsClean() throws {
        var options = Linter.Options(migrationsDirectory: Fixtures.repositoryRoot.appendingPathComponent("migrations").path)
        options.requiredSQLite = SQLiteVersion("3.34.1")
        let report = try Linter(options: options).run()
        #expect(report.findings.isEmpty, "\(report.findings.map(\.message))")
        #expect(report.migrations.count == 2)
    }
}

/// The query-plan contract: read strictly, and checked with EXPLAIN QUERY PLAN.
@Suite struct PlanContractTests {
    static let good = """
        {"version": "t/1", "description": "d", "queries": [
          {"name": "by a", "sql": "SELECT id FROM t WHERE a = ?1", "bindings": [7], "uses_index": "t_a"},
          {"name": "by id", "sql": "SELECT a FROM t WHERE id = ?1", "bindings": ["x"], "no_full_scan_of": "t"}
        ]}
        """

    func read(_ text: String) throws -> PlanContract {
        try PlanContract(path: "plans.json", data: Data(text.utf8))
    }

    func message(_ text: String) -> String? {
        do {
            _ = try read(text)
            return nil
        } catch let error as PlanContract.ReadingError {
            return error.message
        } catch {
            return "\(error)"
        }
    }

    @Test func aContractIsReadStrictly() throws {
        let contract = try read(Self.good)
        #expect(contract.queries.map(\.name) == ["by a", "by id"])
        #expect(contract.queries[0].bindings == [.integer(7)])
        #expect(contract.queries[1].expectation == .noFullScanOf("t"))
        #expect(message(Self.good.replacingOccurrences(of: "\"bindings\": [7]", with: "\"bindngs\": [7]"))?.contains("unknown key queries[0].bindngs") == true)
        #expect(message(Self.good.replacingOccurrences(of: "\"description\"", with: "\"descripton\""))?.contains("unknown key descripton") == true)
        #expect(message(Self.good.replacingOccurrences(of: ", \"uses_index\": \"t_a\"", with: ""))?.contains("exactly one of") == true)
        #expect(message(Self.good.replacingOccurrences(of: "[7]", with: "[true]"))?.contains("bindings[0]") == true)
        #expect(message(Self.good.replacingOccurrences(of: "\"by id\"", with: "\"by a\""))?.contains("used twice") == true)
        #expect(message("[]") != nil)
    }

    @Test func plansAreReadFromSQLitesWords() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT); CREATE INDEX t_a ON t(a);")
        let contract = try read(Self.good)
        #expect(contract.check(on: connection).map(\.passed) == [true, true])
        try connection.execute(sql: "DROP INDEX t_a")
        let outcomes = contract.check(on: connection)
        #expect(outcomes.map(\.passed) == [false, true])
        #expect(outcomes[0].failure.contains("plan: SCAN t"), "\(outcomes[0].failure)")
        try connection.execute(sql: "DROP TABLE t")
        #expect(contract.check(on: connection).allSatisfy { !$0.passed && $0.error != nil })
        #expect(!PlanContract.satisfies(["SCAN TABLE t"], .noFullScanOf("t")), "the words before SQLite 3.36")
        #expect(PlanContract.satisfies(["SCAN t USING COVERING INDEX t_a"], .noFullScanOf("t")))
        #expect(PlanContract.satisfies(["SCAN u"], .noFullScanOf("t")))
    }

    @Test func lintFindsTheMigrationThatDropsTheIndex() throws {
        let workspace = try Workspace()
        try workspace.writeMigration("0001_t.sql", "CREATE TABLE t(id INTEGER PRIMARY KEY, a INT);\nCREATE INDEX t_a ON t(a);\n")
        try workspace.writeMigration("0002_u.sql", "CREATE TABLE u(x);\n")
        try workspace.writeMigration("0003_drop.sql", "DROP INDEX t_a;\n")
        let path = workspace.directory.file("plans.json")
        try Self.good.write(toFile: path, atomically: true, encoding: .utf8)
        var options = Linter.Options(migrationsDirectory: workspace.migrations)
        options.dialect = .steward
        options.planContractPath = path
        let report = try Linter(options: options).run()
        #expect(report.findings.map { "\($0.rule.rawValue) \($0.location)" } == ["plan-regression 0003_drop.sql"])
        #expect(report.findings.first?.message.contains("query 'by a' no longer uses the index t_a; plan: SCAN t") == true)
        #expect(report.migrations.map { $0.plans?.map(\.passed) ?? [] } == [[true, true], [true, true], [false, true]])
    }
}

import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `steward verify` on real files: every check passing and failing, the contract, privacy.
@Suite struct VerifyCommandTests {
    let directory: TemporaryDirectory
    var database: String { directory.file("tickets.db") }
    var examples: String { Fixtures.exampleMigrations.path }
    var contract: String { Fixtures.exampleMigrations.appendingPathComponent("ticket-search.contract.json").path }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The example database built by `steward migrate`, with rows added at version 1.
    @discardableResult
    func makeMigratedExample(titles: [String] = ["Printer jammed", "Café au lait", "客户工单搜索"]) throws -> Connection {
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--create", "--to", "1", "--quiet"]).status == 0)
        do {
            let connection = try Connection(path: database)
            for title in titles {
                try connection.execute(sql: "INSERT INTO ticket(title, body) VALUES (?, ?)", bindings: [.text(title), .text("body of \(title)")])
            }
        }
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--quiet"]).status == 0)
        return try Connection(path: database)
    }

    /// A schema comparison that cannot be made, with --migrations given, fails saying why
    /// (a check asked for never ends "skipped"), and is never announced as passed on the
    /// way: the progress line and the report say the same.
    @Test func aSchemaCheckThatCannotRunFailsInTheProgressToo() throws {
        try makeMigratedExample().execute(sql: "PRAGMA user_version = 9")
        let run = try verify(["--db", database, "--migrations", examples, "--json"])
        #expect(run.status == 1)
        let schema = try check(run, "schema")
        #expect(schema["status"] as? String == "fail", "\(run.stdout)")
        #expect((schema["summary"] as? String)?.hasPrefix("cannot run: what is applied cannot be read: database is at version 9") == true, "\(schema)")
        #expect(run.stderr.contains("fail schema ("), "\(run.stderr)")
        #expect(!run.stderr.contains("pass schema ("), "\(run.stderr)")
    }

    func verify(_ arguments: [String]) throws -> StewardRun {
        try StewardProcess.run(["verify"] + arguments)
    }

    func check(_ run: StewardRun, _ name: String) throws -> [String: Any] {
        let checks = try #require(try run.json()["checks"] as? [[String: Any]])
        return try #require(checks.first { $0["name"] as? String == name })
    }

    // MARK: - Passing

    @Test func healthyMigratedExamplePassesEveryCheckAndIsNotModified() throws {
        try makeMigratedExample()
        let before = FileManager.default.contents(atPath: database)
        let reportPath = directory.file("report.json")
        let run = try verify(["--db", database, "--migrations", examples, "--contract", contract, "--report", reportPath, "--json"])
        #expect(run.status == 0, "\(run.stdout)")
        let report = try run.json()
        #expect(report["passed"] as? Bool == true)
        for name in ["sqlite", "integrity", "foreign-keys", "fts-sync", "fts-triggers", "version", "search-contract"] {
            #expect(try check(run, name)["status"] as? String == "pass", "\(name)")
        }
        #expect(try check(run, "assertions")["status"] as? String == "skipped")
        #expect(report["contractVersion"] as? String == "ticket-search/1")
        let ftsTables = try #require((report["database"] as? [String: Any])?["ftsTables"] as? [[String: Any]])
        #expect(ftsTables.first?["tokenize"] as? String == "unicode61 remove_diacritics 2")
        #expect(FileManager.default.contents(atPath: database) == before, "the database is never modified")
        #expect(try directory.contents() == ["report.json", "tickets.db"])
        let written = try JSONSerialization.jsonObject(with: try Data(contentsOf: URL(fileURLWithPath: reportPath))) as? [String: Any]
        #expect(written?["passed"] as? Bool == true)
    }

    @Test func textOutputNamesEveryCheck() throws {
        try makeMigratedExample()
        let run = try verify(["--db", database, "--expect-version", "2"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("Result     PASSED"))
        for name in ["sqlite", "integrity", "foreign-keys", "fts-sync", "fts-triggers", "version"] {
            #expect(run.stdout.contains("  pass    \(name)"), "\(name)")
        }
        #expect(run.stderr.contains("pass integrity"), "progress on stderr")
    }

    @Test func theShippedContractPassesOnItsOwn() throws {
        let run = try verify(["--contract", contract, "--migrations", examples, "--json"])
        #expect(run.status == 0, "\(run.stdout)")
        let cases = try #require(try run.json()["contractCases"] as? [[String: Any]])
        #expect(cases.count >= 20)
        #expect(cases.allSatisfy { $0["passed"] as? Bool == true && $0["agree"] as? Bool == true })
    }

    // MARK: - Failing

    @Test func driftFailsFTSSyncNamingTheTable() throws {
        let connection = try makeMigratedExample()
        try connection.execute(sql: "DROP TRIGGER ticket_fts_after_update")
        try connection.execute(sql: "UPDATE ticket SET title = 'Scanner offline' WHERE id = 1")
        // The drift itself: the index still finds the old title.
        #expect(try connection.rows(sql: "SELECT rowid FROM ticket_fts WHERE ticket_fts MATCH 'printer'") == [[.integer(1)]])
        let run = try verify(["--db", database, "--json"])
        #expect(run.status == 1)
        let sync = try check(run, "fts-sync")
        #expect(sync["status"] as? String == "fail")
        #expect((sync["summary"] as? String)?.contains("ticket_fts") == true)
        #expect(try check(run, "fts-triggers")["status"] as? String == "fail")
        #expect(try run.json()["failedChecks"] as? [String] == ["fts-sync", "fts-triggers"])
    }

    @Test func missingTriggerFailsFTSTriggers() throws {
        let connection = try makeMigratedExample()
        try connection.execute(sql: "DROP TRIGGER ticket_fts_after_delete")
        let run = try verify(["--db", database, "--json"])
        #expect(run.status == 1)
        let triggers = try check(run, "fts-triggers")
        #expect(triggers["status"] as? String == "fail")
        #expect((triggers["details"] as? [String])?.first?.contains("ticket_fts: no delete trigger on ticket") == true)
        #expect(try check(run, "fts-sync")["status"] as? String == "pass", "no drift yet")
    }

    @Test func damagedPageFailsIntegrity() throws {
        let connection = try makeMigratedExample()
        try connection.execute(sql: "CREATE TABLE filler(id INTEGER PRIMARY KEY, payload TEXT)")
        try connection.execute(sql: "WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 2000) INSERT INTO filler(payload) SELECT printf('%0100d', x) FROM n")
        let root = try connection.integer(sql: "SELECT rootpage FROM sqlite_schema WHERE name = 'filler'")
        let pageSize = try connection.integer(sql: "PRAGMA page_size")
        let leaf = try connection.integer(sql: "SELECT max(pageno) FROM (SELECT ? AS pageno)", bindings: [.integer(root)])
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: database))
        // Damage an interior page's cell pointers of the filler table.
        try handle.seek(toOffset: UInt64((leaf - 1) * pageSize + 12))
        handle.write(Data(repeating: 0xEE, count: 64))
        try handle.close()

        let run = try verify(["--db", database, "--json"])
        #expect(run.status == 1)
        let integrity = try check(run, "integrity")
        #expect(integrity["status"] as? String == "fail")
        #expect(((integrity["details"] as? [String]) ?? []).isEmpty == false)
    }

    @Test func foreignKeyViolationFails() throws {
        let connection = try makeMigratedExample()
        try connection.execute(sql: "CREATE TABLE comment(id INTEGER PRIMARY KEY, ticket_id INTEGER REFERENCES ticket(id))")
        try connection.execute(sql: "INSERT INTO comment(ticket_id) VALUES (404), (405)")
        let run = try verify(["--db", database, "--json"])
        #expect(run.status == 1)
        let keys = try check(run, "foreign-keys")
        #expect(keys["status"] as? String == "fail")
        #expect(keys["details"] as? [String] == ["comment → ticket: 2 rows"])
    }

    @Test func wrongVersionFails() throws {
        try makeMigratedExample()
        let run = try verify(["--db", database, "--expect-version", "3", "--json"])
        #expect(run.status == 1)
        #expect(try check(run, "version")["summary"] as? String == "user_version is 2, expected 3")
    }

    @Test func assertionsThatPassAndThatFail() throws {
        try makeMigratedExample()
        let passing = directory.file("pass.sql")
        try """
            -- name: every ticket has a title
            SELECT count(*) = 0 FROM ticket WHERE title = '';
            CREATE TEMP TABLE assertion(ok INTEGER NOT NULL CHECK (ok = 1));
            -- name: search finds the café ticket
            INSERT INTO assertion SELECT count(*) = 1 FROM ticket_fts WHERE ticket_fts MATCH '"cafe"';
            SELECT id > 0 FROM ticket;
            """.write(toFile: passing, atomically: true, encoding: .utf8)
        let ok = try verify(["--db", database, "--assert", passing, "--json"])
        #expect(ok.status == 0, "\(ok.stdout)")
        #expect(try check(ok, "assertions")["summary"] as? String == "all 4 statements passed")

        let failing = directory.file("fail.sql")
        try """
            CREATE TEMP TABLE assertion(ok INTEGER NOT NULL CHECK (ok = 1));
            -- name: nobody searches for zebras
            INSERT INTO assertion SELECT count(*) = 1 FROM ticket_fts WHERE ticket_fts MATCH '"zebra"';

            SELECT id > 1 FROM ticket;
            SELECT * FROM no_such_table;
            """.write(toFile: failing, atomically: true, encoding: .utf8)
        let bad = try verify(["--db", database, "--assert", passing, "--assert", failing, "--json"])
        #expect(bad.status == 1)
        let assertions = try check(bad, "assertions")
        #expect(assertions["status"] as? String == "fail")
        let details = try #require(assertions["details"] as? [String])
        #expect(details.count == 3)
        #expect(details[0].hasPrefix("nobody searches for zebras: violated"))
        #expect(details[1].hasPrefix("fail.sql line 5: the first column is not 1 in 1 of 3 rows"))
        #expect(details[2].hasPrefix("fail.sql line 6:"))
    }

    @Test func forgottenRebuildMakesFreshAndMigratedDisagree() throws {
        let migrations = directory.file("forgot")
        try FileManager.default.createDirectory(atPath: migrations, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: examples + "/0001_create_ticket.sql", toPath: migrations + "/0001_create_ticket.sql")
        let withoutRebuild = try String(contentsOfFile: examples + "/0002_ticket_search.sql", encoding: .utf8)
            .split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.contains("VALUES ('rebuild')") }.joined(separator: "\n")
        try withoutRebuild.write(toFile: migrations + "/0002_ticket_search.sql", atomically: true, encoding: .utf8)

        let run = try verify(["--contract", contract, "--migrations", migrations, "--json"])
        #expect(run.status == 1)
        let report = try run.json()
        let failed = try #require(report["failedCases"] as? [String])
        #expect(failed.contains("diacritics-folded-query"))
        #expect(failed.contains("chinese-whole-run"))
        #expect(!failed.contains("empty-input"), "policy cases run no query and still agree")
        let summary = try check(run, "search-contract")["details"] as? [String]
        #expect(summary?.first?.hasPrefix("fresh and migrated databases disagree on: ") == true)
    }

    @Test func lockHeldPastTimeoutExits75() throws {
        try makeMigratedExample()
        let holder = try Connection(path: database)
        try holder.execute(sql: "BEGIN EXCLUSIVE")
        defer { holder.rollbackIfNeeded() }
        let started = Date()
        let run = try verify(["--db", database, "--timeout", "1"])
        #expect(run.status == 75, "\(run.stderr)")
        #expect(Date().timeIntervalSince(started) < 3)
        holder.rollbackIfNeeded()
        #expect(try verify(["--db", database, "--timeout", "1"]).status == 0)
    }

    // MARK: - Bad input

    /// A fixture that says something other than its author meant is refused (65) before
    /// anything runs, naming the key by its JSON path, never run with the key ignored.
    @Test(arguments: [
        ("limt", "unknown key cases[1].limt (expected one of name, steps, query, mode, limit, offset, expect, expect_rejection, expect_error)"),
        ("mode", "bad value at cases[1].mode: 'fuzzy' (expected one of literal, prefix, syntax)"),
        ("limit", "bad number at cases[1].limit: 2.5 is not a whole number"),
    ])
    func aMisspelledContractIsRefusedNamingTheKey(_ key: String, _ reason: String) throws {
        var object = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: contract))) as? [String: Any])
        var cases = try #require(object["cases"] as? [[String: Any]])
        cases[1][key] = key == "mode" ? "fuzzy" : (key == "limit" ? 2.5 : 2)
        object["cases"] = cases
        let path = directory.file("misspelled.json")
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        let run = try verify(["--contract", path, "--migrations", examples, "--json"])
        #expect(run.status == 65, "\(run.stdout)")
        #expect(run.stderr == "Error: malformed contract \(path): \(reason)\n", "\(run.stderr)")
        #expect(try run.json()["status"] as? String == "error")
    }

    @Test func badInputs() throws {
        try makeMigratedExample()
        let missing = try verify(["--db", directory.file("nope.db")])
        #expect(missing.status == 66)
        let text = directory.file("text.db")
        try "not a database".write(toFile: text, atomically: true, encoding: .utf8)
        #expect(try verify(["--db", text]).status == 65)
        let malformed = directory.file("bad.json")
        try "{\"version\": \"x\"}".write(toFile: malformed, atomically: true, encoding: .utf8)
        let run = try verify(["--contract", malformed, "--migrations", examples])
        #expect(run.status == 65)
        #expect(run.stderr.contains("malformed contract"))
        #expect(try verify(["--contract", contract]).status == 64)
        #expect(try verify([]).status == 64)
        let unfinished = directory.file("open.sql")
        try "SELECT 'unterminated".write(toFile: unfinished, atomically: true, encoding: .utf8)
        #expect(try verify(["--db", database, "--assert", unfinished]).status == 65)
        #expect(try verify(["--db", database, "--assert", directory.file("none.sql")]).status == 66)
    }

    @Test func rowDataAndQueryTextNeverAppear() throws {
        let marker = "zq-secret-\(UUID().uuidString.prefix(8))"
        let connection = try makeMigratedExample(titles: ["\(marker) printer", "another \(marker)"])
        // Drift and a failing assertion, so that failure paths print too.
        try connection.execute(sql: "DROP TRIGGER ticket_fts_after_update")
        try connection.execute(sql: "UPDATE ticket SET body = ? WHERE id = 1", bindings: [.text(marker)])
        let assertions = directory.file("a.sql")
        try "SELECT title <> '' AND 0 FROM ticket;\n".write(toFile: assertions, atomically: true, encoding: .utf8)
        for arguments in [["--db", database, "--assert", assertions], ["--db", database, "--assert", assertions, "--json"]] {
            let run = try verify(arguments)
            #expect(run.status == 1)
            #expect(!run.allOutput.contains(marker))
            #expect(!run.allOutput.contains("zq-secret"))
        }
        let contractRun = try verify(["--contract", contract, "--migrations", examples, "--json"])
        #expect(!contractRun.allOutput.contains("Café"), "no fixture text either")
        #expect(!contractRun.allOutput.contains("客户"))
    }

    @Test func assertionErrorsNeverQuoteRowData() throws {
        let database = directory.file("tickets.db")
        #expect(try StewardProcess.run(["migrate", "--db", database, "--migrations", examples, "--create", "--quiet"]).status == 0)
        let marker = "ZQSECRET\(UUID().uuidString.prefix(6).filter(\.isLetter))"
        try Connection(path: database).execute(sql: "INSERT INTO ticket(title) VALUES (?)", bindings: [.text("\(marker): secret words")])
        let assertions = directory.file("a.sql")
        // The title becomes an FTS5 query: its parse error would name the "column".
        try "-- name: every title is searchable\nSELECT count(*) >= 0 FROM ticket_fts WHERE ticket_fts MATCH (SELECT title FROM ticket LIMIT 1);\n"
            .write(toFile: assertions, atomically: true, encoding: .utf8)
        let report = directory.file("report.json")
        let run = try StewardProcess.run(["verify", "--db", database, "--assert", assertions, "--report", report, "--json"])
        #expect(run.status == 1)
        #expect(!run.allOutput.contains(marker))
        let written = try String(contentsOfFile: report, encoding: .utf8)
        #expect(!written.contains(marker))
        #expect(written.contains("every title is searchable"))
    }
}

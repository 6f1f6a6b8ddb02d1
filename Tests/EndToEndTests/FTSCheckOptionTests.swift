import Foundation
import SQLiteKit
import Testing
import TestSupport

/// `--fts-check` and `--fts-workers` (issue 33): the parallel check is the default and
/// says so, FTS5's own statement is there on request, tables the parallel check cannot
/// prove are named with the reason, a drift reads the same either way, and options that
/// cannot go together are refused.
@Suite struct FTSCheckOptionTests {
    let directory: TemporaryDirectory
    var database: String { directory.file("x.db") }

    init() throws {
        directory = try TemporaryDirectory()
        // Small pages, so that the index has the leaves the parallel check takes on (below
        // `FTS5SyncDigest.minimumLeaves`, FTS5's statement is quicker and checks it).
        let connection = try Fixtures.makeExampleDatabase(at: database, titles: (0..<200).map { "Ticket \($0): printer \($0 % 7) jammed on floor \($0 % 3)" })
        try connection.execute(sql: "INSERT INTO ticket_fts(ticket_fts, rank) VALUES ('pgsz', 64); INSERT INTO ticket_fts(ticket_fts) VALUES ('rebuild')")
        #expect(try connection.integer(sql: "SELECT count(*) FROM ticket_fts_data") > 100)
    }

    func ftsSync(_ run: StewardRun) throws -> [String: Any] {
        try ftsSync(json: run.stdout)
    }

    /// The fts-sync check of one JSON report.
    func ftsSync(json: String) throws -> [String: Any] {
        let report = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], "\(json)")
        let checks = try #require(report["checks"] as? [[String: Any]])
        return try #require(checks.first { $0["name"] as? String == "fts-sync" })
    }

    @Test func theParallelCheckIsTheDefaultAndSaysSo() throws {
        let run = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try ftsSync(run)["summary"] as? String == "FTS5 integrity-check passed for ticket_fts" + Fixtures.parallelCheckSuffix)
        let one = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet", "--fts-workers", "1"])
        #expect(one.status == 0)
        #expect(try ftsSync(one)["summary"] as? String == "FTS5 integrity-check passed for ticket_fts (Steward's parallel check, 1 worker)")
    }

    /// A small index (the example database's) is FTS5's statement's: quicker there.
    @Test func aSmallIndexIsCheckedByFTS5sStatement() throws {
        let small = directory.file("small.db")
        try Fixtures.makeExampleDatabase(at: small)
        let run = try StewardProcess.run(["verify", "--db", small, "--json", "--quiet"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try ftsSync(run)["summary"] as? String == "FTS5 integrity-check passed for ticket_fts")
    }

    @Test func fts5sOwnStatementOnRequest() throws {
        let run = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet", "--fts-check", "sqlite"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try ftsSync(run)["summary"] as? String == "FTS5 integrity-check passed for ticket_fts")
    }

    /// The same drift, found by either check, is worded by FTS5's statement: the parallel
    /// check hands what it finds to it.
    @Test(arguments: ["parallel", "sqlite"])
    func aDriftReadsTheSameEitherWay(method: String) throws {
        let connection = try Connection(path: database)
        try connection.execute(sql: "DROP TRIGGER ticket_fts_after_update; UPDATE ticket SET body = 'changed behind the index' WHERE id = 3")
        let run = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet", "--fts-check", method])
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let sync = try ftsSync(run)
        #expect(sync["status"] as? String == "fail")
        #expect(sync["summary"] as? String == "full-text check failed: ticket_fts (drift from ticket)")
        #expect(((sync["details"] as? [String]) ?? []).contains { $0.hasPrefix("ticket_fts: the index is out of step with its content table ticket (drift") })
        #expect(!run.stdout.contains("changed behind"), "no row data")
    }

    @Test func aTableTheParallelCheckCannotProveIsNamedWithTheReason() throws {
        let connection = try Connection(path: database)
        try connection.execute(sql: """
            CREATE VIRTUAL TABLE tag_fts USING fts5(name, prefix='2 3', detail=column);
            INSERT INTO tag_fts(name) VALUES ('printer'), ('paper tray');
            CREATE VIRTUAL TABLE note_fts USING fts5(body, content='');
            INSERT INTO note_fts(rowid, body) VALUES (1, 'a note');
            """)
        let run = try StewardProcess.run(["verify", "--db", database, "--json", "--quiet"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let sync = try ftsSync(run)
        let details = (sync["details"] as? [String]) ?? []
        #expect(details.contains("tag_fts: checked by FTS5's own integrity-check, not Steward's parallel check: prefix indexes with detail=column: their entries cannot be read through fts5vocab"), "\(details)")
        #expect(details.contains { $0.hasPrefix("note_fts: checked by FTS5's own integrity-check, not Steward's parallel check: contentless") }, "\(details)")
        #expect((sync["summary"] as? String)?.contains("(Steward's parallel check for 1 of 3 tables,") == true, "\(sync["summary"] ?? "")")
    }

    @Test(arguments: [
        (["verify", "--db", "x.db", "--fts-check", "sqlite", "--fts-workers", "2"], "'--fts-workers' goes with the parallel check"),
        (["verify", "--db", "x.db", "--fts-check", "fast"], "parallel or sqlite"),
        (["verify", "--db", "x.db", "--fts-workers", "0"], "--fts-workers"),
        (["restore", "b.steward", "--into", "out", "--skip-fts-check", "--fts-check", "sqlite"], "'--skip-fts-check' runs no FTS5 check"),
        (["migrate", "--db", "x.db", "--migrations", "m", "--fts-workers", "2"], "--fts-workers"),
    ])
    func optionsThatCannotGoTogetherAreRefused(arguments: [String], message: String) throws {
        let run = try StewardProcess.run(arguments, currentDirectory: directory.path)
        #expect(run.status == 64, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains(message), "\(run.stderr)")
    }

    /// Over many databases at a time each database's check gets its share of the cores:
    /// the cores divided by --jobs, at least one (1,024 jobs: one worker on any machine).
    @Test func overManyDatabasesEachCheckGetsItsShareOfTheCores() throws {
        let second = directory.file("y.db")
        try FileManager.default.copyItem(atPath: database, toPath: second)
        let run = try StewardProcess.run(["verify", "--db", database, "--db", second, "--jobs", "1024", "--json", "--quiet"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let lines = run.stdout.split(separator: "\n").dropLast()
        #expect(lines.count == 2)
        for line in lines {
            let sync = try ftsSync(json: String(line))
            #expect(sync["summary"] as? String == "FTS5 integrity-check passed for ticket_fts (Steward's parallel check, 1 worker)")
        }
    }

    /// restore proves the staged file's FTS5 tables with the parallel check, and the
    /// bundle's own record of backup's check says the same.
    @Test func restoreUsesTheParallelCheck() throws {
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        #expect(try StewardProcess.run(["backup", "--db", database, "--out", out, "--name", "x.tar.zst", "--quiet"]).status == 0)
        let run = try StewardProcess.run(["restore", directory.file("out/x.tar.zst"), "--into", directory.file("restored"), "--json", "--quiet"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(try ftsSync(run)["summary"] as? String
                == "FTS5 integrity-check (rank 1) passed for 1 table: ticket_fts" + Fixtures.parallelCheckSuffix)
        let sqlite = try StewardProcess.run(["restore", directory.file("out/x.tar.zst"), "--into", directory.file("restored2"), "--json", "--quiet",
                                             "--fts-check", "sqlite"])
        #expect(sqlite.status == 0, "\(sqlite.stdout)\(sqlite.stderr)")
        #expect(try ftsSync(sqlite)["summary"] as? String == "FTS5 integrity-check (rank 1) passed for 1 table: ticket_fts")
    }

    /// backup proves the snapshot's FTS5 tables with the parallel check too, and refuses
    /// to publish a drifted one as before.
    @Test func backupUsesTheParallelCheck() throws {
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: directory.file("out2"), withIntermediateDirectories: true)
        let run = try StewardProcess.run(["backup", "--db", database, "--out", out, "--json", "--quiet"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("Steward's parallel check"), "\(run.stdout)")
        let connection = try Connection(path: database)
        try connection.execute(sql: "DROP TRIGGER ticket_fts_after_delete; DELETE FROM ticket WHERE id = 5")
        let drifted = try StewardProcess.run(["backup", "--db", database, "--out", directory.file("out2"), "--json", "--quiet"])
        #expect(drifted.status == 1, "\(drifted.stdout)\(drifted.stderr)")
        #expect(drifted.stdout.contains("ticket_fts"), "\(drifted.stdout)")
    }
}

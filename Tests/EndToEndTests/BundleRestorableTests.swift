import Foundation
import SQLiteKit
import Testing
import TestSupport

/// A bundle Steward publishes must restore with Steward (issue 25 item 5): backup and
/// restore check the same things by the same functions. A legacy header whose page count
/// is 0 is a valid database; a database a newer SQLite wrote (an FTS5 option SQLite 3.40
/// lacks), an FTS5 index that drifted and a table that cannot be read are refused by
/// backup, as restore refuses them; a view that fails on its rows passes both.
@Suite struct BundleRestorableTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(making: [.bundles]) }

    func check(_ run: StewardRun, _ name: String) throws -> [String: Any] { try #require(try run.check(name), "\(run.stdout)") }

    func backup(_ path: String, name: String) throws -> StewardRun {
        try StewardProcess.run(["backup", "--db", path, "--out", bundles, "--name", name, "--json"])
    }

    func drill(_ name: String) throws -> StewardRun {
        try StewardProcess.run(["restore", bundles + "/" + name, "--check-only", "--json"])
    }

    // MARK: - Legacy headers

    /// Bytes 28-31 (the in-header page count) and 92-95 (version-valid-for) zeroed, as SQLite
    /// before 3.7.0 and some tools leave them: SQLite counts the pages from the file's size.
    func makeLegacyHeader(at path: String) throws {
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            CREATE TABLE place(id INTEGER PRIMARY KEY, name TEXT NOT NULL);
            INSERT INTO place(name) VALUES ('harbour'), ('lighthouse');
            """)
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: 28)
        try handle.write(contentsOf: Data(repeating: 0, count: 4))
        try handle.seek(toOffset: 92)
        try handle.write(contentsOf: Data(repeating: 0, count: 8))
    }

    @Test func aLegacyHeaderWithPageCountZeroRoundTrips() throws {
        let path = directory.file("legacy.sqlite")
        try makeLegacyHeader(at: path)
        let header = try DatabaseHeader(bytes: Array(try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100)))
        #expect(!header.isPageCountValid && header.pageCount == 0)
        #expect(try Connection(path: path).integer(sql: "SELECT count(*) FROM place") == 2, "SQLite reads it")

        let made = try backup(path, name: "legacy.tar.zst")
        #expect(made.status == 0, "\(made.allOutput)")
        #expect(try check(made, "payload-size")["status"] as? String == "pass")
        let run = try drill("legacy.tar.zst")
        #expect(run.status == 0, "\(run.stdout)")
        let size = try check(run, "payload-size")
        #expect((size["summary"] as? String)?.contains("the header keeps no valid page count") == true, "\(size)")
    }

    /// The header's count cannot say where the pages end, but the manifest can: a payload
    /// with more pages than the manifest records is still refused before SQLite opens it.
    @Test func aLegacyPayloadLongerThanTheManifestSaysIsRefused() throws {
        let path = directory.file("legacy.sqlite")
        try makeLegacyHeader(at: path)
        #expect(try backup(path, name: "legacy.tar.zst").status == 0)
        var parts = try BundleParts(reading: bundles + "/legacy.tar.zst")
        try parts.replacePayload(with: parts.payload + [UInt8](repeating: 0, count: 4096 * 4))
        try parts.bundle(to: bundles + "/padded.tar.zst")
        let run = try drill("padded.tar.zst")
        #expect(run.status == 1, "\(run.stdout)")
        #expect(try check(run, "payload-size")["status"] as? String == "fail")
        #expect(try run.json()["failedChecks"] as? [String] == ["payload-size"])
    }

    /// A real GeoPackage sample (GDAL's, copied from ngageoint/geopackage-js): page count 0
    /// in its header, and triggers that call GDAL's own functions.
    @Test func theRealGeoPackageSampleRoundTrips() throws {
        let path = directory.file("gdal_sample.gpkg")
        try FileManager.default.copyItem(
            atPath: Fixtures.repositoryRoot.appendingPathComponent("Tests/Fixtures/third_party/realworld/gdal_sample.gpkg").path, toPath: path)
        let made = try backup(path, name: "gpkg.tar.zst")
        #expect(made.status == 0, "\(made.allOutput)")
        let run = try drill("gpkg.tar.zst")
        #expect(run.status == 0, "\(run.stdout)")
        let objects = try check(run, "schema-objects")
        #expect(objects["status"] as? String == "pass")
        #expect((objects["details"] as? [String])?.first?.contains("no such function: ST_IsEmpty") == true, "\(objects)")
        let verified = try StewardProcess.run(["verify", "--db", path, "--json"])
        #expect(verified.status == 0, "\(verified.stdout)")
    }

    // MARK: - Views, tables and full-text indexes

    /// A view that fails on the rows it reads (a JSON function over text that is no JSON)
    /// says nothing about the file, and fails on the source alike: both ends prepare it,
    /// neither runs it. Restore used to count every view's rows and refused such a bundle.
    @Test func aViewThatFailsOnItsRowsIsPreparedNotRunAtBothEnds() throws {
        let path = directory.file("documents.sqlite")
        try Connection(path: path).execute(sql: """
            CREATE TABLE document(id INTEGER PRIMARY KEY, body TEXT);
            INSERT INTO document(body) VALUES ('{"kind": "invoice"}'), ('not json');
            CREATE VIEW invoice AS SELECT id FROM document WHERE json_extract(body, '$.kind') = 'invoice';
            """)
        let made = try backup(path, name: "documents.tar.zst")
        #expect(made.status == 0, "\(made.allOutput)")
        let run = try drill("documents.tar.zst")
        #expect(run.status == 0, "\(run.stdout)")
        #expect(try check(made, "tables")["summary"] as? String == "1 table read (2 rows counted)")
        #expect(try check(run, "tables")["summary"] as? String == "1 table read (2 rows counted)")
        #expect(try check(run, "schema-objects")["summary"] as? String == "1 view, 0 triggers and 0 virtual tables prepare on SQLite \(SQLiteLibrary.version)")
        let tables = try #require(try run.json()["tables"] as? [[String: Any]])
        #expect(tables.compactMap { $0["name"] as? String } == ["document"], "views are not counted: \(tables)")
    }

    /// Restore refuses an external-content FTS5 index that drifted from its table (its
    /// full-text check runs by default), so backup runs that check by default too and does
    /// not publish it; `--as-is` bundles it with the failure recorded.
    @Test func anFTS5IndexThatDriftedIsRefusedByBackupAsByRestore() throws {
        let path = directory.file("tickets.sqlite")
        let connection = try Fixtures.makeExampleDatabase(at: path)
        try connection.execute(sql: "DROP TRIGGER ticket_fts_after_update; UPDATE ticket SET title = 'Toner low' WHERE id = 1")
        let refused = try backup(path, name: "tickets.tar.zst")
        #expect(refused.status == 1, "\(refused.allOutput)")
        #expect(refused.stderr.contains("full-text integrity-check: ticket_fts: the index is out of step with its content table ticket"),
                "\(refused.stderr)")
        #expect(try directory.contents(of: "bundles").isEmpty, "nothing is published")

        let kept = try StewardProcess.run(["backup", "--db", path, "--out", bundles, "--name", "tickets-as-is.tar.zst", "--as-is", "--json"])
        #expect(kept.status == 0, "\(kept.allOutput)")
        #expect(try kept.json()["failedChecks"] as? [String] == ["fts-sync"])
        let run = try drill("tickets-as-is.tar.zst")
        #expect(run.status == 1, "\(run.stdout)")
        #expect(try run.json()["failedChecks"] as? [String] == ["fts-sync"])
        let accepted = try StewardProcess.run(
            ["restore", bundles + "/tickets-as-is.tar.zst", "--check-only", "--accept-recorded-failures", "--json"])
        #expect(accepted.status == 0, "\(accepted.stdout)")
    }

    /// An FTS4 table whose content table is gone passes integrity_check, schema-objects (it
    /// prepares) and its full-text check (its index is read in full), and cannot be read:
    /// restore's `tables` refuses it, and backup runs that same check.
    @Test func anFTS4TableWithoutItsContentTableIsRefusedByBackupAsByRestore() throws {
        let path = directory.file("notes.sqlite")
        try Connection(path: path).execute(sql: """
            CREATE TABLE note(body TEXT);
            CREATE VIRTUAL TABLE note_fts USING fts4(content='note', body);
            INSERT INTO note VALUES ('harbour lights');
            INSERT INTO note_fts(note_fts) VALUES ('rebuild');
            DROP TABLE note;
            """)
        let refused = try backup(path, name: "notes.tar.zst")
        #expect(refused.status == 1, "\(refused.allOutput)")
        #expect(refused.stderr.contains("tables: 1 of 5 tables cannot be read: note_fts: SQL logic error (SQLite error 1)"),
                "\(refused.stderr)")
        #expect(try directory.contents(of: "bundles").isEmpty, "nothing is published")
    }

    // MARK: - Databases from a newer SQLite

    /// FTS5 tables declared with options SQLite 3.40 lacks, written by pip's pysqlite3
    /// (a newer SQLite), each with its option and the version that introduced it.
    static let newerOptions: [(option: String, declaration: String, version: String)] = [
        ("contentless_delete", "fts5(body, content='', contentless_delete=1)", "3.43.0"),
        ("tokendata", "fts5(body, tokendata=1)", "3.45.0"),
        ("trigram remove_diacritics", "fts5(body, tokenize='trigram remove_diacritics 1')", "3.45.0"),
        ("locale", "fts5(body, locale=1)", "3.47.0"),
        ("contentless_unindexed", "fts5(body, note UNINDEXED, content='', contentless_unindexed=1)", "3.47.0"),
    ]

    static var newerSQLiteAvailable: Bool { RealWorldDigestTests.otherSQLitePython != nil }

    /// Writes a database with the newer SQLite; throws when that SQLite lacks the option
    /// too (it is then named in the test's failure).
    func makeWithNewerSQLite(_ declaration: String, at path: String) throws {
        let python = try #require(RealWorldDigestTests.otherSQLitePython)
        let script = """
            import pysqlite3, sys
            c = pysqlite3.connect(sys.argv[1])
            c.execute("CREATE TABLE note_source(id INTEGER PRIMARY KEY, body TEXT)")
            c.execute("CREATE VIRTUAL TABLE note_fts USING " + sys.argv[2])
            c.execute("INSERT INTO note_source(body) VALUES ('harbour lights')")
            c.commit()
            print(pysqlite3.sqlite_version)
            """
        let made = try systemTool([python, "-c", script, path, declaration])
        try #require(made.status == 0, "pysqlite3's SQLite cannot create \(declaration): \(made.output)")
    }

    @Test(.enabled(if: newerSQLiteAvailable, "needs pip's pysqlite3-binary (scripts/install-deps.sh installs it)"),
          arguments: newerOptions.map(\.option))
    func backupRefusesWhatRestoreRefuses(_ option: String) throws {
        let entry = try #require(Self.newerOptions.first { $0.option == option })
        let path = directory.file("newer.sqlite")
        try makeWithNewerSQLite(entry.declaration, at: path)
        let run = try backup(path, name: "newer.tar.zst")
        #expect(run.status == 1, "\(run.allOutput)")
        #expect(run.stderr.contains("refusing to publish"), "\(run.stderr)")
        #expect(run.stderr.contains("schema-objects"), "\(run.stderr)")
        #expect(try directory.contents(of: "bundles").isEmpty, "nothing is published")
    }

    /// Item 6: the option and the SQLite that introduced it are named, and the file is
    /// said to need a newer SQLite, never that an extension's module is missing.
    @Test(.enabled(if: newerSQLiteAvailable, "needs pip's pysqlite3-binary (scripts/install-deps.sh installs it)"),
          arguments: newerOptions.map(\.option))
    func theOptionAndItsReleaseAreNamed(_ option: String) throws {
        let entry = try #require(Self.newerOptions.first { $0.option == option })
        let path = directory.file("newer.sqlite")
        try makeWithNewerSQLite(entry.declaration, at: path)
        let name = String(option.split(separator: " ").last ?? "")
        let wording = "\(name) came with SQLite \(entry.version) (https://sqlite.org/"
        let needs = "this file needs SQLite \(entry.version) or later, and the SQLite linked is \(SQLiteLibrary.version)"

        let verify = try StewardProcess.run(["verify", "--db", path])
        #expect(verify.status == 1)
        #expect(verify.stdout.contains("virtual table note_fts: "), "\(verify.stdout)")
        #expect(verify.stdout.contains(wording) && verify.stdout.contains(needs), "\(verify.stdout)")
        #expect(!verify.stdout.contains("--load-extension"), "\(verify.stdout)")
        let json = try StewardProcess.run(["verify", "--db", path, "--json"])
        let line = try #require((try check(json, "schema-objects")["details"] as? [String])?.first)
        #expect(line.hasPrefix("virtual table note_fts: ") && line.contains(wording) && line.hasSuffix(needs), "\(line)")
        let backup = try backup(path, name: "newer.tar.zst")
        #expect(backup.stderr.contains(wording) && backup.stderr.contains(needs), "\(backup.stderr)")
        #expect(!backup.stderr.contains("--load-extension"), "\(backup.stderr)")
    }

    /// A view or trigger that calls a function a newer SQLite brought is named the same
    /// way; a trigger's unknown function is not taken for the application's own then.
    @Test(.enabled(if: newerSQLiteAvailable, "needs pip's pysqlite3-binary (scripts/install-deps.sh installs it)"))
    func aNewerFunctionIsNamedWithItsRelease() throws {
        let python = try #require(RealWorldDigestTests.otherSQLitePython)
        let path = directory.file("functions.sqlite")
        let schema = [
            "CREATE TABLE person(id INTEGER PRIMARY KEY, first TEXT, last TEXT)",
            "CREATE TABLE person_log(line TEXT)",
            "CREATE VIEW person_name AS SELECT id, concat_ws(' ', first, last) AS name FROM person",
            "CREATE TRIGGER person_logged AFTER INSERT ON person BEGIN INSERT INTO person_log VALUES (concat(new.first, new.last)); END",
        ]
        let script = "import pysqlite3, sys\nc = pysqlite3.connect(sys.argv[1])\nfor s in sys.argv[2:]: c.execute(s)\nc.commit()\n"
        let made = try systemTool([python, "-c", script, path] + schema)
        try #require(made.status == 0, "\(made.output)")
        let run = try StewardProcess.run(["verify", "--db", path, "--json"])
        #expect(run.status == 1, "\(run.stdout)")
        let objects = try check(run, "schema-objects")
        let needs = "this file needs SQLite 3.44.0 or later, and the SQLite linked is \(SQLiteLibrary.version)"
        let log = "(https://sqlite.org/releaselog/3_44_0.html)"
        #expect(objects["details"] as? [String] == [
            "view person_name: no such function: concat_ws: the SQL function concat_ws() came with SQLite 3.44.0 \(log); \(needs)",
            "trigger person_logged: no such function: concat: the SQL function concat() came with SQLite 3.44.0 \(log); \(needs)",
        ], "\(objects)")
    }
}

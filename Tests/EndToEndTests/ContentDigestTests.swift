import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Content digests: `inspect --digest`, the manifest's `contentDigests`, and
/// `restore`'s comparison, checked against an independent implementation in Python
/// (scripts/content-digest.py: Python's sqlite3 and hashlib).
@Suite struct ContentDigestTests {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory()
    }

    static var python: String? {
        ["/usr/bin/python3", "/usr/local/bin/python3"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Every storage class, negative and large integers, -0.0 and NaN-free reals, empty text
    /// and blobs, text that is not valid UTF-8, a WITHOUT ROWID table, an FTS5 table (its
    /// shadow tables skipped), an AUTOINCREMENT table (sqlite_sequence skipped).
    func makeFixture(_ name: String, pageSize: Int = 4096) throws -> String {
        let path = directory.file(name)
        let connection = try Connection(path: path)
        try connection.execute(sql: """
            PRAGMA page_size = \(pageSize);
            CREATE TABLE customer(id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT, balance REAL, photo BLOB, note);
            INSERT INTO customer(name, balance, photo, note) VALUES
              ('Ada', 12.5, x'00ff10', NULL), ('Café 客户', -0.0, x'', ''), (NULL, 1e300, NULL, 9223372036854775807),
              ('', -2.25, zeroblob(3000), -9223372036854775808), (CAST(x'ff00fe' AS TEXT), 0.1, x'0102', 42);
            CREATE TABLE setting(key TEXT PRIMARY KEY, value, rank INTEGER) WITHOUT ROWID;
            INSERT INTO setting VALUES ('zeta', 1, 3), ('alpha', 'x', 1), ('mid', NULL, 2);
            CREATE TABLE "odd ""x"" name"(rowid_like INTEGER, payload);
            INSERT INTO "odd ""x"" name"(rowid, rowid_like, payload) VALUES (10, 1, 'b'), (5, 2, 'a');
            CREATE VIRTUAL TABLE doc USING fts5(title, body);
            INSERT INTO doc VALUES ('hello', 'world'), ('printer', 'on fire');
            CREATE INDEX customer_name ON customer(name);
            """)
        for index in 0..<300 {
            try connection.execute(sql: "INSERT INTO customer(name, balance, photo) VALUES (?, ?, ?)",
                                   bindings: [.text("customer \(index)"), .real(Double(index) / 7),
                                              .blob((0..<200).map { UInt8(truncatingIfNeeded: $0 * 31 + index) })])
        }
        return path
    }

    func stewardDigests(_ path: String, identity: String? = nil) throws -> [String: Any] {
        try Self.stewardDigests(path, identity: identity)
    }

    /// What `steward inspect --digest` computes for `path`.
    static func stewardDigests(_ path: String, identity: String? = nil) throws -> [String: Any] {
        let run = try StewardProcess.run(["inspect", "--digest", path, "--json"] + (identity.map { ["--identity", $0] } ?? []))
        try #require(run.status == 0, "\(run.stderr)")
        return try #require(try run.json()["contentDigests"] as? [String: Any])
    }

    func pythonDigests(_ path: String) throws -> [String: Any] {
        try Self.pythonDigests(path)
    }

    /// What the independent implementation (scripts/content-digest.py) computes for `path`.
    static func pythonDigests(_ path: String) throws -> [String: Any] {
        let python = try #require(python)
        let script = Fixtures.repositoryRoot.appendingPathComponent("scripts/content-digest.py").path
        let run = try systemTool([python, script, path])
        try #require(run.status == 0, "\(run.output)")
        let object = try JSONSerialization.jsonObject(with: Data(run.output.utf8))
        return try #require(object as? [String: Any])
    }

    /// The comparable part: schema, and name/rows/sha256 per table.
    func essence(_ digests: [String: Any]) -> String { Self.essence(digests) }

    static func essence(_ digests: [String: Any]) -> String {
        let tables = (digests["tables"] as? [[String: Any]] ?? []).map { table in
            "\(table["name"] ?? "")|\(table["rows"] ?? "")|\(table["sha256"] ?? "")"
        }
        return "\(digests["schema"] ?? "")\n" + tables.joined(separator: "\n")
    }

    @Test(.enabled(if: ContentDigestTests.python != nil, "needs python3 (scripts/install-deps.sh installs it)"))
    func stewardAgreesWithAnIndependentImplementation() throws {
        let path = try makeFixture("fixture.db")
        let mine = try stewardDigests(path)
        let theirs = try pythonDigests(path)
        #expect(essence(mine) == essence(theirs))
        #expect(mine["algorithm"] as? String == "sha256-sha3sum-v2")
        let names = (mine["tables"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(names == ["customer", "doc", "odd \"x\" name", "setting"], "no sqlite_% and no FTS5 shadow tables")

        // The example database of the other tests too (FTS5 with external content, triggers).
        let example = directory.file("example.db")
        _ = try Fixtures.makeExampleDatabase(at: example)
        #expect(essence(try stewardDigests(example)) == essence(try pythonDigests(example)))

        // Built-in modules other than FTS5: their virtual tables are named, not digested;
        // their shadow tables (FTS4's _content, _segdir …; R*Tree's _node, _rowid, _parent)
        // are ordinary tables and are.
        let modules = directory.file("modules.db")
        try Connection(path: modules).execute(sql: """
            CREATE VIRTUAL TABLE notes USING fts4(body);
            INSERT INTO notes(body) VALUES ('printer on fire'), ('café au lait');
            CREATE VIRTUAL TABLE geo USING rtree(id, minX, maxX, minY, maxY);
            INSERT INTO geo VALUES (1, 0, 1, 0, 1), (2, -5.5, 5.5, 2, 3);
            """)
        let withModules = try stewardDigests(modules)
        #expect(essence(withModules) == essence(try pythonDigests(modules)))
        #expect(withModules["virtualTables"] as? [String] == ["geo", "notes"])
        let moduleTables = (withModules["tables"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        #expect(moduleTables.contains("notes_content") && moduleTables.contains("geo_node"), "\(moduleTables)")
    }

    @Test func digestsSurviveVacuumAndPageSizeAndSeeOneChangedValue() throws {
        let path = try makeFixture("fixture.db")
        let before = essence(try stewardDigests(path))
        let original = try #require(FileManager.default.contents(atPath: path))

        let connection = try Connection(path: path)
        try connection.execute(sql: "DELETE FROM customer WHERE id > 200; PRAGMA page_size = 1024; VACUUM;")
        let shrunk = essence(try stewardDigests(path))
        try original.write(to: URL(fileURLWithPath: path))

        let other = try makeFixture("other.db", pageSize: 65536)
        try Connection(path: other).execute(sql: "VACUUM")
        #expect(try #require(FileManager.default.contents(atPath: other)) != original, "different files")
        #expect(essence(try stewardDigests(other)) == before, "same data, other page size, vacuumed: same digests")
        #expect(shrunk != before)

        try Connection(path: other).execute(sql: "UPDATE customer SET balance = 12.75 WHERE id = 1")
        let changed = try stewardDigests(other)
        let beforeTables = try #require(try stewardDigests(path)["tables"] as? [[String: Any]])
        let changedTables = try #require(changed["tables"] as? [[String: Any]])
        for (a, b) in zip(beforeTables, changedTables) {
            #expect((a["sha256"] as? String == b["sha256"] as? String) == (a["name"] as? String != "customer"))
        }
    }

    /// An FTS5 table whose tokenizer this SQLite lacks cannot be read through its module;
    /// its digest is not fatal (the first version refused the backup for it): it is listed.
    /// The backup is refused all the same, by the check restore would refuse it by
    /// (schema-objects: the table cannot be opened), never published to fail at restore.
    @Test func anFTS5TableThatCannotBeReadIsListedNotFatal() throws {
        let path = directory.file("tokenizer.db")
        try systemTool(["sqlite3", path, "CREATE TABLE t(x); INSERT INTO t VALUES (1); "
                        + "CREATE VIRTUAL TABLE doc USING fts5(body, tokenize='unicode61'); INSERT INTO doc VALUES ('hello'); "
                        + "PRAGMA writable_schema = ON; UPDATE sqlite_schema SET sql = replace(sql, 'unicode61', 'nosuchtokenizer') WHERE name = 'doc';"])
        let digests = try stewardDigests(path)
        #expect(digests["unreadable"] as? [String] == ["doc"])
        #expect((digests["tables"] as? [[String: Any]])?.compactMap { $0["name"] as? String } == ["t"])
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", path, "--out", out, "--name", "t.tar.zst", "--quiet"])
        #expect(backup.status == 1, "\(backup.stderr)")
        #expect(backup.stderr.contains("schema-objects: cannot be prepared"), "\(backup.stderr)")
        #expect(backup.stderr.contains("virtual table doc"), "\(backup.stderr)")
        #expect(!backup.stderr.contains("digest"), "not refused for a digest: \(backup.stderr)")
    }

    @Test func backupRecordsTheDigestsAndRestoreComparesThem() throws {
        let path = try makeFixture("fixture.db")
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let backup = try StewardProcess.run(["backup", "--db", path, "--out", out, "--name", "f.tar.zst", "--quiet"])
        try #require(backup.status == 0, "\(backup.stderr)")
        let bundle = out + "/f.tar.zst"
        #expect(essence(try stewardDigests(bundle)) == essence(try stewardDigests(path)), "the manifest's digests are the database's")

        let restore = try StewardProcess.run(["restore", bundle, "--into", directory.file("restored"), "--json"])
        #expect(restore.status == 0, "\(restore.stderr)")
        let checks = try #require(try restore.json()["checks"] as? [[String: Any]])
        let check = try #require(checks.first { $0["name"] as? String == "content-digest" })
        #expect(check["status"] as? String == "pass")
        #expect(!restore.allOutput.contains("Café"), "no row data")
    }

    // MARK: - Virtual tables of loadable modules

    /// vec0 tables (sqlite-vec) made with the sqlite3 shell, the extension loaded: a plain
    /// one, and one in the form of a public application's migration (GrailFinder/gf-lt,
    /// storage/migrations/002_add_vector.up.sql: a TEXT primary key and a metadata column,
    /// which add `_metadatachunks00` and `_metadatatext00` shadow tables; fewer dimensions).
    func makeVectorDatabase(_ library: String) throws -> String {
        let path = directory.file("vectors.db")
        let made = try systemTool(["sqlite3", path, ".load \(library)", """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            INSERT INTO item(name) VALUES ('lamp'), ('desk'), ('chair');
            CREATE VIRTUAL TABLE item_vec USING vec0(embedding float[4]);
            INSERT INTO item_vec(rowid, embedding) VALUES
              (1, '[0.1, 0.2, 0.3, 0.4]'), (2, '[0.5, 0.25, 0, 1]'), (3, '[1, 1, 1, 1]');
            CREATE VIRTUAL TABLE IF NOT EXISTS embeddings USING vec0(
                embedding FLOAT[4],
                slug TEXT NOT NULL,
                raw_text TEXT PRIMARY KEY
            );
            INSERT INTO embeddings(embedding, slug, raw_text) VALUES
              ('[1, 0, 0, 0]', 'intro', 'chapter one'), ('[0, 1, 0, 0]', 'outro', 'the end');
            """])
        try #require(made.status == 0, "\(made.output)")
        return path
    }

    /// Regression: which tables were digested depended on the modules loaded. With
    /// sqlite-vec loaded, `PRAGMA table_list` calls vec0's `_chunks`, `_rowids` and `_info`
    /// `shadow` and they were skipped; without it they are ordinary tables and were
    /// digested. So a bundle made with `--load-extension` recorded other digests than
    /// `inspect --digest` computed for the same database, and a bundle made without it
    /// failed restore's `content_digest` when restored with it.
    @Test(.enabled(if: MigrateDialectCommandTests.vectorExtension != nil,
                   "sqlite-vec is not installed (scripts/install-deps.sh installs it with pip)"))
    func aVectorTableDigestsTheSameWithOrWithoutItsExtension() throws {
        let library = try #require(MigrateDialectCommandTests.vectorExtension)
        let path = try makeVectorDatabase(library)
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let withExtension = try StewardProcess.run(
            ["backup", "--db", path, "--out", out, "--name", "with.tar.zst", "--load-extension", library, "--quiet"])
        try #require(withExtension.status == 0, "\(withExtension.stderr)")
        let withoutExtension = try StewardProcess.run(["backup", "--db", path, "--out", out, "--name", "without.tar.zst", "--quiet"])
        try #require(withoutExtension.status == 0, "\(withoutExtension.stderr)")

        let computed = try stewardDigests(path)
        let recordedWith = try stewardDigests(out + "/with.tar.zst")
        let recordedWithout = try stewardDigests(out + "/without.tar.zst")
        #expect(essence(recordedWith) == essence(computed), "made with the extension: the digests computed without it")
        #expect(essence(recordedWithout) == essence(computed))
        #expect(computed["virtualTables"] as? [String] == ["embeddings", "item_vec"])
        let names = (computed["tables"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        for name in ["item", "item_vec_rowids", "item_vec_vector_chunks00", "embeddings_rowids", "embeddings_metadatatext00"] {
            #expect(names.contains(name), "\(name) in \(names)")
        }
        #expect(!names.contains("item_vec") && !names.contains("embeddings"))
        if Self.python != nil {
            #expect(essence(try pythonDigests(path)) == essence(computed), "the independent implementation agrees")
        }

        // Either bundle restores with the extension (the table is read through vec0) and
        // its digests match.
        for name in ["with.tar.zst", "without.tar.zst"] {
            let drill = try StewardProcess.run(["restore", out + "/" + name, "--check-only", "--load-extension", library, "--json"])
            #expect(drill.status == 0, "\(name): \(drill.stdout)")
            let checks = try #require(try drill.json()["checks"] as? [[String: Any]])
            #expect(checks.first { $0["name"] as? String == "content-digest" }?["status"] as? String == "pass", "\(name)")
        }

        // One changed vector: only the chunk table that holds the vectors differs.
        let changed = try systemTool(["sqlite3", path, ".load \(library)", "UPDATE item_vec SET embedding = '[0.5, 0.25, 0, 0.75]' WHERE rowid = 2;"])
        try #require(changed.status == 0, "\(changed.output)")
        let after = try stewardDigests(path)
        #expect(after["schema"] as? String == computed["schema"] as? String)
        let differing = zip(computed["tables"] as? [[String: Any]] ?? [], after["tables"] as? [[String: Any]] ?? [])
            .filter { $0.0["sha256"] as? String != $0.1["sha256"] as? String }.compactMap { $0.0["name"] as? String }
        #expect(differing == ["item_vec_vector_chunks00"])
        if Self.python != nil {
            #expect(essence(try pythonDigests(path)) == essence(after))
        }
    }

    /// A bundle made before v2 records `sha256-sha3sum-v1` digests, which chose tables by
    /// the modules loaded; restore recomputes them by that rule, so such a bundle still
    /// restores, and an algorithm it does not know skips the comparison.
    @Test(.enabled(if: MigrateDialectCommandTests.vectorExtension != nil,
                   "sqlite-vec is not installed (scripts/install-deps.sh installs it with pip)"))
    func aBundleWithFirstRuleDigestsIsComparedByThatRule() throws {
        let library = try #require(MigrateDialectCommandTests.vectorExtension)
        let path = try makeVectorDatabase(library)
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        let made = try StewardProcess.run(["backup", "--db", path, "--out", out, "--name", "v2.tar.zst", "--load-extension", library, "--quiet"])
        try #require(made.status == 0, "\(made.stderr)")

        // What v1 recorded with sqlite-vec loaded: no table the module calls shadow.
        var parts = try BundleParts(reading: out + "/v2.tar.zst")
        var digests = try #require(parts.manifest["contentDigests"] as? [String: Any])
        let listed = try systemTool(["sqlite3", path, ".load \(library)", "SELECT name FROM pragma_table_list WHERE type = 'shadow'"])
        let shadows = Set(listed.output.split(separator: "\n").map(String.init))
        #expect(shadows.contains("item_vec_rowids"), "\(listed.output)")
        digests["tables"] = (digests["tables"] as? [[String: Any]] ?? []).filter { !shadows.contains($0["name"] as? String ?? "") }
        digests["algorithm"] = "sha256-sha3sum-v1"
        digests["virtualTables"] = nil
        parts.manifest["contentDigests"] = digests
        try parts.bundle(to: out + "/v1.tar.zst")
        digests["algorithm"] = "sha256-something-newer"
        parts.manifest["contentDigests"] = digests
        try parts.bundle(to: out + "/newer.tar.zst")

        for (name, expected) in [("v1.tar.zst", "pass"), ("newer.tar.zst", "skipped")] {
            let drill = try StewardProcess.run(["restore", out + "/" + name, "--check-only", "--load-extension", library, "--json"])
            #expect(drill.status == 0, "\(name): \(drill.stdout)")
            let checks = try #require(try drill.json()["checks"] as? [[String: Any]])
            #expect(checks.first { $0["name"] as? String == "content-digest" }?["status"] as? String == expected, "\(name)")
        }
    }
}

import Foundation
import Testing
import TestSupport

/// `--load-extension` beyond migrate: a database whose schema uses sqlite-vec's
/// vec0 virtual table, made by migrate with the extension loaded.
@Suite struct ExtensionCommandTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(layout: "steward") }

    /// Makes the database, its schema using vec0, with migrate and the extension loaded;
    /// returns the extension's path.
    func makeVectorDatabase() throws -> String {
        let library = try #require(MigrateDialectCommandTests.vectorExtension)
        try write("0001_items.sql", """
            CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT);
            CREATE VIRTUAL TABLE item_vec USING vec0(embedding float[4]);
            INSERT INTO item_vec(rowid, embedding) VALUES (1, '[0.1, 0.2, 0.3, 0.4]');
            """)
        let made = try workspace.migrate(["--create", "--load-extension", library, "--quiet"])
        try #require(made.status == 0, "\(made.stderr)")
        return library
    }

    @Test(.enabled(if: MigrateDialectCommandTests.vectorExtension != nil,
                   "sqlite-vec is not installed (scripts/install-deps.sh installs it with pip)"))
    func verifyLoadsTheExtensionAndTrustsOnlyInnocuousFunctions() throws {
        let library = try makeVectorDatabase()
        let before = FileManager.default.contents(atPath: database)

        let with = try StewardProcess.run(["verify", "--db", database, "--load-extension", library, "--quiet"])
        #expect(with.status == 0, "\(with.stdout)\(with.stderr)")

        let without = try StewardProcess.run(["verify", "--db", database])
        #expect(without.status != 0)
        #expect((without.stdout + without.stderr).contains("vec0"), "\(without.stdout)\(without.stderr)")

        let missing = try StewardProcess.run(["verify", "--db", database, "--load-extension", directory.file("no-such-extension")])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("cannot load the SQLite extension"))
        #expect(FileManager.default.contents(atPath: database) == before)
    }

    @Test(.enabled(if: MigrateDialectCommandTests.vectorExtension != nil,
                   "sqlite-vec is not installed (scripts/install-deps.sh installs it with pip)"))
    func restoreLoadsTheExtensionForItsChecks() throws {
        let library = try makeVectorDatabase()
        let out = directory.file("bundles")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        // Restore's checks read every table, the vec0 table through its module: backed up
        // and restored with the same extension.
        let backup = try StewardProcess.run(
            ["backup", "--db", database, "--out", out, "--name", "app.tar.zst", "--load-extension", library, "--quiet"])
        try #require(backup.status == 0, "\(backup.stderr)")
        let bundle = directory.file("bundles/app.tar.zst")
        let badBackup = try StewardProcess.run(
            ["backup", "--db", database, "--out", out, "--load-extension", directory.file("no-such-extension")])
        #expect(badBackup.status == 65)
        #expect(badBackup.stderr.contains("cannot load the SQLite extension"))

        // Without the extension the table cannot be read: refused by name, nothing published.
        let without = try StewardProcess.run(["restore", bundle, "--into", directory.file("plain")])
        #expect(without.status == 1)
        #expect(without.stdout.contains("item_vec: no such module: vec0"), "\(without.stdout)")
        #expect(!FileManager.default.fileExists(atPath: directory.file("plain")))

        let with = try StewardProcess.run(["restore", bundle, "--into", directory.file("loaded"), "--load-extension", library, "--quiet"])
        #expect(with.status == 0, "\(with.stdout)\(with.stderr)")
        #expect(FileManager.default.fileExists(atPath: directory.file("loaded")))

        let missing = try StewardProcess.run(
            ["restore", bundle, "--into", directory.file("missing"), "--load-extension", directory.file("no-such-extension")])
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("cannot load the SQLite extension"))
    }
}

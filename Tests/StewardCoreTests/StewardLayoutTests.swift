import Foundation
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// Reading a migration directory in Steward's own layout: names, versions, order and the
/// files left out.
@Suite struct StewardLayoutTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace() }

    func path(of name: String) -> String { workspace.migration(name) }

    /// The error a set of file names is refused with.
    func refusal(_ names: [String]) throws -> StewardError {
        for name in names { try write(name) }
        return try #require(throws: StewardError.self) { try DialectSet(directory: migrations, dialect: .steward) }
    }

    // MARK: - Order and names

    @Test func ordersByNumericVersionNotByName() throws {
        for name in ["0010_ten.sql", "0002_two.sql", "3_three.sql", "0100_hundred.sql"] { try write(name) }
        let set = try DialectSet(directory: migrations, dialect: .steward)
        #expect(set.migrations.map(\.version) == [2, 3, 10, 100])
        #expect(set.migrations.map(\.ledgerVersion) == ["2", "3", "10", "100"])
        #expect(set.migrations.map(\.fileName) == ["0002_two.sql", "3_three.sql", "0010_ten.sql", "0100_hundred.sql"])
        #expect(set.ignoredFiles == [])
        #expect(set.directory == migrations)
    }

    @Test func keepsPathAndText() throws {
        try write("0001_create.sql", "CREATE TABLE café(x);\n-- 客户\n")
        let migration = try #require(try DialectSet(directory: migrations, dialect: .steward).migrations.first)
        #expect(migration.version == 1)
        #expect(migration.fileName == "0001_create.sql")
        #expect(migration.path == path(of: "0001_create.sql"))
        #expect(migration.upSQL == "CREATE TABLE café(x);\n-- 客户\n")
    }

    @Test func golangMigrateNamesAndIgnoredFiles() throws {
        for name in ["1_create.up.sql", "1_create.down.sql", "2_more.up.sql", "2_more.down.sql",
                     "README.md", ".0004_hidden.sql", ".DS_Store"] {
            try write(name)
        }
        let set = try DialectSet(directory: migrations, dialect: .steward)
        #expect(set.migrations.map(\.fileName) == ["1_create.up.sql", "2_more.up.sql"])
        #expect(set.migrations.map(\.version) == [1, 2])
        #expect(set.ignoredFiles == [".0004_hidden.sql", ".DS_Store", "1_create.down.sql",
                                     "2_more.down.sql", "README.md"])
    }

    @Test(arguments: [
        ("0001_a.sql", 1), ("1_a.sql", 1), ("000000042_a.sql", 42), ("00000000000000000007_a.sql", 7),
        ("0001.sql", 1), ("12.up.sql", 12), ("2147483647_last.sql", Int32.max), ("02147483647_last.sql", Int32.max),
    ] as [(String, Int32)])
    func versionPrefixes(name: String, version: Int32) throws {
        try write(name)
        let set = try DialectSet(directory: migrations, dialect: .steward)
        #expect(set.migrations.map(\.version) == [VersionKey(Int64(version))])
        #expect(set.migrations.map(\.ledgerVersion) == [String(version)])
    }

    @Test func anEmptyDirectoryIsNotASet() throws {
        #expect(throws: StewardError.self) { try DialectSet(directory: migrations, dialect: .steward) }
    }

    // MARK: - Refused names

    @Test(arguments: ["notes.sql", "_x.sql", "v1_x.sql", "1x.sql", "-1_x.sql", "１_fullwidth.sql"])
    func namesWithoutAVersionPrefixAreRefused(name: String) throws {
        let error = try refusal(["0001_fine.sql", name])
        #expect(error.kind == .badInput)
        #expect(error.message.contains(path(of: name)), "\(error.message)")
        #expect(error.message.contains("must start with its version"), "\(error.message)")
    }

    @Test(arguments: ["0_zero.sql", "0000_zero.sql", "2147483648_big.sql", "3000000000_big.sql",
                      "12345678901234567890_huge.sql", "99999999999999999999_huge.sql"])
    func outOfRangeVersionsAreRefused(name: String) throws {
        let error = try refusal([name])
        #expect(error.kind == .badInput)
        #expect(error.message.contains(path(of: name)), "\(error.message)")
        #expect(error.message.contains("out of range"), "\(error.message)")
        #expect(error.message.contains("2147483647"), "\(error.message)")
    }

    @Test(arguments: [
        (["1_a.sql", "0001_b.sql"], "1_a.sql", "0001_b.sql"),
        (["0002_a.sql", "2_b.up.sql"], "2_b.up.sql", "0002_a.sql"),
        (["0005_a.sql", "0005_b.sql"], "0005_b.sql", "0005_a.sql"),
    ])
    func duplicateVersionsAreRefusedNamingBothFiles(names: [String], refused: String, other: String) throws {
        let error = try refusal(names)
        #expect(error.kind == .badInput)
        #expect(error.message.contains(path(of: refused)), "\(error.message)")
        #expect(error.message.contains("is also used by \(other)"), "\(error.message)")
    }

    // MARK: - The directory and the files

    @Test func missingDirectoryIsNotFound() throws {
        let missing = directory.file("no-such-dir")
        let error = try #require(throws: StewardError.self) { try DialectSet(directory: missing, dialect: .steward) }
        #expect(error.kind == .notFound)
        #expect(error.message.contains(missing))
    }

    @Test func aFileInsteadOfADirectoryIsBadInput() throws {
        try write("0001_a.sql")
        let file = path(of: "0001_a.sql")
        let error = try #require(throws: StewardError.self) { try DialectSet(directory: file, dialect: .steward) }
        #expect(error.kind == .badInput)
        #expect(error.message.contains(file))
        #expect(error.message.contains("not a directory"))
    }

    @Test func nonUTF8ContentIsBadInputNamingTheFile() throws {
        try write("0001_fine.sql")
        // Latin-1 "café": 0xE9 alone is not UTF-8.
        try Data([0x2D, 0x2D, 0x20, 0x63, 0x61, 0x66, 0xE9, 0x0A]).write(to: URL(fileURLWithPath: path(of: "0002_latin1.sql")))
        let error = try #require(throws: StewardError.self) { try DialectSet(directory: migrations, dialect: .steward) }
        #expect(error.kind == .badInput)
        #expect(error.message.contains(path(of: "0002_latin1.sql")), "\(error.message)")
        #expect(error.message.contains("not UTF-8"), "\(error.message)")
    }
}

import Testing
import SQLiteKit

@Suite struct SQLiteLibraryTests {
    @Test func versionIsThreeDotSomething() throws {
        let version = SQLiteLibrary.version
        #expect(version.hasPrefix("3."))
        let parts = version.split(separator: ".").compactMap { Int($0) }
        try #require(parts.count >= 3)
        #expect(SQLiteLibrary.versionNumber == parts[0] * 1_000_000 + parts[1] * 1_000 + parts[2])
    }

    @Test func versionMatchesWhatSQLReports() throws {
        let connection = try Connection.inMemory()
        #expect(try connection.scalar(sql: "SELECT sqlite_version()") == .text(SQLiteLibrary.version))
        #expect(try connection.scalar(sql: "SELECT sqlite_source_id()") == .text(SQLiteLibrary.sourceID))
    }

    @Test func versionIsRecentEnoughForTableList() {
        // PRAGMA table_list, which Schema relies on, arrived in 3.37.0.
        #expect(SQLiteLibrary.versionNumber >= 3_037_000)
    }

    @Test func compileOptionsHaveNoPrefix() throws {
        let options = SQLiteLibrary.compileOptions
        #expect(!options.isEmpty)
        #expect(options.allSatisfy { !$0.hasPrefix("SQLITE_") })
        let connection = try Connection.inMemory()
        let fromSQL = try connection.rows(sql: "SELECT compile_options FROM pragma_compile_options")
            .compactMap { $0.first?.textValue }
        #expect(options == fromSQL)
    }

    @Test func canCreateFTS5() {
        #expect(SQLiteLibrary.canCreateFTS5())
    }

    @Test func canCreateFTS5OnAGivenConnectionLeavesNothingBehind() throws {
        let connection = try Connection.inMemory()
        #expect(SQLiteLibrary.canCreateFTS5(on: connection))
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_temp_schema") == 0)
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema") == 0)
        // Proven twice on the same connection: the probe table was dropped.
        #expect(SQLiteLibrary.canCreateFTS5(on: connection))
    }

    @Test func fts5ProbeFailsWhereTablesCannotBeCreated() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TEMP TABLE steward_fts5_probe(x)")
        #expect(!SQLiteLibrary.canCreateFTS5(on: connection))
    }
}

import Foundation
import Testing
import SQLiteKit
import TestSupport

/// The hardening of connections to files from elsewhere (docs/design-notes.md,
/// "Connections to files from elsewhere") and the query-only read-write connection of
/// the integrity check.
@Suite struct ConnectionHardeningTests {
    @Test func hardenKeepsDefensiveModeAndTrustsTheSchemaOnlyWithoutExtensions() throws {
        let connection = try Connection.inMemory()
        try connection.harden()
        #expect(connection.isDefensive)
        #expect(!connection.isExtensionLoadingEnabled)
        #expect(connection.isSchemaTrusted)
        try connection.harden(trustingSchema: false)
        #expect(!connection.isSchemaTrusted)
    }

    @Test func aHardenedConnectionReadsASchemaThatUsesJSONFunctions() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE d(id INTEGER PRIMARY KEY, doc TEXT CHECK (json_valid(doc)), a TEXT GENERATED ALWAYS AS (doc ->> '$.a'));
            CREATE INDEX d_a ON d(json_extract(doc, '$.a'));
            CREATE VIEW v AS SELECT json_extract(doc, '$.a') AS a FROM d;
            INSERT INTO d(doc) VALUES ('{"a": 1}');
            """)
        try connection.harden()
        #expect(try connection.integer(sql: "SELECT count(*) FROM v") == 1)
        try connection.harden(trustingSchema: false)
        #expect(throws: SQLiteError.self) { try connection.integer(sql: "SELECT count(*) FROM v") }
    }

    @Test(arguments: ["fts3_tokenizer('simple')", "load_extension('x')"])
    func functionsThatCouldDoHarmStayRefusedInTheSchema(call: String) throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE VIEW v AS SELECT \(call) AS x")
        try connection.harden()
        do {
            _ = try connection.rows(sql: "SELECT * FROM v")
            Issue.record("\(call) ran from a view")
        } catch let error as SQLiteError {
            #expect(error.message.contains("unsafe use of"), "\(error.message)")
        }
    }

    @Test func aQueryOnlyConnectionRefusesWrites() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x)")
        try connection.makeQueryOnly()
        #expect(throws: SQLiteError.self) { try connection.execute(sql: "INSERT INTO t VALUES (1)") }
    }
}

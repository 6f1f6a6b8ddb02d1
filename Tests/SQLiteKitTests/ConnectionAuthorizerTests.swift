import Testing
@testable import SQLiteKit

/// `setAuthorizer`: what SQLite reports at prepare time, before a statement runs.
@Suite struct ConnectionAuthorizerTests {
    func events(of sql: String, on connection: Connection) throws -> [AuthorizerEvent] {
        var seen: [AuthorizerEvent] = []
        connection.setAuthorizer { seen.append($0) }
        defer { connection.setAuthorizer(nil) }
        let statement = try connection.prepare(sql: sql)
        let before = seen
        while try statement.step() {}
        // Everything is known once the statement is prepared.
        #expect(seen == before)
        return seen
    }

    func connection() throws -> Connection {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE ticket(id INTEGER PRIMARY KEY, title TEXT);
            CREATE TABLE log(id INTEGER PRIMARY KEY, what TEXT);
            CREATE INDEX ticket_title ON ticket(title);
            CREATE TRIGGER ticket_ad AFTER DELETE ON ticket BEGIN INSERT INTO log(what) VALUES ('deleted'); END;
            """)
        return connection
    }

    @Test func aDropTableReportsTheTableItsTriggersAndTheDeleteOfItsRows() throws {
        let seen = try events(of: "DROP TABLE ticket", on: connection())
        #expect(seen.contains(AuthorizerEvent(action: .dropTable("ticket"), trigger: nil)))
        #expect(seen.contains(AuthorizerEvent(action: .dropTrigger(trigger: "ticket_ad", table: "ticket"), trigger: nil)))
        #expect(seen.contains(AuthorizerEvent(action: .delete(table: "ticket"), trigger: nil)))
    }

    @Test func aTriggersWritesAreReportedWithTheTriggersName() throws {
        let seen = try events(of: "DELETE FROM ticket", on: connection())
        #expect(seen.contains(AuthorizerEvent(action: .delete(table: "ticket"), trigger: nil)))
        #expect(seen.contains(AuthorizerEvent(action: .insert(table: "log"), trigger: "ticket_ad")))
    }

    @Test func alterTableAndUpdatesNameTheirTable() throws {
        let connection = try connection()
        #expect(try events(of: "ALTER TABLE ticket RENAME TO issue", on: connection)
            .contains(AuthorizerEvent(action: .alterTable("ticket"), trigger: nil)))
        #expect(try events(of: "UPDATE issue SET title = 'x'", on: connection)
            == [AuthorizerEvent(action: .update(table: "issue", column: "title"), trigger: nil)])
    }

    @Test func readsAndTheSchemaTableAreNotReported() throws {
        let seen = try events(of: "SELECT count(*) FROM ticket", on: connection())
        #expect(seen.isEmpty)
    }

    @Test func removingTheObserverStopsTheCalls() throws {
        let connection = try connection()
        var count = 0
        connection.setAuthorizer { _ in count += 1 }
        try connection.execute(sql: "INSERT INTO log(what) VALUES ('x')")
        connection.setAuthorizer(nil)
        try connection.execute(sql: "INSERT INTO log(what) VALUES ('y')")
        #expect(count == 1)
    }
}

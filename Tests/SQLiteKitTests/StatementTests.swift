import Testing
import SQLiteKit

@Suite struct StatementTests {
    // MARK: - Binding each storage class

    static let roundTripValues: [SQLiteValue] = [
        .null,
        .integer(0),
        .integer(-1),
        .integer(Int64.min),
        .integer(Int64.max),
        .real(0.5),
        .real(-1.25e-300),
        .real(Double.greatestFiniteMagnitude),
        .text(""),
        .text("plain ASCII"),
        .text("客户工单搜索"),
        .text("fire 🔥 extinguisher 🧯 family 👨‍👩‍👧"),
        .text("O'Brien said \"hi\" and left '' twice"),
        .text("Café au lait"),
        .text("nul\u{0}inside"),
        .blob([]),
        .blob([0]),
        .blob([0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]),
        .blob(Array(repeating: 0xAB, count: 10_000)),
    ]

    @Test(arguments: roundTripValues)
    func boundValueComesBackUnchanged(_ value: SQLiteValue) throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT ?")
        try statement.bind(value, at: 1)
        #expect(try statement.step())
        #expect(statement.value(at: 0) == value)
        #expect(try statement.step() == false)
    }

    @Test(arguments: roundTripValues)
    func storedValueKeepsItsStorageClass(_ value: SQLiteValue) throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(v)")
        try connection.execute(sql: "INSERT INTO t(v) VALUES (?)", bindings: [value])
        let expectedType: String
        switch value {
        case .null: expectedType = "null"
        case .integer: expectedType = "integer"
        case .real: expectedType = "real"
        case .text: expectedType = "text"
        case .blob: expectedType = "blob"
        }
        let rows = try connection.rows(sql: "SELECT v, typeof(v) FROM t")
        #expect(rows == [[value, .text(expectedType)]])
    }

    @Test func emptyBlobIsABlobNotNull() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT typeof(?1), length(?1), ?1 IS NULL")
        try statement.bind(.blob([]), at: 1)
        #expect(try statement.step())
        #expect(statement.text(at: 0) == "blob")
        #expect(statement.int(at: 1) == 0)
        #expect(statement.int(at: 2) == 0)
    }

    @Test func textIsBoundAsUTF8WithItsByteLength() throws {
        let connection = try Connection.inMemory()
        let text = "客户 🧯 'quoted' \"double\""
        let statement = try connection.prepare(sql: "SELECT length(CAST(?1 AS BLOB)), length(?1), hex(?1)")
        try statement.bind(.text(text), at: 1)
        #expect(try statement.step())
        #expect(statement.int(at: 0) == text.utf8.count)
        #expect(statement.int(at: 1) == text.unicodeScalars.count)
        let hex = text.utf8.map { byte in
            let digits = String(byte, radix: 16, uppercase: true)
            return digits.count == 1 ? "0" + digits : digits
        }.joined()
        #expect(statement.text(at: 2) == hex)
    }

    @Test func bindingArrayFillsParametersInOrder() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT ?, ?, ?, ?, ?")
        #expect(statement.parameterCount == 5)
        try statement.bind([1, 2.5, "three", nil, .blob([4])])
        #expect(try statement.allRows() == [[.integer(1), .real(2.5), .text("three"), .null, .blob([4])]])
    }

    @Test(arguments: [0, 3, -1])
    func bindingOutsideTheParametersThrowsRange(_ index: Int) throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT ?, ?")
        let error = try #require(throws: SQLiteError.self) {
            try statement.bind(.integer(1), at: index)
        }
        #expect(error.extendedCode == ResultCode.range)
        #expect(error.sql == "SELECT ?, ?")
    }

    // MARK: - Named parameters

    @Test func namedParametersOfEveryPrefix() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT :title, @body, $status, :title")
        #expect(statement.parameterCount == 3)
        try statement.bind("Printer", named: ":title")
        try statement.bind("smoke", named: "@body")
        try statement.bind(7, named: "$status")
        #expect(try statement.allRows() == [[.text("Printer"), .text("smoke"), .integer(7), .text("Printer")]])
    }

    @Test func unknownNamedParameterThrowsRangeWithoutTheValue() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT :title")
        let error = try #require(throws: SQLiteError.self) {
            try statement.bind("secret value", named: ":missing")
        }
        #expect(error.extendedCode == ResultCode.range)
        #expect(error.message.contains(":missing"))
        #expect(error.sql == "SELECT :title")
        #expect(!error.description.contains("secret value"))
    }

    @Test func nameWithoutItsPrefixDoesNotMatch() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT :title")
        #expect(throws: SQLiteError.self) { try statement.bind("x", named: "title") }
    }

    // MARK: - Stepping

    @Test func stepReturnsEachRowThenDone() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (3), (1), (2)")
        let statement = try connection.prepare(sql: "SELECT x FROM t ORDER BY x")
        var seen: [Int64] = []
        while try statement.step() {
            seen.append(statement.int64(at: 0))
        }
        #expect(seen == [1, 2, 3])
    }

    @Test func stepOfAStatementWithoutRowsIsDoneAtOnce() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "CREATE TABLE t(x)")
        #expect(statement.isReadOnly == false)
        #expect(try statement.step() == false)
        #expect(try connection.integer(sql: "SELECT count(*) FROM sqlite_schema WHERE name = 't'") == 1)
    }

    @Test func columnsHaveNamesAndTypedAccessors() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(
            sql: "SELECT 42 AS answer, 1.5 AS ratio, 'text' AS label, x'0102' AS bytes, NULL AS absent")
        #expect(statement.isReadOnly)
        #expect(statement.columnCount == 5)
        #expect((0..<5).map { statement.columnName(at: $0) } == ["answer", "ratio", "label", "bytes", "absent"])
        #expect(try statement.step())
        #expect(statement.int64(at: 0) == 42)
        #expect(statement.int(at: 0) == 42)
        #expect(statement.double(at: 1) == 1.5)
        #expect(statement.text(at: 2) == "text")
        #expect(statement.blob(at: 3) == [1, 2])
        #expect(statement.isNull(at: 4))
        #expect(!statement.isNull(at: 0))
        #expect(statement.text(at: 4) == nil)
        #expect(statement.blob(at: 4) == [])
        #expect(statement.value(at: 4) == .null)
    }

    @Test func sqlIsTheTextAsPrepared() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT ?1 + 1")
        #expect(statement.sql == "SELECT ?1 + 1")
    }

    // MARK: - Reuse

    @Test func resetAndRebindReusesThePreparedStatement() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(id INTEGER PRIMARY KEY, title TEXT)")
        let insert = try connection.prepare(sql: "INSERT INTO t(title) VALUES (?)")
        for title in ["first", "第二", "third 🔥"] {
            try insert.bind(.text(title), at: 1)
            #expect(try insert.step() == false)
            try insert.reset()
        }
        #expect(try connection.rows(sql: "SELECT id, title FROM t ORDER BY id") == [
            [1, "first"], [2, "第二"], [3, "third 🔥"],
        ])
    }

    @Test func resetKeepsBindings() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT ?1")
        try statement.bind("kept", at: 1)
        #expect(try statement.step())
        try statement.reset()
        #expect(try statement.step())
        #expect(statement.value(at: 0) == "kept")
    }

    @Test func resetRestartsAQueryFromItsFirstRow() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1), (2)")
        let statement = try connection.prepare(sql: "SELECT x FROM t ORDER BY x")
        #expect(try statement.step())
        #expect(statement.int(at: 0) == 1)
        try statement.reset()
        #expect(try statement.allRows() == [[1], [2]])
    }

    @Test func clearBindingsSetsEveryParameterBackToNull() throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: "SELECT ?1, :name")
        try statement.bind("one", at: 1)
        try statement.bind(2, named: ":name")
        #expect(try statement.allRows() == [["one", 2]])
        try statement.reset()
        statement.clearBindings()
        #expect(try statement.allRows() == [[nil, nil]])
    }

    @Test func statementIsUsableAgainAfterAFailedStep() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(title TEXT NOT NULL)")
        let insert = try connection.prepare(sql: "INSERT INTO t(title) VALUES (?)")
        try insert.bind(.null, at: 1)
        let error = try #require(throws: SQLiteError.self) { try insert.step() }
        #expect(error.extendedCode == ResultCode.constraintNotNull)
        try insert.bind("now set", at: 1)
        #expect(try insert.step() == false)
        #expect(try connection.integer(sql: "SELECT count(*) FROM t") == 1)
    }

    // MARK: - Preparing

    @Test(arguments: [
        "SELECT 1; SELECT 2",
        "SELECT 1;SELECT 2;",
        "CREATE TABLE a(x); DROP TABLE a",
        "SELECT 1; -- comment\nSELECT 2",
    ])
    func prepareRefusesASecondStatement(_ sql: String) throws {
        let connection = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) { try connection.prepare(sql: sql) }
        #expect(error.extendedCode == ResultCode.misuse)
        #expect(error.sql == sql)
    }

    @Test(arguments: [
        "SELECT 1;",
        "SELECT 1; -- trailing comment",
        "SELECT 1 /* block */ ;  \n\t",
        "-- leading comment\nSELECT 1",
    ])
    func prepareAcceptsTrailingWhitespaceAndComments(_ sql: String) throws {
        let connection = try Connection.inMemory()
        let statement = try connection.prepare(sql: sql)
        #expect(try statement.allRows() == [[1]])
    }

    @Test(arguments: ["", "   ", "-- only a comment", "/* only a block */"])
    func prepareWithoutAStatementThrowsMisuse(_ sql: String) throws {
        let connection = try Connection.inMemory()
        let error = try #require(throws: SQLiteError.self) { try connection.prepare(sql: sql) }
        #expect(error.extendedCode == ResultCode.misuse)
    }

    @Test func prepareSyntaxErrorCarriesCodeAndSQL() throws {
        let connection = try Connection.inMemory()
        let sql = "SELEC 1"
        let error = try #require(throws: SQLiteError.self) { try connection.prepare(sql: sql) }
        #expect(error.extendedCode == ResultCode.error)
        #expect(error.sql == sql)
    }
}

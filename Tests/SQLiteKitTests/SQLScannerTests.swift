import Testing
import SQLiteKit

@Suite struct SQLScannerTests {
    typealias Kind = SQLScanner.Kind

    @Test func wordsNumbersAndSymbols() {
        let tokens = SQLScanner.tokens(of: "SELECT a1, _b$ FROM t WHERE x = 42;")
        #expect(tokens.map(\.kind) == [
            .word, .word, .symbol, .word, .word, .word, .word, .word, .symbol, .number, .symbol,
        ])
        #expect(tokens.map(\.text) == ["SELECT", "a1", ",", "_b$", "FROM", "t", "WHERE", "x", "=", "42", ";"])
        #expect(tokens.map(\.offset) == [0, 7, 9, 11, 15, 20, 22, 28, 30, 32, 34])
    }

    @Test func commentsAreSkipped() {
        let sql = """
            -- a line comment with 'quotes' and "more"
            CREATE /* a block
               comment */ TABLE t -- trailing
            (x)/**/;
            """
        #expect(SQLScanner.tokens(of: sql).map(\.text) == ["CREATE", "TABLE", "t", "(", "x", ")", ";"])
    }

    @Test(arguments: ["", "   \n\t\r\u{0C}", "-- only a comment", "/* only a block */", "/* unterminated", "-- a\n-- b\n"])
    func blankTextHasNoTokens(_ sql: String) {
        #expect(SQLScanner.tokens(of: sql).isEmpty)
        var scanner = SQLScanner(sql)
        #expect(scanner.nextToken() == nil)
        #expect(scanner.offsetOfNextToken() == sql.utf8.count)
    }

    @Test func singleDashAndSlashAreSymbols() {
        #expect(SQLScanner.tokens(of: "a - b / c * d").map(\.text) == ["a", "-", "b", "/", "c", "*", "d"])
        #expect(SQLScanner.tokens(of: "a - b / c * d").filter { $0.kind == .symbol }.count == 3)
    }

    // MARK: - Quoting

    static let quotedCases: [(sql: String, kind: Kind, text: String)] = [
        ("\"ticket\"", .quotedIdentifier, "ticket"),
        ("\"my \"\"quoted\"\" name\"", .quotedIdentifier, "my \"quoted\" name"),
        ("\"\"", .quotedIdentifier, ""),
        ("`back tick`", .quotedIdentifier, "back tick"),
        ("`a``b`", .quotedIdentifier, "a`b"),
        ("[bracket name]", .quotedIdentifier, "bracket name"),
        ("[with \"quotes\" inside]", .quotedIdentifier, "with \"quotes\" inside"),
        ("'string'", .string, "string"),
        ("'it''s'", .string, "it's"),
        ("''", .string, ""),
        ("''''", .string, "'"),
        ("'-- not a comment /* nor this */'", .string, "-- not a comment /* nor this */"),
        ("'客户工单 🔥'", .string, "客户工单 🔥"),
        ("\"客户\"", .quotedIdentifier, "客户"),
        ("'unterminated", .string, "unterminated"),
        ("[unterminated", .quotedIdentifier, "unterminated"),
    ]

    @Test(arguments: quotedCases)
    func quotedTokens(_ example: (sql: String, kind: Kind, text: String)) {
        let tokens = SQLScanner.tokens(of: example.sql)
        #expect(tokens.count == 1)
        #expect(tokens.first?.kind == example.kind)
        #expect(tokens.first?.text == example.text)
        #expect(tokens.first?.offset == 0)
    }

    @Test func quotedTokenEndsAtItsClosingQuote() {
        let tokens = SQLScanner.tokens(of: "\"a\"\"b\" 'c''d' [e]f")
        #expect(tokens.map(\.text) == ["a\"b", "c'd", "e", "f"])
        #expect(tokens.map(\.kind) == [.quotedIdentifier, .string, .quotedIdentifier, .word])
        #expect(tokens.map(\.offset) == [0, 7, 14, 17])
    }

    // MARK: - Symbols

    @Test(arguments: ["||", "<=", ">=", "<>", "!=", "==", "<<", ">>", "->"])
    func twoCharacterSymbolsAreOneToken(_ symbol: String) {
        let tokens = SQLScanner.tokens(of: "a\(symbol)b")
        #expect(tokens.map(\.text) == ["a", symbol, "b"])
        #expect(tokens[1].kind == .symbol)
        #expect(tokens[1].offset == 1)
        #expect(tokens[2].offset == 3)
    }

    @Test(arguments: ["(", ")", ",", ";", ".", "+", "*", "%", "&", "~", "?", ":", "@"])
    func otherCharactersAreSingleSymbols(_ symbol: String) {
        let tokens = SQLScanner.tokens(of: "\(symbol)\(symbol)")
        #expect(tokens.map(\.text) == [symbol, symbol])
        #expect(tokens.allSatisfy { $0.kind == .symbol })
    }

    @Test func threeCharacterOperatorsSplitAfterTheFirstPair() {
        // `->>` is one operator to SQLite; the scanner only needs to keep it out of names.
        #expect(SQLScanner.tokens(of: "a->>b").map(\.text) == ["a", "->", ">", "b"])
    }

    // MARK: - Numbers

    @Test(arguments: ["0", "42", "3.14", "1e10", "0x1F", "2.5E-3"])
    func numbersStartWithADigit(_ number: String) {
        let tokens = SQLScanner.tokens(of: number)
        #expect(tokens.first?.kind == .number)
        #expect(tokens.first?.text == number.split(separator: "-").first.map(String.init))
    }

    @Test func prefixListValueIsAStringNotANumber() {
        let tokens = SQLScanner.tokens(of: "prefix='2 3'")
        #expect(tokens.map(\.kind) == [.word, .symbol, .string])
    }

    // MARK: - Offsets and Unicode

    @Test func offsetsAreUTF8Bytes() {
        let tokens = SQLScanner.tokens(of: "'中' 客户 x 🔥 y")
        #expect(tokens.map(\.text) == ["中", "客户", "x", "🔥", "y"])
        #expect(tokens.map(\.kind) == [.string, .word, .word, .word, .word])
        #expect(tokens.map(\.offset) == [0, 6, 13, 15, 20])
    }

    @Test func offsetOfNextTokenSkipsTrivia() {
        var scanner = SQLScanner("  -- c\n  SELECT 1")
        #expect(scanner.offsetOfNextToken() == 9)
        #expect(scanner.position == 9)
        #expect(scanner.nextToken()?.text == "SELECT")
        #expect(scanner.position == 15)
        #expect(scanner.offsetOfNextToken() == 16)
        #expect(scanner.nextToken()?.text == "1")
        #expect(scanner.nextToken() == nil)
    }

    // MARK: - Token helpers

    @Test func tokenNameIsSetForWordsQuotedNamesAndStrings() {
        let tokens = SQLScanner.tokens(of: "word \"quoted\" 'string' 12 (")
        #expect(tokens.map(\.name) == ["word", "quoted", "string", nil, nil])
    }

    @Test func isKeywordIgnoresASCIICaseButNotQuoting() {
        let tokens = SQLScanner.tokens(of: "using USING UsInG \"using\" 'using' usingx")
        #expect(tokens.map { $0.isKeyword("USING") } == [true, true, true, false, false, false])
        #expect(tokens[0].isKeyword("using"))
    }

    @Test(arguments: [
        ("fts5", "FTS5", true),
        ("Ticket_FTS", "ticket_fts", true),
        ("", "", true),
        ("abc", "abd", false),
        ("abc", "abcd", false),
        ("É", "é", false),
        ("客户", "客户", true),
        ("a_", "A_", true),
        ("@", "`", false),
        ("[", "{", false),
    ])
    func caseInsensitiveEqualsFoldsASCIIOnly(_ a: String, _ b: String, _ equal: Bool) {
        #expect(a.caseInsensitiveEquals(b) == equal)
        #expect(b.caseInsensitiveEquals(a) == equal)
    }
}

import Testing
@testable import StewardCore

/// The features of newer SQLite releases that a schema object's error can point at.
@Suite struct NewerSQLiteTests {
    @Test(arguments: [
        ("unrecognized option: \"locale\"", nil as String?, "locale", "3.47.0"),
        ("unrecognized option: \"contentless_delete\"", nil, "contentless_delete", "3.43.0"),
        ("unrecognized option: \"contentless_unindexed\"", nil, "contentless_unindexed", "3.47.0"),
        ("unrecognized option: \"tokendata\"", nil, "tokendata", "3.45.0"),
        ("error in tokenizer constructor", "trigram remove_diacritics 1", "remove_diacritics", "3.45.0"),
        ("no such function: CONCAT", nil, "concat", "3.44.0"),
        ("no such function: unistr", nil, "unistr", "3.50.0"),
        ("no such function: json_pretty", nil, "json_pretty", "3.46.0"),
    ])
    func messagesAreMatched(_ message: String, _ tokenizer: String?, _ name: String, _ version: String) throws {
        let feature = try #require(NewerSQLite.feature(in: message, tokenizer: tokenizer))
        #expect(feature.name == name)
        #expect(feature.version == version)
    }

    @Test(arguments: [
        ("unrecognized option: \"nosuchoption\"", nil as String?),
        ("no such function: ST_IsEmpty", nil),
        ("no such module: vec0", nil),
        ("error in tokenizer constructor", "unicode61 remove_diacritics 3"),
        ("error in tokenizer constructor", nil),
        // A function this SQLite has: its error cannot mean a newer release.
        ("no such function: json_extract", nil),
    ])
    func otherMessagesAreNot(_ message: String, _ tokenizer: String?) {
        #expect(NewerSQLite.feature(in: message, tokenizer: tokenizer) == nil)
        #expect(NewerSQLite.explained(message, tokenizer: tokenizer) == message)
    }
}

import Testing
@testable import StewardCore

@Suite struct SourceLinesTests {
    @Test func lineCountsTheLineFeedsBeforeAnOffset() {
        let lines = SourceLines("a\nbc\n\nd")
        #expect(lines.line(at: 0) == 1)
        #expect(lines.line(at: 1) == 1)  // the line feed itself ends line 1
        #expect(lines.line(at: 2) == 2)
        #expect(lines.line(at: 5) == 3)
        #expect(lines.line(at: 6) == 4)
    }

    @Test func offsetsAreBytesOfUTF8() {
        // "é" is two bytes: the second line starts at byte 3.
        let lines = SourceLines("é\nx")
        #expect(lines.line(at: 2) == 1)
        #expect(lines.line(at: 3) == 2)
    }

    @Test func firstTokenSkipsWhitespaceAndComments() {
        let text = "\n  -- a comment\n/* block\n */\n  CREATE TABLE t(x);"
        let lines = SourceLines(text)
        let offset = lines.firstToken(from: 0)
        #expect(Array(text.utf8)[offset] == UInt8(ascii: "C"))
        #expect(lines.lineOfFirstToken(from: 0) == 5)
    }

    @Test func textWithoutLineFeedsIsOneLine() {
        let lines = SourceLines("SELECT 1")
        #expect(lines.line(at: 0) == 1)
        #expect(lines.line(at: 8) == 1)
        #expect(SourceLines("").line(at: 0) == 1)
    }
}

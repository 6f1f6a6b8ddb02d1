import Foundation
import Testing
@testable import StewardCore

/// The trimming the migration readers use instead of Foundation's (issue 14) trims
/// exactly what Foundation's `.whitespaces` and `.whitespacesAndNewlines` trim.
@Suite struct WhitespaceTrimmingTests {
    @Test func theSetsAreFoundationsForEveryScalar() {
        var differences: [String] = []
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if WhitespaceTrimming.isWhitespace(scalar) != CharacterSet.whitespaces.contains(scalar) {
                differences.append("whitespaces U+\(String(value, radix: 16))")
            }
            if WhitespaceTrimming.isWhitespaceOrNewline(scalar) != CharacterSet.whitespacesAndNewlines.contains(scalar) {
                differences.append("whitespacesAndNewlines U+\(String(value, radix: 16))")
            }
        }
        #expect(differences == [])
    }

    @Test(arguments: [
        "", " ", "\t-- steward: rebuild-fts t \r", "\u{3000}--\u{A0}+goose Up\u{2028}", "a", " \u{301}a b\u{301} ",
        "\r\n", "x\u{85}", "\u{85}", "-- migrate:up\t", "CRLF line\r", "\u{FEFF} bom", "é \u{200B}",
    ])
    func trimsAsFoundationDoes(text: String) {
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingWhitespaceAndNewlines() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        let inner = Substring("«" + text + "»").dropFirst().dropLast()
        #expect(inner.trimmingWhitespace() == inner.trimmingCharacters(in: .whitespaces))
        #expect(inner.trimmingWhitespaceAndNewlines() == inner.trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

import Foundation
import Testing
@testable import StewardCore

/// The assertion and contract runners trim with `WhitespaceTrimming`, which keeps
/// Foundation's sets scalar by scalar: names and search inputs trimmed of any blank
/// Foundation trims (the ideographic space, the zero width space, NEL, CRLF) come out
/// as Foundation would give them.
@Suite struct RunnerTrimmingTests {
    /// Blanks both sets hold; a name's `.whitespaces` holds no line ends.
    static let blanks = ["\u{3000}", "\u{200B}", "\u{00A0}", "\t"]

    @Test(arguments: blanks)
    func anAssertionNameIsTrimmedAsFoundationTrimsIt(blank: String) {
        let statement = "--\(blank)name:\(blank)count tickets\(blank)\r\nSELECT 1"
        let expected = "count tickets\(blank)".trimmingCharacters(in: .whitespaces)
        #expect(AssertionRunner.name(in: statement) == expected)
    }

    @Test(arguments: blanks + ["\u{0085}", "\u{2028}", "\n", "\r"])
    func aSearchInputIsTrimmedAsFoundationTrimsIt(blank: String) {
        let input = "\(blank)printer\(blank)"
        let trimmed = input.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(ContractRunner.expression(for: input, mode: .literal, maximumLength: 100) == .query("\"\(trimmed)\""))
    }
}

@testable import StewardBase
@testable import StewardCore
import Testing

/// Counts with their nouns: the singular for exactly one, in every text output.
@Suite struct CountedTests {
    @Test(arguments: [
        (0, "0 statements"), (1, "1 statement"), (2, "2 statements"), (-1, "-1 statements"),
    ])
    func aCountTakesItsNounInTheSingularOnlyForOne(count: Int, phrase: String) {
        #expect(Counted.phrase(count, "statement") == phrase)
    }

    @Test func aNounThatTakesNoSIsGivenItsPlural() {
        #expect(Counted.phrase(Int64(1), "entry", plural: "entries") == "1 entry")
        #expect(Counted.phrase(UInt32(3), "entry", plural: "entries") == "3 entries")
        #expect(Counted.noun("table", for: 1) == "table")
        #expect(Counted.noun("table", for: 5) == "tables")
    }
}

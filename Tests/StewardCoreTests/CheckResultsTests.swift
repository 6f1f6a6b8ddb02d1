import StewardBase
@testable import StewardCore
import Testing

/// verify's checks run on several threads and the first error of the run counts, except
/// that a file changed under the reads (74) replaces what another thread found reading
/// the cut file: seen under load, an integrity thread's "the database is damaged" (65)
/// came first and the run said 65 for a file that was cut short while it was read.
@Suite struct CheckResultsTests {
    @Test func theFirstErrorCounts() {
        let results = CheckResults()
        results.fail(StewardError(.badInput, "first"))
        results.fail(StewardError(.inputOutput, "second"))
        #expect(results.error?.message == "first")
    }

    @Test func aFileChangedUnderTheReadsReplacesWhatWasFoundInIt() {
        let results = CheckResults()
        results.fail(StewardError(.badInput, "the database is damaged: t.db (database disk image is malformed)"))
        results.failChanged(StewardError(.inputOutput, "the database file t.db changed while verify read it"))
        #expect(results.error?.kind == .inputOutput)
        results.fail(StewardError(.badInput, "later"))
        #expect(results.error?.kind == .inputOutput)
    }

    @Test func anInterruptionStillWins() {
        let results = CheckResults()
        results.fail(StewardError(.interrupted, "interrupted by SIGINT"))
        results.failChanged(StewardError(.inputOutput, "changed"))
        #expect(results.error?.kind == .interrupted)
    }
}

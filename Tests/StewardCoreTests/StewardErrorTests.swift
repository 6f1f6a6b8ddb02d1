@testable import StewardBase
@testable import StewardCore
import Testing

@Suite struct StewardErrorTests {
    @Test func interruptedNamesTheSignalAndWhatWasLeft() {
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGTERM")
        let error = StewardError.interrupted(by: cancellation, "; nothing changed")
        #expect(error.kind == .interrupted)
        #expect(error.message == "interrupted by SIGTERM; nothing changed")
    }

    @Test func interruptedWithoutAReasonSaysASignal() {
        let error = StewardError.interrupted(by: Cancellation())
        #expect(error.message == "interrupted by a signal")
    }

    @Test(arguments: [(5.0, "5"), (0.5, "0.5"), (30.0, "30")])
    func gaveUpPrintsWholeSecondsWithoutAFraction(_ timeout: Double, _ printed: String) {
        let error = StewardError.gaveUp(on: "app.sqlite", after: timeout, "database is locked", prefix: "0002: ")
        #expect(error.kind == .busy)
        #expect(error.message
            == "0002: app.sqlite is locked by another connection; gave up after \(printed) s (database is locked)")
    }
}

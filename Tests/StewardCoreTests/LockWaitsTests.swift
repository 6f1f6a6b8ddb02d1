import Foundation
import Testing
@testable import StewardCore

@Suite struct LockWaitsTests {
    @Test func pausesUntilTheAllowanceIsSpent() {
        let waits = LockWaits(timeout: 0.05, cancellation: Cancellation())
        var attempts = 0
        while waits.pause(attempt: attempts) {
            attempts += 1
            if attempts > 1_000 { break }
        }
        #expect(attempts > 1, "several short pauses, not one")
        #expect(attempts <= 1_000)
        #expect(waits.secondsWaited >= 0.05)
        // Spent: no further pause, at once.
        #expect(!waits.pause(attempt: 0))
    }

    @Test func noTimeoutMeansNoPause() {
        let waits = LockWaits(timeout: 0, cancellation: Cancellation())
        #expect(!waits.pause(attempt: 0))
        #expect(waits.secondsWaited == 0)
    }

    @Test func aCancelledRunDoesNotWait() {
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")
        let waits = LockWaits(timeout: 30, cancellation: cancellation)
        #expect(!waits.pause(attempt: 0))
        #expect(waits.secondsWaited == 0)
    }

    @Test func onePauseIsAtMostFiftyMilliseconds() {
        let waits = LockWaits(timeout: 30, cancellation: Cancellation())
        let start = Date()
        #expect(waits.pause(attempt: 1_000))
        // 50 ms asked; the bound leaves room for a loaded machine.
        #expect(Date().timeIntervalSince(start) < 1)
        #expect(waits.secondsWaited >= 0.05)
    }
}

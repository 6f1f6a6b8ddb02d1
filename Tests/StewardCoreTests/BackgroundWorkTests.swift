import Foundation
@testable import StewardCore
import Testing

#if canImport(Glibc)
import Glibc
@testable import StewardBase
#endif

/// A wait that never returns is the failure this suite looks for: a time limit turns it
/// into a failed test instead of a hung run.
@Suite(.timeLimit(.minutes(1))) struct BackgroundWorkTests {
    struct Failure: Error, Equatable {
        let code: Int
    }

    @Test func waitReturnsTheValueComputedOnAnotherThread() throws {
        let caller = pthread_self()
        let work = BackgroundWork { _ in
            (pthread_equal(pthread_self(), caller) == 0, 6 * 7)
        }
        let (onAnotherThread, value) = try work.wait()
        #expect(onAnotherThread)
        #expect(value == 42)
    }

    @Test func waitRethrowsWhatTheBodyThrew() {
        let work = BackgroundWork<Int> { _ in throw Failure(code: 7) }
        #expect(throws: Failure(code: 7)) { try work.wait() }
    }

    /// Every wait gets the same result, also when the waits run at the same time.
    @Test func waitCanBeCalledAgainAndFromSeveralThreads() throws {
        let release = DispatchSemaphore(value: 0)
        let work = BackgroundWork { _ in
            release.wait()
            return "done"
        }
        let waiters = (0..<4).map { _ in BackgroundWork { _ in try work.wait() } }
        release.signal()
        for waiter in waiters { #expect(try waiter.wait() == "done") }
        #expect(try work.wait() == "done")
        #expect(try work.wait() == "done")

        let failing = BackgroundWork<Int> { _ in throw Failure(code: 1) }
        #expect(throws: Failure(code: 1)) { try failing.wait() }
        #expect(throws: Failure(code: 1)) { try failing.wait() }
    }

    /// The body sees the flag `cancel()` sets and can stop early; `wait()` then returns
    /// what it returned.
    @Test func cancelSetsTheFlagThatTheBodyPolls() throws {
        let started = DispatchSemaphore(value: 0)
        let work = BackgroundWork { stop in
            started.signal()
            var polls = 0
            while !stop.isCancelled {
                polls += 1
                usleep(1000)
                if polls > 30_000 { throw Failure(code: polls) }
            }
            return stop.reason
        }
        started.wait()
        work.cancel()
        // The body saw the flag: it returns the reason cancel gave.
        #expect(try work.wait() == "not needed")
    }
}

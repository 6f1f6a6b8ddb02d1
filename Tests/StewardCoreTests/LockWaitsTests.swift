import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

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

    /// The allowance is wall time: two connections waiting at once spend it once. Their
    /// pauses used to be added up, so `--timeout 2` gave up after about 1 s of two waits.
    @Test func waitsAtTheSameTimeCountOnce() {
        let waits = LockWaits(timeout: 0.6, cancellation: Cancellation())
        let group = DispatchGroup()
        let start = Date()
        for _ in 0..<2 {
            group.enter()
            Thread.detachNewThread {
                var attempt = 0
                while waits.pause(attempt: attempt) { attempt += 1 }
                group.leave()
            }
        }
        group.wait()
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.55, "both waited until 0.6 s of wall time were spent, not half of it: \(elapsed) s")
        #expect(waits.secondsWaited >= 0.6)
        #expect(waits.secondsWaited <= elapsed + 0.01, "never more than the wall time: \(waits.secondsWaited) of \(elapsed) s")
    }

    /// Waits one after the other still add up.
    @Test func waitsOneAfterTheOtherAddUp() {
        let waits = LockWaits(timeout: 30, cancellation: Cancellation())
        #expect(waits.pause(attempt: 1_000))
        #expect(waits.pause(attempt: 1_000))
        #expect(waits.secondsWaited >= 0.1)
    }

    /// The one policy for `--timeout`: connections attached to one allowance share it, so
    /// a second wait gets what the first left, not the whole timeout again.
    @Test func connectionsOfOneRunShareTheAllowance() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("locked.sqlite")
        let holder = try Connection(path: path, mode: [.readWrite, .create])
        try holder.execute(sql: "CREATE TABLE t(x); BEGIN EXCLUSIVE; INSERT INTO t VALUES (1)")
        defer { try? holder.execute(sql: "ROLLBACK") }

        let waits = LockWaits(timeout: 0.3, cancellation: Cancellation())
        let first = try Connection(path: path, mode: [.readWrite])
        let second = try Connection(path: path, mode: [.readWrite])
        waits.attach(to: first)
        waits.attach(to: second)
        let start = Date()
        #expect(throws: SQLiteError.self) { try first.execute(sql: "BEGIN IMMEDIATE") }
        let firstWait = Date().timeIntervalSince(start)
        #expect(firstWait >= 0.3, "the first wait uses the allowance")
        let secondStart = Date()
        #expect(throws: SQLiteError.self) { try second.execute(sql: "BEGIN IMMEDIATE") }
        // Spent: the second connection gives up at once instead of waiting 0.3 s again.
        #expect(Date().timeIntervalSince(secondStart) < 0.2)
        #expect(waits.secondsWaited >= 0.3)
    }
}

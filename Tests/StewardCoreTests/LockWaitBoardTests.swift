import Foundation
@testable import StewardBase
@testable import StewardCore
import Testing

/// The board a fleet's live line reads: a database is on it while its run pauses for a
/// lock, and off it once the pauses stop or the run is over.
@Suite struct LockWaitBoardTests {
    @Test func aWaitIsShownWhileItLastsAndNotAfter() throws {
        let board = LockWaitBoard()
        var waits: LockWaits? = LockWaits(timeout: 10, cancellation: Cancellation(), database: "/srv/a/app.db", board: board)
        #expect(board.current().isEmpty, "nothing waited yet")
        #expect(waits?.pause(attempt: 0) == true)
        let shown = try #require(board.current().first)
        #expect(shown.database == "/srv/a/app.db")
        #expect(shown.timeoutSeconds == 10)
        #expect(shown.waitedSeconds > 0)
        // The lock was granted: no more pauses, and the entry goes stale.
        usleep(UInt32(LockWaitBoard.staleAfterNanoseconds / 1000) + 50_000)
        #expect(board.current().isEmpty)
        #expect(waits?.pause(attempt: 0) == true)
        #expect(board.current().count == 1)
        waits = nil
        #expect(board.current().isEmpty, "the run is over")
    }

    @Test func withoutADatabaseNothingIsShown() {
        let board = LockWaitBoard()
        let waits = LockWaits(timeout: 10, cancellation: Cancellation(), board: board)
        #expect(waits.pause(attempt: 0))
        #expect(board.current().isEmpty)
    }

    @Test func theLongestWaitComesFirst() {
        let board = LockWaitBoard()
        let short = LockWaits(timeout: 10, cancellation: Cancellation(), database: "short.db", board: board)
        let long = LockWaits(timeout: 10, cancellation: Cancellation(), database: "long.db", board: board)
        for attempt in 0..<5 { _ = long.pause(attempt: attempt) }
        _ = short.pause(attempt: 0)
        #expect(board.current().map(\.database) == ["long.db", "short.db"])
    }
}

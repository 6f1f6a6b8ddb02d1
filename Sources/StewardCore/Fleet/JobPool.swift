import Foundation
import Synchronization

/// Runs `count` jobs on at most `width` threads, in order of index, each index once.
///
/// Threads take the next index under a lock, so no job runs twice and memory does not
/// depend on `count`. `shouldStart` is asked before each job: once it says no (fail-fast,
/// a signal), jobs not yet started are skipped and the pool drains.
public enum JobPool {
    /// Stack of each worker thread: SQLite parses a migration's nested expressions
    /// recursively, and Foundation's default for secondary threads is small.
    static let stackSize = 8 << 20

    /// Returns how many jobs were started.
    @discardableResult
    public static func run(
        count: Int, width: Int,
        shouldStart: @escaping @Sendable () -> Bool,
        job: @escaping @Sendable (Int) -> Void
    ) -> Int {
        let state = State()
        let workers = max(1, min(width, count))
        let group = DispatchGroup()
        for _ in 0..<workers {
            group.enter()
            let thread = Thread {
                while let index = state.next(below: count, shouldStart) {
                    job(index)
                }
                group.leave()
            }
            thread.stackSize = stackSize
            thread.start()
        }
        group.wait()
        return state.started
    }

    private final class State: Sendable {
        private let nextIndex = Mutex(0)

        var started: Int {
            nextIndex.withLock { $0 }
        }

        func next(below count: Int, _ shouldStart: () -> Bool) -> Int? {
            nextIndex.withLock { nextIndex in
                guard nextIndex < count, shouldStart() else { return nil }
                defer { nextIndex += 1 }
                return nextIndex
            }
        }
    }
}

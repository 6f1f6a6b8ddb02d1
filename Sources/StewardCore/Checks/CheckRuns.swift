import Synchronization
import StewardBase

/// How often each of the costly database checks ran, for the tests that hold a command
/// to reading a file once per check (`backup --as-is` and restore's recorded failures
/// reuse what the checks found instead of running them again). Counted only while a
/// test has bound `current`; nothing else reads it.
final class CheckRuns: Sendable {
    @TaskLocal static var current: CheckRuns?

    private let counts = Mutex<[CheckName: Int]>([:])

    func count(_ name: CheckName) -> Int { counts.withLock { $0[name] ?? 0 } }

    static func ran(_ name: CheckName) {
        current?.counts.withLock { $0[name, default: 0] += 1 }
    }
}

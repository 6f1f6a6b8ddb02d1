import Foundation
import Synchronization

/// The work under way (phase and table), set by the run and read by SQLite's progress
/// callback.
final class SharedName: Sendable {
    private struct State {
        var work: (phase: Migrator.Event.Phase, table: String)?
        var isNew = false
    }

    private let state = Mutex(State())

    func set(_ work: (Migrator.Event.Phase, String)?) {
        state.withLock { $0 = State(work: work.map { (phase: $0.0, table: $0.1) }, isNew: work != nil) }
    }

    /// The work under way, and whether it was set since the last call.
    func next() -> (phase: Migrator.Event.Phase, table: String, isNew: Bool)? {
        state.withLock { state in
            guard let work = state.work else { return nil }
            defer { state.isNew = false }
            return (work.phase, work.table, state.isNew)
        }
    }
}

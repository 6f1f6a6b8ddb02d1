import Foundation

/// How far the snapshot's kernel copy has got, for the thread that compresses the copy
/// while it is still being written (design notes, "Performance": the copy used one core
/// while the other sat idle). The bytes below the mark are written and will not change;
/// `complete()` says the copy is whole and cut to its pages; `abandon()` says the copy
/// is being made another way and nothing read so far counts.
package final class CopyWatermark: @unchecked Sendable {
    private enum State {
        case copying(Int64)
        case complete
        case abandoned
    }

    /// The reader gave up: the copy was abandoned.
    struct Abandoned: Error {}

    // Guarded by `condition`.
    private var state = State.copying(0)
    private var readerFinished = false
    private let condition = NSCondition()

    package init() {}

    /// The first `bytes` of the copy are written.
    package func advance(to bytes: Int64) {
        update { state in
            if case .copying(let mark) = state, bytes > mark { state = .copying(bytes) }
        }
    }

    /// The copy is whole: everything up to its size can be read.
    package func complete() {
        update { state in
            if case .copying = state { state = .complete }
        }
    }

    /// The copy will be made again: a reader stops, and what it read is thrown away.
    package func abandon() {
        update { $0 = .abandoned }
    }

    package var isComplete: Bool {
        condition.lock()
        defer { condition.unlock() }
        if case .complete = state { return true }
        return false
    }

    /// Waits until the first `bytes` of the copy are written. Throws `Abandoned` when the
    /// copy is abandoned; returns false, without waiting longer, once `isStopped` says so.
    func wait(for bytes: Int64, isStopped: () -> Bool) throws -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while true {
            switch state {
            case .complete:
                return true
            case .abandoned:
                throw Abandoned()
            case .copying(let mark):
                if mark >= bytes { return true }
            }
            if isStopped() { return false }
            // Woken by every change; the timeout only lets `isStopped` be asked again.
            _ = condition.wait(until: Date(timeIntervalSinceNow: 0.05))
        }
    }

    /// The reader has read and compressed the whole copy.
    func finishReading() {
        condition.lock()
        readerFinished = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits up to `seconds` for `finishReading()`; for the test hook that fails a kernel
    /// copy only once its reader is done with it (`TestHooks.failsKernelCopy`).
    package func waitForReader(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !readerFinished {
            if !condition.wait(until: deadline) { return readerFinished }
        }
        return true
    }

    private func update(_ change: (inout State) -> Void) {
        condition.lock()
        change(&state)
        condition.broadcast()
        condition.unlock()
    }
}

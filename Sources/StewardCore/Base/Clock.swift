import Foundation
import Synchronization

/// Elapsed wall time for reports, in seconds.
struct Stopwatch {
    private let start = DispatchTime.now()

    var seconds: Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }

    /// Seconds rounded to milliseconds, as reports show them.
    var roundedSeconds: Double {
        (seconds * 1000).rounded() / 1000
    }
}

/// Says when progress is due: every 0.1 s, and at the end; never while held. Returns the
/// seconds since it was made.
final class Throttle: Sendable {
    private let watch = Stopwatch()
    private let last = Mutex(-1.0)
    private let held: Mutex<Bool>

    init(held: Bool = false) {
        self.held = Mutex(held)
    }

    func release() {
        held.withLock { $0 = false }
    }

    func due(final: Bool) -> Double? {
        if held.withLock({ $0 }) { return nil }
        return last.withLock { last in
            let seconds = watch.seconds
            guard final || seconds - last >= 0.1 else { return nil }
            last = seconds
            return seconds
        }
    }
}

import StewardCore
import Synchronization

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a cancellation that running work polls, so that
/// Steward can roll back and clean up before it exits with status 130.
///
/// A plain `sigaction` handler, not a dispatch signal source: the source started
/// libdispatch's manager thread (epoll, signalfd) in every run, about 0.3 ms of a no-op
/// `migrate` (design notes, "Performance"). The handler only stores the signal's number (a lock-free
/// atomic store is all a handler may safely do); the cancellation reads it. SA_RESTART
/// keeps system calls that the signal interrupts from failing with EINTR.
final class SignalTrap {
    /// A reader of standard output that goes away is then a write error (EPIPE, 74), not
    /// a silent death by SIGPIPE.
    static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }

    /// The first SIGINT or SIGTERM since the trap was set, 0 before.
    private static let received = Atomic<Int32>(0)

    let cancellation = Cancellation(signalled: { SignalTrap.name(of: SignalTrap.received.load(ordering: .relaxed)) })
    /// The signal mask before the trap. A parent may start Steward with the signals
    /// blocked (the test runner does); the dispatch source read them anyway (signalfd), so
    /// the trap unblocks them on this thread, which the run's threads inherit.
    private var previousMask = sigset_t()

    init() {
        // Initialised before a handler can read it; a signal of an earlier trap is forgotten.
        Self.received.store(0, ordering: .relaxed)
        for number in [SIGINT, SIGTERM] {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { number in
                _ = SignalTrap.received.compareExchange(expected: 0, desired: number, ordering: .relaxed)
            }
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(number, &action, nil)
        }
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, &previousMask)
    }

    static func name(of number: Int32) -> String? {
        switch number {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        default: return nil
        }
    }

    /// Runs `body` with SIGINT and SIGTERM turned into the cancellation it is given. When
    /// `terminal` is set (a live progress line is shown there), the line is cleared
    /// however the body ends, so that a report or an error starts on a clean line.
    static func run<Result>(clearingProgressOn terminal: Terminal?, _ body: (Cancellation) throws -> Result) throws -> Result {
        let trap = SignalTrap()
        defer { terminal?.progress("\r\u{1B}[2K") }
        return try withExtendedLifetime(trap) { try body(trap.cancellation) }
    }

    deinit {
        pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

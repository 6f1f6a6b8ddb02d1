import Dispatch
import Foundation
import StewardCore

#if canImport(Glibc)
import Glibc
#endif

/// Turns SIGINT and SIGTERM into a cancellation that running work polls, so that
/// Steward can roll back and clean up before it exits with status 130.
final class SignalTrap {
    private var sources: [DispatchSourceSignal] = []
    let cancellation = Cancellation()

    init() {
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            let cancellation = self.cancellation
            source.setEventHandler { cancellation.cancel(reason: name) }
            source.resume()
            sources.append(source)
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
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

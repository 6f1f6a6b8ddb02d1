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

    deinit {
        for source in sources { source.cancel() }
        signal(SIGINT, SIG_DFL)
        signal(SIGTERM, SIG_DFL)
    }
}

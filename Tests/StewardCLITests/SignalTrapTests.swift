import Foundation
import Testing
@testable import StewardCLI
import StewardCore

#if canImport(Glibc)
import Glibc
#endif

/// The signal trap without a dispatch source (issue 14): a signal becomes the
/// cancellation as soon as its handler has run (no thread passes it on), and the
/// default action is back afterwards.
@Suite(.serialized) struct SignalTrapTests {
    @Test(arguments: [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")])
    func aSignalCancelsTheWorkAndNamesItself(number: Int32, name: String) throws {
        let (cancelled, reason) = try SignalTrap.run(clearingProgressOn: nil) { cancellation in
            let before = cancellation.isCancelled
            raise(number)
            #expect(!before)
            return (cancellation.isCancelled, cancellation.reason)
        }
        #expect(cancelled)
        #expect(reason == name)
        var action = sigaction()
        sigaction(number, nil, &action)
        #expect(action.__sigaction_handler.sa_handler == nil, "SIG_DFL once the trap is gone")
    }

    @Test func aNewTrapStartsUncancelled() throws {
        _ = try SignalTrap.run(clearingProgressOn: nil) { _ in raise(SIGINT) }
        let cancelled = try SignalTrap.run(clearingProgressOn: nil) { $0.isCancelled }
        #expect(!cancelled)
    }
}

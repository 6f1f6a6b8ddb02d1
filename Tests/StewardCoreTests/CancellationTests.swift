import StewardBase
import StewardCore
import Testing

@Suite struct CancellationTests {
    @Test func startsNotCancelled() {
        let cancellation = Cancellation()
        #expect(!cancellation.isCancelled)
        #expect(cancellation.reason == nil)
    }

    @Test func theFirstReasonIsKept() {
        let cancellation = Cancellation()
        cancellation.cancel(reason: "SIGINT")
        cancellation.cancel(reason: "SIGTERM")
        #expect(cancellation.isCancelled)
        #expect(cancellation.reason == "SIGINT")
    }

    @Test func cancellingFromManyThreadsAtOnceIsSafe() async {
        let cancellation = Cancellation()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<64 {
                group.addTask { cancellation.cancel(reason: "signal \(index)") }
                group.addTask { _ = cancellation.isCancelled }
            }
        }
        #expect(cancellation.isCancelled)
        #expect(cancellation.reason?.hasPrefix("signal ") == true)
    }
}

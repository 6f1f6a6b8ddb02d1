import Synchronization

/// What the checks on the original file learn about it for the report, written on a
/// checking thread and read once they are all done.
final class DatabaseFactsBox: Sendable {
    private struct State {
        var userVersion: Int32?
        var ftsTables: [VerifyReport.FTSTable] = []
    }

    private let state = Mutex(State())

    var userVersion: Int32? {
        get { state.withLock { $0.userVersion } }
        set { state.withLock { $0.userVersion = newValue } }
    }

    var ftsTables: [VerifyReport.FTSTable] {
        get { state.withLock { $0.ftsTables } }
        set { state.withLock { $0.ftsTables = newValue } }
    }
}

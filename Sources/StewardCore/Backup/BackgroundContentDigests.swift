import Foundation

/// The content digests of the snapshot's copy, computed on a thread of their own while
/// the checks, the hash and the compression read the same finished file (issue 14: run
/// one after the other, they were a third of a backup's time).
final class BackgroundContentDigests: @unchecked Sendable {
    private let path: String
    private let extensions: [String]
    private let cancellation: Cancellation
    private let stop = Cancellation()
    private let done = DispatchSemaphore(value: 0)
    private var outcome: Result<ContentDigests, Error>?
    private var isWaited = false

    init(path: String, extensions: [String], cancellation: Cancellation) {
        self.path = path
        self.extensions = extensions
        self.cancellation = cancellation
    }

    func start() {
        Thread.detachNewThread { [self] in
            outcome = Result {
                try BackupMaker.contentDigests(of: path, extensions: extensions, cancellation: cancellation, stop: stop)
            }
            done.signal()
        }
    }

    /// Asks the thread to stop early (its result is not needed any more).
    func cancel() {
        stop.cancel(reason: "not needed")
    }

    /// Waits for the thread and returns its result.
    func wait() throws -> ContentDigests {
        if !isWaited {
            done.wait()
            isWaited = true
        }
        guard let outcome else { throw StewardError(.internal, "the digesting thread ended without a result") }
        return try outcome.get()
    }
}

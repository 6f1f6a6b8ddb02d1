import Foundation

/// A `steward` run stopped at one of its test pause points
/// (`STEWARD_TEST_HOOK_PAUSE_AT`, Sources/StewardBase/TestHooks+Pause.swift):
/// the test acts while it waits (cuts a file, kills it), then lets it go on or not.
public struct PausedSteward {
    public let running: RunningSteward
    /// The file the run creates when it reaches the point, and waits for to go.
    public let marker: String

    /// Starts `steward` with `arguments` and waits until it reaches `point`; throws when
    /// it ends or 60 s pass first.
    public init(_ arguments: [String], at point: String, marker: String, asUser uid: UInt32? = nil,
                environment: [String: String] = [:], standardInput: FileHandle? = nil) throws {
        self.marker = marker
        var hooked = environment
        hooked["STEWARD_TEST_HOOK_PAUSE_AT"] = point
        hooked["STEWARD_TEST_HOOK_PAUSE_FILE"] = marker
        running = try StewardProcess.launch(arguments, asUser: uid, environment: hooked, standardInput: standardInput)
        let deadline = Date().addingTimeInterval(60)
        while !FileManager.default.fileExists(atPath: marker) {
            guard running.process.isRunning, Date() < deadline else {
                let run = running.finish(timeout: 5)
                throw PauseNotReached(point: point, status: run.status, output: run.allOutput)
            }
            usleep(10_000)
        }
    }

    /// Lets the run go on and waits for it to end.
    public func resume(timeout: TimeInterval = 60) -> StewardRun {
        try? FileManager.default.removeItem(atPath: marker)
        return running.finish(timeout: timeout)
    }

    /// Kills the run with SIGKILL where it waits (no clean-up of its own can run).
    public func kill() -> StewardRun {
        running.send(SIGKILL)
        let run = running.finish(timeout: 30)
        try? FileManager.default.removeItem(atPath: marker)
        return run
    }

    public struct PauseNotReached: Error, CustomStringConvertible {
        public let point: String
        public let status: Int32
        public let output: String
        public var description: String { "the run ended (\(status)) before reaching \(point): \(output)" }
    }
}

import Foundation

/// Runs the built `steward` binary and collects what it printed.
public struct StewardRun: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    /// All output, for privacy checks.
    public var allOutput: String { stdout + stderr }

    /// stdout parsed as one JSON object.
    public func json() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        guard let dictionary = object as? [String: Any] else {
            throw CocoaError(.propertyListReadCorrupt)
        }
        return dictionary
    }
}

public enum StewardProcess {
    /// The `steward` executable next to the test bundle (same build directory), or
    /// `STEWARD_BINARY` when set.
    public static var executable: URL {
        if let override = ProcessInfo.processInfo.environment["STEWARD_BINARY"] {
            return URL(fileURLWithPath: override)
        }
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        // On Linux the test runner is `.build/<config>/StewardPackageTests.xctest`.
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent("steward")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            directory.deleteLastPathComponent()
        }
        return Fixtures.repositoryRoot.appendingPathComponent(".build/debug/steward")
    }

    /// Starts `steward` without waiting for it; `RunningSteward.finish()` collects the result.
    public static func launch(
        _ arguments: [String], currentDirectory: String? = nil, asUser uid: UInt32? = nil, environment: [String: String] = [:],
        standardInput: FileHandle? = nil
    ) throws -> RunningSteward {
        let process = Self.process(arguments, currentDirectory: currentDirectory, asUser: uid, environment: environment)
        return try RunningSteward(process: process, standardInput: standardInput)
    }

    /// A `steward` process, not yet started.
    static func process(
        _ arguments: [String], currentDirectory: String?, asUser uid: UInt32?, environment: [String: String]
    ) -> Process {
        let process = Process()
        if let merged = Self.environment(adding: environment) { process.environment = merged }
        // Tests that need an unprivileged user ask for one; when they already run as one,
        // running directly is the same thing (and setpriv would be refused).
        if let uid, getuid() == 0 {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        if let currentDirectory {
            process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory)
        }
        return process
    }

    /// The environment of this process with `extra` added, for `run(_:environment:)`.
    static func environment(adding extra: [String: String]) -> [String: String]? {
        guard !extra.isEmpty else { return nil }
        return ProcessInfo.processInfo.environment.merging(extra) { _, new in new }
    }

    /// Runs `steward` with `arguments`, optionally as another user (`setpriv`) and with
    /// extra environment variables, with a time limit after which the process is killed.
    public static func run(
        _ arguments: [String],
        currentDirectory: String? = nil,
        asUser uid: UInt32? = nil,
        environment: [String: String] = [:],
        timeout: TimeInterval = 60
    ) throws -> StewardRun {
        let process = Self.process(arguments, currentDirectory: currentDirectory, asUser: uid, environment: environment)
        return try RunningSteward(process: process).finish(timeout: timeout)
    }
}

final class LockedData: @unchecked Sendable {
    private var data = Data()
    private let lock = NSLock()
    func set(_ value: Data) { lock.lock(); data = value; lock.unlock() }
    func get() -> Data { lock.lock(); defer { lock.unlock() }; return data }
}

/// A `steward` process that is still running.
public final class RunningSteward: @unchecked Sendable {
    public let process: Process
    private let group = DispatchGroup()
    private let outData = LockedData(), errData = LockedData()

    init(process: Process, standardInput: FileHandle? = nil) throws {
        self.process = process
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = standardInput ?? FileHandle.nullDevice
        try process.run()
        for (pipe, sink) in [(out, outData), (err, errData)] {
            group.enter()
            DispatchQueue.global().async { [group] in
                sink.set(pipe.fileHandleForReading.readDataToEndOfFile())
                group.leave()
            }
        }
    }

    /// Sends a signal (SIGINT, SIGTERM, SIGKILL) to the process.
    public func send(_ signal: Int32) {
        kill(process.processIdentifier, signal)
    }

    /// Waits for the process to end (killing it after `timeout`) and returns what it printed.
    public func finish(timeout: TimeInterval = 60) -> StewardRun {
        if group.wait(timeout: .now() + timeout) == .timedOut {
            kill(process.processIdentifier, SIGKILL)
            group.wait()
        }
        process.waitUntilExit()
        return StewardRun(
            status: process.terminationStatus,
            stdout: String(decoding: outData.get(), as: UTF8.self),
            stderr: String(decoding: errData.get(), as: UTF8.self))
    }
}

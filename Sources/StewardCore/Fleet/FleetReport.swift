import Foundation

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// `steward report`: the per-database NDJSON lines of fleet runs (the shards of one run,
/// or runs one after another) summarised. When a database has more than one line, the
/// last one read counts: a re-run that finished what a first run left is the state.
public struct FleetReport: Codable, Sendable {
    public var command = "report"
    public let files: [String]
    /// Database lines read, all files together.
    public let lines: Int
    /// Distinct databases (by path as listed).
    public let databases: Int
    /// Databases with more than one line; the last counts.
    public let repeated: Int
    public let succeeded: Int
    public let failed: Int
    public let outcomes: [String: Int]
    /// Failed databases per exit status.
    public let exitCodes: [String: Int]
    public let failures: [FleetSummary.Failure]
    /// Summaries (`kind` `summary`) read: one per shard or run.
    public let summaries: Int
    /// Databases that summaries counted as not started (`--fail-fast`, a signal).
    public let notStarted: Int
    /// Runs that failed as a whole (`kind` `run`: a shard's usage error, a list that could
    /// not be read): their databases have no lines, so the fleet cannot have succeeded.
    public let runFailures: [RunFailure]
    /// The fleet's exit status by the rule of a fleet run (steward(1)), over the failed
    /// databases and the failed runs.
    public let exitCode: Int32

    /// A run that failed before or outside its databases.
    public struct RunFailure: Codable, Sendable, Equatable {
        public let command: String
        public let exitCode: Int32
        public let message: String
    }

    /// Reads the NDJSON of `files` (`-` is standard input).
    public static func read(_ files: [String]) throws -> FleetReport {
        var latest: [String: (outcome: String, exitCode: Int32, message: String?)] = [:]
        var order: [String] = []
        var lines = 0, repeated = Set<String>(), summaries = 0, notStarted = 0
        var runFailures: [RunFailure] = []
        for file in files {
            // Read as a stream, so a pipe or a process substitution is a file like any other.
            let data = try DatabaseList.readStream(file, missing: "\(file): no such file", unreadable: "\(file): cannot be read")
            for (number, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
                if line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\t") }) { continue }
                guard let object = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                    throw StewardError(.badInput, "\(file):\(number + 1): not a JSON object")
                }
                switch object["kind"] as? String {
                case "database", "bundle":
                    // `database.path` (a restore drill's line: `bundle.path`); lines written
                    // before the envelope carried the path as `path`, or `database` as a string.
                    let reference = object["kind"] as? String == "bundle" ? "bundle" : "database"
                    guard let path = ((object[reference] as? [String: Any])?["path"] as? String)
                            ?? (object["path"] as? String) ?? (object["database"] as? String),
                          let exitCode = (object["exitCode"] as? NSNumber)?.int32Value
                    else {
                        throw StewardError(.badInput, "\(file):\(number + 1): a database line without path or exitCode")
                    }
                    lines += 1
                    let outcome = object["outcome"] as? String ?? (exitCode == 0 ? "ok" : "failed")
                    let message = (object["error"] as? [String: Any])?["message"] as? String
                        ?? (exitCode == 0 ? nil : (object["failedChecks"] as? [String]).map { "failed: " + $0.joined(separator: ", ") })
                    if latest[path] == nil { order.append(path) } else { repeated.insert(path) }
                    latest[path] = (outcome, exitCode, message)
                case "summary":
                    summaries += 1
                    notStarted += (object["notStarted"] as? NSNumber)?.intValue ?? 0
                case "run":
                    guard let exitCode = (object["exitCode"] as? NSNumber)?.int32Value else {
                        throw StewardError(.badInput, "\(file):\(number + 1): a run's line without exitCode")
                    }
                    runFailures.append(RunFailure(
                        command: object["command"] as? String ?? "", exitCode: exitCode,
                        message: (object["error"] as? [String: Any])?["message"] as? String ?? "failed"))
                default:
                    throw StewardError(.badInput, "\(file):\(number + 1): not a line of a fleet run (kind is neither database, bundle, run nor summary)")
                }
            }
        }
        var outcomes: [String: Int] = [:]
        var failures: [FleetSummary.Failure] = []
        var codes: [String: Int] = [:]
        for path in order {
            guard let result = latest[path] else { continue }
            outcomes[result.outcome, default: 0] += 1
            if result.exitCode != 0 {
                failures.append(.init(database: path, exitCode: result.exitCode, message: result.message ?? result.outcome))
                codes[String(result.exitCode), default: 0] += 1
            }
        }
        return FleetReport(
            files: files, lines: lines, databases: order.count, repeated: repeated.count,
            succeeded: order.count - failures.count, failed: failures.count, outcomes: outcomes, exitCodes: codes,
            failures: failures, summaries: summaries, notStarted: notStarted, runFailures: runFailures,
            exitCode: FleetSummary.exitCode(of: failures.map(\.exitCode) + runFailures.map(\.exitCode)))
    }
}

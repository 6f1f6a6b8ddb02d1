import Foundation

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// `steward report`: every report Steward writes, read together and summarised: the
/// NDJSON lines of fleet runs (the shards of one run, or runs one after another), the
/// object a single run prints with `--json`, and the files `--report` writes (one object,
/// or NDJSON for many databases). Each command's results are kept apart: a database
/// migrated and then verified is two results. When one command has more than one result
/// for a database, the last one read counts: a re-run that finished what a first run
/// left is the state.
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
    /// The results per command, in the order the commands were first read.
    public let commands: [CommandResults]
    /// Each result that counts (the last of its command and path), as read: for the
    /// handover files `steward report` writes. Not part of the JSON.
    public var results: [Result] = []

    /// One command's results.
    public struct CommandResults: Codable, Sendable, Equatable {
        public let command: String
        public let databases: Int
        public let succeeded: Int
        public let failed: Int
        public let outcomes: [String: Int]
    }

    /// One database's or bundle's result.
    public struct Result: Sendable {
        public let command: String
        public let path: String
        public let exitCode: Int32
        public let outcome: String
        /// Why it failed; nil when it succeeded.
        public let message: String?
        /// The JSON object as read; empty unless the reader asked to keep the reports.
        public let json: Data
    }

    private enum CodingKeys: String, CodingKey {
        case command, files, lines, databases, repeated, succeeded, failed, outcomes, exitCodes, failures, summaries
        case notStarted, runFailures, exitCode, commands
    }

    /// A run that failed before or outside its databases.
    public struct RunFailure: Codable, Sendable, Equatable {
        public let command: String
        public let exitCode: Int32
        public let message: String
    }

    /// Reads the reports in `files` (`-` is standard input). `keepingReports`: each
    /// result keeps its JSON object (for the handover files); without it only what the
    /// summary counts is kept, so a fleet of any size is summed in little memory.
    public static func read(_ files: [String], keepingReports: Bool = false) throws -> FleetReport {
        var latest: [String: Result] = [:]
        var order: [String] = []
        var lines = 0, repeated = Set<String>(), summaries = 0, notStarted = 0
        var runFailures: [RunFailure] = []
        for file in files {
            // Read as a stream, so a pipe or a process substitution is a file like any other.
            let data = try DatabaseList.readStream(file, missing: "\(file): no such file", unreadable: "\(file): cannot be read")
            for (line, value) in try Self.values(in: data, file: file) {
                guard let object = try? JSONSerialization.jsonObject(with: value) as? [String: Any] else {
                    throw StewardError(.badInput, "\(file):\(line): not a JSON object")
                }
                let command = object["command"] as? String ?? ""
                switch object["kind"] as? String {
                case "summary":
                    summaries += 1
                    notStarted += (object["notStarted"] as? NSNumber)?.intValue ?? 0
                case "run":
                    runFailures.append(try runFailure(object, at: "\(file):\(line)"))
                case "database", "bundle", nil:
                    // A report with no database or bundle is a run that failed as a whole
                    // (a single run's usage error), or steward report's own.
                    guard let path = Self.path(of: object) else {
                        if command == "report" || command == "version" { continue }
                        guard object["error"] != nil else {
                            throw StewardError(.badInput, "\(file):\(line): a report without a database or bundle path")
                        }
                        runFailures.append(try runFailure(object, at: "\(file):\(line)"))
                        continue
                    }
                    guard let exitCode = (object["exitCode"] as? NSNumber)?.int32Value else {
                        throw StewardError(.badInput, "\(file):\(line): a report without exitCode")
                    }
                    lines += 1
                    let outcome = object["outcome"] as? String ?? (exitCode == 0 ? (object["kind"] == nil ? "passed" : "ok") : "failed")
                    let message = (object["error"] as? [String: Any])?["message"] as? String
                        ?? (exitCode == 0 ? nil : (object["failedChecks"] as? [String]).map { "failed: " + $0.joined(separator: ", ") })
                    let key = "\(command)\u{0}\(path)"
                    if latest[key] == nil { order.append(key) } else { repeated.insert(key) }
                    latest[key] = Result(command: command, path: path, exitCode: exitCode, outcome: outcome, message: message, json: keepingReports ? value : Data())
                default:
                    throw StewardError(.badInput, "\(file):\(line): not a report of Steward's (kind is neither database, bundle, run nor summary)")
                }
            }
        }
        let results = order.compactMap { latest[$0] }
        var outcomes: [String: Int] = [:]
        var failures: [FleetSummary.Failure] = []
        var codes: [String: Int] = [:]
        var commandOrder: [String] = []
        for result in results {
            outcomes[result.outcome, default: 0] += 1
            if !commandOrder.contains(result.command) { commandOrder.append(result.command) }
            if result.exitCode != 0 {
                failures.append(.init(database: result.path, exitCode: result.exitCode, message: result.message ?? result.outcome, command: result.command))
                codes[String(result.exitCode), default: 0] += 1
            }
        }
        let commands = commandOrder.map { command in
            let mine = results.filter { $0.command == command }
            let failed = mine.filter { $0.exitCode != 0 }.count
            return CommandResults(command: command, databases: mine.count, succeeded: mine.count - failed, failed: failed,
                                  outcomes: Dictionary(mine.map { ($0.outcome, 1) }, uniquingKeysWith: +))
        }
        var report = FleetReport(
            files: files, lines: lines, databases: Set(results.map(\.path)).count, repeated: repeated.count,
            succeeded: results.count - failures.count, failed: failures.count, outcomes: outcomes, exitCodes: codes,
            failures: failures, summaries: summaries, notStarted: notStarted, runFailures: runFailures,
            exitCode: FleetSummary.exitCode(of: failures.map(\.exitCode) + runFailures.map(\.exitCode)), commands: commands)
        report.results = results
        return report
    }

    /// The database's path a report names (`database.path`; a restore's `bundle.path`),
    /// or, in lines written before the envelope carried it so, `path` or `database` as text.
    static func path(of object: [String: Any]) -> String? {
        let reference = object["kind"] as? String == "bundle" || object["database"] == nil ? "bundle" : "database"
        return ((object[reference] as? [String: Any])?["path"] as? String)
            ?? (object["path"] as? String) ?? (object["database"] as? String)
    }

    private static func runFailure(_ object: [String: Any], at place: String) throws -> RunFailure {
        guard let exitCode = (object["exitCode"] as? NSNumber)?.int32Value else {
            throw StewardError(.badInput, "\(place): a run's line without exitCode")
        }
        return RunFailure(command: object["command"] as? String ?? "", exitCode: exitCode,
                          message: (object["error"] as? [String: Any])?["message"] as? String ?? "failed")
    }

    /// The JSON values of `data` one after another, each with the line it starts on: the
    /// lines of NDJSON, or objects printed over many lines (`--json`, `--report`), in any
    /// mix. Only the bounds of each value are found here (braces and brackets outside
    /// strings); JSONSerialization reads it.
    static func values(in data: [UInt8], file: String) throws -> [(line: Int, value: Data)] {
        var values: [(Int, Data)] = []
        var depth = 0, inString = false, escaped = false, start = -1, line = 1, startLine = 1
        for (index, byte) in data.enumerated() {
            if byte == UInt8(ascii: "\n") { line += 1 }
            if inString {
                if escaped { escaped = false } else if byte == UInt8(ascii: "\\") { escaped = true } else if byte == UInt8(ascii: "\"") { inString = false }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"), UInt8(ascii: "\n"):
                continue
            case UInt8(ascii: "\""):
                inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
            default:
                break
            }
            if start < 0 {
                guard depth == 1 else { throw StewardError(.badInput, "\(file):\(line): not a JSON object") }
                start = index
                startLine = line
            } else if depth == 0 {
                values.append((startLine, Data(data[start...index])))
                start = -1
            }
            if depth < 0 { throw StewardError(.badInput, "\(file):\(line): not a JSON object") }
        }
        if start >= 0 { throw StewardError(.badInput, "\(file):\(startLine): not a JSON object (it ends before it closes)") }
        return values
    }
}

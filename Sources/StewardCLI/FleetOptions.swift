import ArgumentKit
import Foundation
import StewardCore

/// The options shared by `migrate`, `verify` and `backup` for running over many databases,
/// and the decision whether a run is a fleet run at all.
struct FleetOptions: Sendable {
    /// `--db`, repeatable, which every fleet command declares with its own help.
    static func database(help: String) -> RepeatedOption<String> {
        RepeatedOption("db", value: "path", help: help)
    }

    static let dbsFrom = Option<String>("dbs-from", value: "file", help: "Read database paths from this file, one a line ('-': standard input); they follow the --db paths.")
    static let null = Flag("null", help: "With --dbs-from: the paths are separated by NUL bytes (find -print0).")
    static let jobs = Option<Int>("jobs", value: "n", help: "How many databases to process at a time (default: the number of cores).", in: 1...1024)
    static let shard = Option<Shard>(
        "shard", value: "K/N", help: "Process only the K-th of N shares of the list: database i (from 0, duplicates removed) belongs to share (i mod N) + 1.",
        expected: "K/N with 1 ≤ K ≤ N, such as 2/4", convert: { Shard($0) })
    static let failFast = Flag("fail-fast", help: "Start no further database once one has failed.")

    /// The group, listed after a command's own options.
    static let options: [any OptionKey] = [dbsFrom, null, jobs, shard, failFast]

    /// The `--db` paths, in order.
    let databases: [String]
    let listSource: String?
    let nullSeparated: Bool
    let jobs: Int
    let shard: Shard?
    let failFast: Bool

    /// The fleet options, or nil for a run over the one `--db` as before: a fleet run is
    /// one with more than one `--db`, or with `--dbs-from`, `--jobs` or `--shard`.
    static func parse(_ values: ParsedValues, databases key: RepeatedOption<String>) throws(CommandLineError) -> FleetOptions? {
        let databases = values[key]
        let isFleet = databases.count > 1 || values.isPresent(dbsFrom) || values.isPresent(jobs) || values.isPresent(shard)
        guard isFleet else {
            if values[null] { throw values.error("'--null' needs '--dbs-from <file>'") }
            if values[failFast] {
                throw values.error("'--fail-fast' needs more than one database ('--db' repeated, or '--dbs-from <file>')")
            }
            return nil
        }
        if databases.contains(where: \.isEmpty) { throw values.error("The value '' is invalid for '--db <path>'") }
        if values[null] && !values.isPresent(dbsFrom) { throw values.error("'--null' needs '--dbs-from <file>'") }
        if values[dbsFrom] == "" { throw values.error("The value '' is invalid for '--dbs-from <file>'") }
        if databases.isEmpty && !values.isPresent(dbsFrom) {
            throw values.error("Missing expected argument '--db <path>'")
        }
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return FleetOptions(
            databases: databases, listSource: values[dbsFrom], nullSeparated: values[null],
            jobs: values[jobs] ?? cores, shard: values[shard], failFast: values[failFast])
    }

    /// The one `--db` of a run that is not a fleet run (the last, if given twice).
    static func singleDatabase(_ values: ParsedValues, _ key: RepeatedOption<String>) throws(CommandLineError) -> String {
        guard let path = values[key].last else {
            throw values.error("Missing expected argument '\(key.definition.display)'")
        }
        return path
    }

    /// Every path given, `--db` first, then the list file's.
    func givenPaths() throws -> [String] {
        guard let listSource else { return databases }
        return databases + (try DatabaseList.read(from: listSource, nullSeparated: nullSeparated))
    }
}

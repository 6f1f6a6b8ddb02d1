import ArgumentKit
import Foundation
import StewardCore

/// The options shared by `migrate`, `verify` and `backup` for running over many databases,
/// and the decision whether a run is a fleet run at all.
struct FleetOptions: Sendable {
    static let definitions: [OptionDefinition] = [
        .option("dbs-from", value: "file", help: "Read database paths from this file, one a line ('-': standard input); they follow the --db paths."),
        .flag("null", help: "With --dbs-from: the paths are separated by NUL bytes (find -print0)."),
        .option("jobs", value: "n", help: "How many databases to process at a time (default: the number of cores)."),
        .option("shard", value: "K/N", help: "Process only the K-th of N shares of the list: database i (from 0, duplicates removed) belongs to share (i mod N) + 1."),
        .flag("fail-fast", help: "Start no further database once one has failed."),
    ]

    /// The `--db` paths, in order.
    let databases: [String]
    let listSource: String?
    let nullSeparated: Bool
    let jobs: Int
    let shard: Shard?
    let failFast: Bool

    /// The fleet options, or nil for a run over the one `--db` as before: a fleet run is
    /// one with more than one `--db`, or with `--dbs-from`, `--jobs` or `--shard`.
    static func parse(_ values: ParsedValues) throws(CommandLineError) -> FleetOptions? {
        let databases = values.values("db")
        let isFleet = databases.count > 1 || values.isPresent("dbs-from") || values.isPresent("jobs") || values.isPresent("shard")
        guard isFleet else {
            if values.flag("null") { throw values.error("'--null' needs '--dbs-from <file>'") }
            if values.flag("fail-fast") {
                throw values.error("'--fail-fast' needs more than one database ('--db' repeated, or '--dbs-from <file>')")
            }
            return nil
        }
        if databases.contains(where: \.isEmpty) { throw values.error("The value '' is invalid for '--db <path>'") }
        if values.flag("null") && !values.isPresent("dbs-from") { throw values.error("'--null' needs '--dbs-from <file>'") }
        if values.value("dbs-from") == "" { throw values.error("The value '' is invalid for '--dbs-from <file>'") }
        if databases.isEmpty && !values.isPresent("dbs-from") {
            throw values.error("Missing expected argument '--db <path>'")
        }
        var shard: Shard?
        if let text = values.value("shard") {
            guard let parsed = Shard(text) else {
                throw values.error("The value '\(text)' is invalid for '--shard <K/N>': expected K/N with 1 ≤ K ≤ N, such as 2/4")
            }
            shard = parsed
        }
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return FleetOptions(
            databases: databases, listSource: values.value("dbs-from"), nullSeparated: values.flag("null"),
            jobs: try values.integer("jobs", in: 1...1024) ?? cores, shard: shard, failFast: values.flag("fail-fast"))
    }

    /// Every path given, `--db` first, then the list file's.
    func givenPaths() throws -> [String] {
        guard let listSource else { return databases }
        return databases + (try DatabaseList.read(from: listSource, nullSeparated: nullSeparated))
    }
}

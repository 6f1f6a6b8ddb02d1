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

    /// The options of a run over a list, and how its usage errors name the list. One
    /// group for databases (`migrate`, `verify`, `backup`), one for bundles (`restore
    /// --check-only`): the same options and rules, worded for what is listed.
    struct Keys: Sendable {
        let listFrom: Option<String>
        let null: Flag
        let jobs: Option<Int>
        let shard: Option<Shard>
        let failFast: Flag
        /// What `--fail-fast` needs, as its error says.
        let several: String

        /// The group, listed after a command's own options.
        var options: [any OptionKey] { [listFrom, null, jobs, shard, failFast] }

        /// The group with each option's help worded for what is listed; the names,
        /// values and ranges are the same for every list.
        init(several: String, listFrom name: String, _ listHelp: String, jobs jobsHelp: String, shard shardHelp: String, failFast failFastHelp: String) {
            listFrom = Option<String>(name, value: "file", help: listHelp)
            null = Flag("null", help: "With --\(name): the paths are separated by NUL bytes (find -print0).")
            jobs = Option<Int>("jobs", value: "n", help: jobsHelp, in: 1...1024)
            shard = Option<Shard>("shard", value: "K/N", help: shardHelp, expected: "K/N with 1 ≤ K ≤ N, such as 2/4", convert: { Shard($0) })
            failFast = Flag("fail-fast", help: failFastHelp)
            self.several = several
        }
    }

    static let databaseKeys = Keys(several: "more than one database ('--db' repeated, or '--dbs-from <file>')",
        listFrom: "dbs-from", "Read database paths from this file, one a line ('-': standard input); they follow the --db paths.",
        jobs: "How many databases to process at a time (default: the number of cores).",
        shard: "Process only the K-th of N shares of the list: database i (from 0, duplicates removed) belongs to share (i mod N) + 1.",
        failFast: "Start no further database once one has failed.")

    /// The group of `migrate`, `verify` and `backup`, listed after a command's own options.
    static let options = databaseKeys.options

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
        guard try isFleet(values, databaseKeys, items: databases) else { return nil }
        let fleet = try make(values, databaseKeys, items: databases)
        if databases.isEmpty && fleet.listSource == nil { throw values.error("Missing expected argument '--db <path>'") }
        return fleet
    }

    /// Whether the run is over a list: more than one item, or a list file, `--jobs` or
    /// `--shard`. Refuses `--null` and `--fail-fast` on a run over one item.
    static func isFleet(_ values: ParsedValues, _ keys: Keys, items: [String]) throws(CommandLineError) -> Bool {
        let isFleet = items.count > 1 || values.isPresent(keys.listFrom) || values.isPresent(keys.jobs) || values.isPresent(keys.shard)
        guard isFleet else {
            if values[keys.null] { throw values.error("'--null' needs '\(keys.listFrom.definition.display)'") }
            if values[keys.failFast] { throw values.error("'--fail-fast' needs \(keys.several)") }
            return false
        }
        return true
    }

    /// The options of a run over a list (`isFleet`), checked: `--null` only with a list
    /// file (ArgumentKit refuses an empty item or list file name).
    static func make(_ values: ParsedValues, _ keys: Keys, items: [String]) throws(CommandLineError) -> FleetOptions {
        let listDisplay = keys.listFrom.definition.display
        if values[keys.null] && !values.isPresent(keys.listFrom) { throw values.error("'--null' needs '\(listDisplay)'") }
        let cores = max(1, ProcessInfo.processInfo.activeProcessorCount)
        return FleetOptions(
            databases: items, listSource: values[keys.listFrom], nullSeparated: values[keys.null],
            jobs: values[keys.jobs] ?? cores, shard: values[keys.shard], failFast: values[keys.failFast])
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

/// The options several commands share, declared once (as swift-argument-parser's
/// `@OptionGroup`): each command lists the ones it takes, and reads them through these keys.
enum CommonOptions {
    static let json = Flag("json", help: "Print the report as one JSON object on stdout.")
    static let quiet = Flag("quiet", short: "q", help: "Print no progress on stderr.")
    /// One default and one range for every command that waits for locks; a command reads
    /// it with `values.required`, which falls back on the default declared here.
    static let timeout = Option<Double>.seconds(
        "timeout", help: "How long a database's run may wait for other connections' locks, in all, before giving up (exit status 75).",
        default: LockWait.defaultSeconds, in: 0...86_400)

    /// `--load-extension`, repeatable, which each command declares with its own help (what
    /// it loads the extension into).
    static func loadExtension(help: String) -> RepeatedOption<String> {
        RepeatedOption("load-extension", value: "path", help: help)
    }

    /// `--quiet` and `--json`, in that order, last in a command's list.
    static let output: [any OptionKey] = [quiet, json]
}

/// What `--json` and `--quiet` asked for, read once for the shared run.
struct OutputOptions: Sendable {
    let json: Bool
    let quiet: Bool

    init(_ values: ParsedValues, quiet takesQuiet: Bool = true) {
        json = values[CommonOptions.json]
        quiet = takesQuiet && values[CommonOptions.quiet]
    }

    init(json: Bool, quiet: Bool) {
        self.json = json
        self.quiet = quiet
    }
}

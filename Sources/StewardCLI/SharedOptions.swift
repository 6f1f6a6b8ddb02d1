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
    /// A Flyway placeholder's value (migrate and lint read the set alike).
    static let placeholder = RepeatedOption<(name: String, value: String)>(
        "placeholder", value: "name=value",
        help: "Give a Flyway placeholder its value: every ${name} in the set's files is replaced, as Flyway replaces it (may be repeated).",
        expected: "NAME=VALUE, a placeholder's name, '=' and its value",
        convert: { text in
            guard let equals = text.firstIndex(of: "="), equals != text.startIndex else { return nil }
            return (String(text[..<equals]), String(text[text.index(after: equals)...]))
        })

    static let output: [any OptionKey] = [quiet, json]
}

/// `--fts-check` and `--fts-workers` (verify, restore, backup; migrate takes `--fts-check`
/// only): which check proves FTS5 tables, and on how many threads (issue 33).
enum FullTextCheckOptions {
    static let check = Option<FTS5CheckKind>(
        "fts-check", value: "how",
        help: "How FTS5 indexes are proved: parallel (default), Steward's check of the index against its content on --fts-workers threads, which proves what FTS5's rank-1 integrity-check proves; or sqlite, FTS5's own integrity-check on one thread. Tables the parallel check cannot prove (prefix indexes of detail=column or none tables, contentless, a tokenizer the check's connections lack) get FTS5's own check, and the report names them.",
        expected: "parallel or sqlite", convert: { FTS5CheckKind(rawValue: $0) })
    static let workers = Option<Int>(
        "fts-workers", value: "n",
        help: "Threads of the parallel FTS5 check (default: the number of cores; over many databases, the cores divided by --jobs).",
        in: 1...1024)

    static let options: [any OptionKey] = [check, workers]

    /// The check asked for and its workers; nil workers: the default. Over many databases
    /// at a time each database's check gets its share of the cores.
    static func parse(_ values: ParsedValues, jobs: Int?) throws(CommandLineError) -> (kind: FTS5CheckKind, workers: Int?) {
        let kind = values[check] ?? .parallel
        if kind == .sqlite && values.isPresent(workers) {
            throw values.error("'--fts-workers' goes with the parallel check; '--fts-check sqlite' runs FTS5's own check on one thread")
        }
        return (kind, values[workers] ?? jobs.map { max(1, FTS5CheckMethod.cores / max($0, 1)) })
    }
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

/// The handover record a checking command writes besides stdout, for the release
/// pipeline and the colleague who takes the database over (steward(1), "Handover files";
/// design notes, "Handover files"):
///
/// - `--report FILE`: the JSON report, the object `--json` prints; for many databases
///   one JSON object per line (NDJSON), each database's line and the summary last, the
///   lines `--json` prints.
/// - `--junit FILE`: JUnit XML, one `<testsuite>` per database or bundle, one
///   `<testcase>` per check and per search-contract case.
/// - `--summary FILE`: Markdown for people.
/// - `--source-commit REV`: recorded in the JUnit properties and the summary.
///
/// Every file is written whole under a temporary name and renamed (`ReportFile.write`),
/// and never over one of the run's inputs. None holds row data or search text: check
/// summaries, case names, table names, counts, times and hashes only.
struct Handover: Sendable {
    static let report = Option<String>("report", value: "file", help: "Write the JSON report to this file as well (for many databases, one JSON object per line); never an input of the run.")
    static let junit = Option<String>("junit", value: "file", help: "Write a JUnit XML file: a test suite per database, bundle or migration set, a test case per check, migration, finding or search-contract case.")
    static let summary = Option<String>("summary", value: "file", help: "Write a Markdown handover summary: SQLite version and options, the results, the failures, times and the SHA-256 of every file read.")
    static let sourceCommit = Option<String>("source-commit", value: "rev", help: "The source commit the run checks, recorded in the JUnit file and the summary.")
    static let options: [any OptionKey] = [report] + forReadingReports
    /// `steward report`'s: it reads reports, and writes no report file of its own.
    static let forReadingReports: [any OptionKey] = [junit, summary, sourceCommit]

    let reportPath: String?
    let junitPath: String?
    let summaryPath: String?
    let sourceCommit: String?

    /// No handover file asked for.
    static let none = Handover(reportPath: nil, junitPath: nil, summaryPath: nil, sourceCommit: nil)

    private init(reportPath: String?, junitPath: String?, summaryPath: String?, sourceCommit: String?) {
        self.reportPath = reportPath
        self.junitPath = junitPath
        self.summaryPath = summaryPath
        self.sourceCommit = sourceCommit
    }

    /// The files asked for; none may be one of `inputs`, nor two the same file.
    /// `reportFile`: whether the command declares `--report`.
    init(_ values: ParsedValues, inputs: @autoclosure () -> [ReportFile.Input], reportFile: Bool = true) throws(CommandLineError) {
        self.init(reportPath: reportFile ? values[Self.report] : nil, junitPath: values[Self.junit], summaryPath: values[Self.summary],
                  sourceCommit: values[Self.sourceCommit])
        guard !files.isEmpty else { return }
        let inputs = inputs()
        var named: [String: String] = [:]
        for (option, path) in files {
            if let conflict = ReportFile.conflict(path: path, inputs: inputs) {
                throw values.error("'--\(option) \(path)' \(conflict); a report never replaces an input")
            }
            // Not yet there, so compared by name: two outputs cannot be one file.
            if let other = named[DatabaseList.absolute(path)] {
                throw values.error("'--\(option) \(path)' is also the --\(other) file; each report needs a file of its own")
            }
            named[DatabaseList.absolute(path)] = option
        }
    }

    /// The files asked for, by option name.
    var files: [(option: String, path: String)] {
        [("report", reportPath), ("junit", junitPath), ("summary", summaryPath)].compactMap { item in item.1.map { (item.0, $0) } }
    }

    var isEmpty: Bool { files.isEmpty }
}

/// What a command runs and how: its operation's options, many databases or one
/// (`fleet`), what goes to stdout and stderr (`output`), and the handover files. The
/// command's `Work` is read from it, so a command names its operation once.
struct Invocation<Work: StewardOperation>: Sendable {
    let options: Work.Options
    var fleet: FleetOptions? = nil
    let output: OutputOptions
    var handover: Handover = .none
}

import ArgumentKit

/// A command tree shaped like Steward's, built for the tests so that they do not
/// depend on the real commands' wording.
enum SampleCommands {
    static let json = Flag("json", help: "Print the report as one JSON object on stdout.")
    static let quiet = Flag("quiet", short: "q", help: "Print no progress on stderr.")
    static let output = Option<String>("output", short: "o", value: "path", help: "Where to write the bundle.", required: true)
    static let retries = Option<Int>("retries", value: "count", help: "How often to retry on SQLITE_BUSY.", default: 3, in: 0...10)
    static let timeout = Option<Double>.seconds("timeout", help: "How long to wait for a lock.", default: 5, in: 0...60)
    static let check = RepeatedOption<String>("check", value: "sql", help: "An SQL assertion to run on the copy.")
    static let path = Argument("path", help: "The database to back up.")

    static let inspect = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what is inside a database file.",
        arguments: [ArgumentDefinition("path", help: "The database file.")],
        options: [json, quiet])

    static let backup = CommandConfiguration(
        commandName: "backup",
        abstract: "Take a consistent online snapshot.",
        discussion: "The bundle is written under a temporary name.\nIt is renamed into place at the end.",
        arguments: [path.definition],
        options: [output, retries, timeout, check, json])

    static let verify = CommandConfiguration(
        commandName: "verify",
        abstract: "Prove a database.",
        arguments: [
            ArgumentDefinition("path", help: "The database."),
            ArgumentDefinition("fixtures", help: "A fixture file.", isOptional: true),
        ],
        options: [json])

    static let list = CommandConfiguration(
        commandName: "list", abstract: "List the entries of a bundle.",
        arguments: [ArgumentDefinition("bundle", help: "The bundle.")])

    static let bundle = CommandConfiguration(
        commandName: "bundle",
        abstract: "Work with bundles.",
        subcommands: [list])

    static let restore = CommandConfiguration(
        commandName: "restore",
        abstract: "Unpack a bundle.",
        unavailableReason: "'steward restore' is not available yet.")

    static let root = CommandConfiguration(
        commandName: "steward",
        abstract: "Keep SQLite databases safe.",
        discussion: "Exit status: 0 success; 64 usage error.",
        version: "1.2.3",
        subcommands: [inspect, backup, verify, bundle, restore])

    static let parser = CommandLineParser(root: root)
}

import ArgumentKit
import FileNames
import Foundation
import SQLiteKit
import StewardBase
import StewardCore

#if canImport(Glibc)
import Glibc
#endif

/// The `steward` command: parses the arguments, runs a subcommand, picks the exit status.
public enum Steward {
    static var commands: [any StewardCommand.Type] { [
        InspectCommand.self,
        MigrateCommand.self,
        VerifyCommand.self,
        LintCommand.self,
        BackupCommand.self,
        RestoreCommand.self,
        ReportCommand.self,
        CompletionsCommand.self,
    ] }

    /// Commands that appear in help but are not built yet.
    static let plannedCommands: [CommandConfiguration] = []

    static var root: CommandConfiguration {
        let order = ["migrate", "verify", "lint", "backup", "restore", "inspect", "report"]
        let all = commands.map { $0.configuration } + plannedCommands
        return CommandConfiguration(
            commandName: "steward",
            abstract: "Keep SQLite databases safe through upgrades and handovers.",
            discussion: """
                Exit status: 0 success; 1 a check failed or Steward refused to publish; 64 usage error; \
                65 bad input data; 66 input not found; 73 output cannot be created; 74 I/O error; \
                75 database busy or locked (retrying may succeed); 130 interrupted. Over many databases \
                (--db repeated, --dbs-from, --jobs, --shard): 0 when all succeeded, otherwise the status all \
                failures share, or 1 when they differ.
                """,
            version: StewardVersion.full,
            subcommands: order.compactMap { name in all.first { $0.commandName == name } }
                + [CompletionsCommand.configuration])
    }

    /// Runs `steward` with `arguments` (without the program name) and returns the exit status.
    public static func run(arguments: [String], terminal: Terminal) -> Int32 {
        let parser = CommandLineParser(root: root)
        let values: ParsedValues
        // `--json` belongs to the commands, not to `steward` itself; before `--version` it
        // asks for the version as JSON, as it does after.
        let leading = arguments.prefix { $0.hasPrefix("-") }
        let versionAsJSON = leading.contains("--version") && leading.contains("--json")
            && leading.allSatisfy { $0 == "--json" || $0 == "--version" }
        if leading.contains("--json"), leading.contains(where: { $0 == "--help" || $0 == "-h" }),
           leading.allSatisfy({ $0 == "--json" || $0 == "--help" || $0 == "-h" }) {
            return usageFailure(helpHasNoJSON(path: [root.commandName]), arguments: arguments, terminal: terminal)
        }
        // `steward help migrate --json` asks for the same help as `migrate --help --json`.
        if arguments.first == "help", arguments.contains("--json") {
            let named = arguments.dropFirst().prefix { !$0.hasPrefix("-") }
            return usageFailure(helpHasNoJSON(path: [root.commandName] + named), arguments: arguments, terminal: terminal)
        }
        do {
            switch try parser.parse(versionAsJSON ? ["--version"] : arguments) {
            case .help(let text, let path):
                // Help is text only: with `--json` a script would read text where it expects
                // one JSON object, so it gets the usage error's object instead.
                if arguments.prefix(while: { $0 != "--" }).contains("--json") {
                    return usageFailure(helpHasNoJSON(path: path), arguments: arguments, terminal: terminal)
                }
                terminal.print(text)
                return ExitCode.success
            case .version(let version):
                if versionAsJSON || arguments.prefix(while: { $0 != "--" }).contains("--json"),
                   let json = try? ReportOutput.json(VersionReport(versionText: version), command: "version", exitCode: ExitCode.success) {
                    terminal.print(json)
                } else {
                    terminal.print(version)
                }
                return ExitCode.success
            case .run(let parsed):
                values = parsed
            }
        } catch {
            return usageFailure(error, arguments: arguments, terminal: terminal)
        }

        if let reason = values.command.unavailableReason {
            return usageFailure(values.error(reason), arguments: arguments, terminal: terminal)
        }
        guard let type = commands.first(where: { $0.configuration.commandName == values.command.commandName }) else {
            terminal.diagnose("Error: no implementation for '\(values.command.commandName)'")
            return ExitCode.software
        }

        // Before anything in this process uses SQLite (design notes, "Performance").
        if !type.honoursSQLiteHeapLimits { SQLiteLibrary.turnOffMemoryStatistics() }
        let command: any StewardCommand
        do {
            command = try type.init(values)
        } catch {
            return usageFailure(error, arguments: arguments, terminal: terminal)
        }

        let name = values.command.commandName
        defer {
            if ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_REPORT_SQLITE_MEMORY_STATISTICS"] == "1" {
                terminal.diagnose("SQLite memory statistics: \(SQLiteLibrary.keepsMemoryStatistics ? "on" : "off")")
            }
        }
        // Over many databases every JSON object is one NDJSON line, a failure of the whole
        // run too, so that the concatenated output of shards stays readable.
        let oneLine = (command as? any FleetCommand)?.fleet != nil
        do {
            return try command.run(on: terminal)
        } catch let error as StewardError {
            return fail(command: name, kind: error.kind.rawValue, message: RemedyWording.message(of: error),
                        status: ExitCode.for(error.kind), json: command.json, oneLine: oneLine, terminal: terminal)
        } catch {
            return fail(command: name, kind: StewardError.Kind.internal.rawValue, message: SQLiteMessage.text(of: error),
                        status: ExitCode.software, json: command.json, oneLine: oneLine, terminal: terminal)
        }
    }

    /// A usage error: three lines on stderr and status 64; with `--json` among the options,
    /// also the failure object on stdout, so that a script always gets one JSON object: on
    /// one line (`kind` `run`) when the command line asks for a run over many databases.
    private static func usageFailure(
        _ error: CommandLineError, arguments: [String], terminal: Terminal
    ) -> Int32 {
        terminal.diagnose(error.description)
        let options = arguments.prefix { $0 != "--" }
        if options.contains("--json") {
            let command = error.commandPath.split(separator: " ").last.map(String.init) ?? "steward"
            terminal.print(failureJSON(
                command: command, kind: "usage", message: error.message, exitCode: CommandLineError.exitCode,
                oneLine: asksForManyItems(arguments)))
        }
        return CommandLineError.exitCode
    }

    /// Whether the command line asks for a run over many databases or bundles, as far as
    /// it can be read: `--jobs`, `--shard`, `--dbs-from`, `--bundles-from`, `--db` more than
    /// once, or several bundles. A usage error can come before the options are parsed (an
    /// unknown option, an empty value), so the words are read as they are.
    static func asksForManyItems(_ arguments: [String]) -> Bool {
        let options = arguments.prefix { $0 != "--" }
        func isOption(_ word: String, _ name: String) -> Bool { word == name || word.hasPrefix(name + "=") }
        let listOptions = ["--jobs", "--shard", "--dbs-from", "--bundles-from"]
        if options.contains(where: { word in listOptions.contains { isOption(word, $0) } }) { return true }
        if options.filter({ isOption($0, "--db") }).count > 1 { return true }
        let restore = RestoreCommand.configuration
        return arguments.first == restore.commandName && restore.positionalWords(in: Array(arguments.dropFirst())).count > 1
    }

    /// The failure object: pretty, or as one NDJSON line of `kind` `run` in a run over many.
    private static func failureJSON(command: String, kind: String, message: String, exitCode: Int32, oneLine: Bool) -> String {
        guard oneLine else { return ReportOutput.failure(command: command, kind: kind, message: message, exitCode: exitCode) }
        let failure = ReportOutput.Failure(error: .init(kind: kind, message: message))
        return (try? FleetEnvelope(runFailure: failure, command: command, exitCode: exitCode).line())
            ?? "{\"kind\":\"run\",\"status\":\"error\",\"exitCode\":\(exitCode)}"
    }

    /// `--help` with `--json`, for the command at `path`.
    private static func helpHasNoJSON(path: [String]) -> CommandLineError {
        var command = root
        for name in path.dropFirst() {
            guard let next = command.subcommand(named: name) else { break }
            command = next
        }
        return CommandLineError(
            message: "--help has no JSON form; run it without --json", usage: HelpFormatter.usage(for: command, path: path),
            commandPath: path.joined(separator: " "))
    }

    private static func fail(
        command: String, kind: String, message: String, status: Int32, json: Bool, oneLine: Bool, terminal: Terminal
    ) -> Int32 {
        terminal.diagnose("Error: \(ReportOutput.escaped(message))")
        if json {
            terminal.print(failureJSON(command: command, kind: kind, message: message, exitCode: status, oneLine: oneLine))
        }
        return status
    }

    /// `--version --json`: the envelope the other commands print (`command` `version`,
    /// `stewardVersion`), with the text `--version` prints (the commit of a stamped build).
    struct VersionReport: Encodable {
        let versionText: String
    }

    /// The arguments byte for byte: `CommandLine.arguments` replaces bytes that are not
    /// UTF-8 with U+FFFD, which would make Steward open, or create, another file than the
    /// one named (FileNames).
    static func rawArguments() -> [String] {
        (0..<Int(CommandLine.argc)).map { index in
            guard let argument = CommandLine.unsafeArgv[index] else { return "" }
            return FileName.decode(UnsafeRawBufferPointer(start: argument, count: strlen(argument)))
        }
    }

    /// The entry point of the executable.
    public static func main() -> Never {
        let status = run(arguments: Array(rawArguments().dropFirst()), terminal: .standard())
        exit(status)
    }
}

/// A subcommand: its configuration, validation of parsed values into a typed command,
/// and running it. Parse, then validate, then run.
protocol StewardCommand {
    static var configuration: CommandConfiguration { get }

    /// Validates the parsed values; throws a usage error for bad values.
    init(_ values: ParsedValues) throws(CommandLineError)

    /// Whether the user asked for JSON.
    var json: Bool { get }

    /// Runs the command and returns the exit status. Throws `StewardError` for failures.
    func run(on terminal: Terminal) throws -> Int32

    /// Whether SQL the user hands this command may rely on SQLite's heap limits (below).
    static var honoursSQLiteHeapLimits: Bool { get }
}

extension StewardCommand {
    /// Whether SQL the user hands this command may rely on SQLite's heap limits
    /// (`PRAGMA hard_heap_limit` in a migration). A command that says no runs with
    /// SQLite's memory statistics off (`SQLiteLibrary.turnOffMemoryStatistics`): its
    /// checks run side by side on several threads, and the statistics' process-wide mutex
    /// made them wait on each other (design notes, "Performance"). Default: true.
    static var honoursSQLiteHeapLimits: Bool { true }
}

/// Where a command writes: stdout for the report, stderr for diagnostics and progress.
/// Tests substitute their own.
public final class Terminal: Sendable {
    private let writeOut: @Sendable (String) -> Void
    private let writeError: @Sendable (String) -> Void
    /// Whether stderr is a terminal (progress bars only then).
    public let isErrorInteractive: Bool

    public init(out: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void, isErrorInteractive: Bool) {
        self.writeOut = out
        self.writeError = error
        self.isErrorInteractive = isErrorInteractive
    }

    /// Whether standard input is a terminal: a bundle is never read from one.
    public static var isInputInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard output is a terminal: a bundle is never written to one.
    public static var isOutputInteractive: Bool { isatty(STDOUT_FILENO) == 1 }

    /// The process's own stdout and stderr.
    public static func standard() -> Terminal {
        Terminal(
            out: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
            error: { text in FileHandle.standardError.write(Data(text.utf8)) },
            isErrorInteractive: isatty(STDERR_FILENO) == 1)
    }

    public func print(_ text: String) {
        let clean = Self.printable(text)
        writeOut(clean.hasSuffix("\n") ? clean : clean + "\n")
    }

    public func diagnose(_ text: String) {
        let clean = Self.printable(text)
        writeError(clean.hasSuffix("\n") ? clean : clean + "\n")
    }

    /// The last line of defence for whole texts: every name from a file is escaped where
    /// it is put into a line (`ReportOutput.escaped`), which keeps it on that line; what
    /// is left here are the report's own newlines and tabs. Any other control character
    /// is shown as `?`, and a byte of a file name that is not UTF-8 as `\xHH`.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || FileName.rawByte($0) != nil }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let byte = FileName.rawByte(scalar) {
                result.append(contentsOf: String(format: "\\x%02X", byte).unicodeScalars)
            } else {
                result.append(isControl(scalar) ? "?" : scalar)
            }
        }
        return String(result)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && scalar != "\n" && scalar != "\t") || value == 0x7F || (0x80...0x9F).contains(value)
    }

    /// Writes to stderr without a newline (progress lines redraw with `\r`).
    public func progress(_ text: String) {
        writeError(text)
    }
}

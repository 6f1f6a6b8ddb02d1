import ArgumentKit
import Foundation
import Testing
@testable import StewardCLI

/// Each command's `init(_ values:)` reads only the options and arguments it declares:
/// a renamed option read under its old name would otherwise take its default silently.
/// `ParsedValues` stops a debug build at such a read, so the commands are built in a
/// child process, once with only what is required and once more with each option given.
@Suite struct CommandOptionReadsTests {
    @Test func everyCommandReadsOnlyWhatItDeclares() async {
        await #expect(processExitsWith: .success) {
            let parsed = CommandOptionReadsTests.buildEveryCommand()
            // An invocation the parser refused never reached the command's reads.
            let expected = Steward.commands.reduce(0) { $0 + CommandOptionReadsTests.invocations(of: $1.configuration).count }
            exit(parsed == expected ? 0 : 3)
        }
    }

    @Test func invocationsCoverEveryOption() {
        for type in Steward.commands {
            let command = type.configuration
            let given = Set(Self.invocations(of: command).flatMap { $0 })
            for option in command.options {
                #expect(given.contains("--\(option.name)"), "\(command.commandName) --\(option.name)")
            }
        }
    }

    /// Parses and builds each command with each invocation; returns how many parsed.
    static func buildEveryCommand() -> Int {
        let parser = CommandLineParser(root: Steward.root)
        var parsed = 0
        for type in Steward.commands {
            for arguments in invocations(of: type.configuration) {
                guard case .run(let values)? = try? parser.parse([type.configuration.commandName] + arguments) else { continue }
                parsed += 1
                // A usage error is fine here: only the reads matter.
                _ = try? type.init(values)
            }
        }
        return parsed
    }

    /// Required options and arguments alone, then with each other option, then with all.
    static func invocations(of command: CommandConfiguration) -> [[String]] {
        let required = command.options.filter(\.isRequired).flatMap(words)
        let arguments = command.arguments.map { _ in "bash" }  // `completions` wants a shell name
        var result = [required + arguments]
        for option in command.options where !option.isRequired {
            result.append(required + words(option) + arguments)
        }
        result.append(command.options.flatMap(words) + arguments)
        return result
    }

    static func words(_ option: OptionDefinition) -> [String] {
        guard let valueName = option.valueName else { return ["--\(option.name)"] }
        // Typed options are converted while parsing: each gets a value of its type.
        let samples = ["n": "1", "seconds": "1", "version": "1", "K/N": "1/1", "name": "steward", "name=value": "owner=ann", "kind:name": "row-loss:x", "X.Y.Z": "3.35.0", "format": "sarif", "how": "parallel"]
        let value = option.defaultValue ?? samples[valueName] ?? "x"
        return ["--\(option.name)", value]
    }
}

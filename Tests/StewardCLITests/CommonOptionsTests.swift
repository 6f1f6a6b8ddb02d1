import ArgumentKit
import Testing
@testable import StewardCLI

/// `--json`, `--quiet` and `--timeout` are one declaration each: every command that takes
/// one shows the same help and the same default (once, four commands had three wordings).
@Suite struct CommonOptionsTests {
    static let shared: [OptionDefinition] = [CommonOptions.json.definition, CommonOptions.quiet.definition, CommonOptions.timeout.definition]

    @Test(arguments: shared.map(\.name))
    func everyCommandDeclaresTheSharedOption(named name: String) throws {
        let expected = try #require(Self.shared.first { $0.name == name })
        let users = Steward.commands.map { $0.configuration }.filter { command in command.options.contains { $0.name == name } }
        #expect(!users.isEmpty)
        for command in users {
            let option = try #require(command.options.first { $0.name == name })
            #expect(option.help == expected.help, "\(command.commandName) --\(name)")
            #expect(option.defaultValue == expected.defaultValue, "\(command.commandName) --\(name)")
            #expect(option.shortName == expected.shortName, "\(command.commandName) --\(name)")
        }
    }

    @Test func timeoutDefaultsToThirtySeconds() {
        #expect(CommonOptions.timeout.defaultValue == 30)
        #expect(CommonOptions.timeout.definition.defaultValue == "30")
        #expect(Steward.commands.filter { $0.configuration.options.contains { $0.name == "timeout" } }.count == 4)
    }

    @Test func aTimeoutThatIsNotANumberIsAUsageError() throws {
        let parser = CommandLineParser(root: Steward.root)
        for command in ["migrate", "verify", "backup"] {
            let error = try #require(throws: CommandLineError.self) {
                try parser.parse([command, "--db", "a.db", "--out", "o", "--timeout", "soon"].filter { command == "backup" || ($0 != "--out" && $0 != "o") })
            }
            #expect(error.message == "The value 'soon' is invalid for '--timeout <seconds>': expected a number of seconds from 0 to 86400")
        }
    }
}

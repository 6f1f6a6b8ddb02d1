import Testing
@testable import ArgumentKit

@Suite struct CommandConfigurationTests {
    @Test func optionDisplay() {
        #expect(OptionDefinition.option("db", value: "path", help: "h").display == "--db <path>")
        #expect(OptionDefinition.flag("json", help: "h").display == "--json")
    }

    @Test func optionFactoryKeepsEverySetting() {
        let option = OptionDefinition.option(
            "check", short: "c", value: "sql", help: "An assertion.", default: "SELECT 1", required: true, repeating: true)
        #expect(option.name == "check")
        #expect(option.shortName == "c")
        #expect(option.valueName == "sql")
        #expect(option.help == "An assertion.")
        #expect(option.defaultValue == "SELECT 1")
        #expect(option.isRequired)
        #expect(option.isRepeating)
        #expect(!option.isFlag)
    }

    @Test func flagIsNeitherRequiredNorRepeating() {
        let flag = OptionDefinition.flag("quiet", short: "q", help: "No progress.")
        #expect(flag.isFlag)
        #expect(flag.shortName == "q")
        #expect(flag.valueName == nil)
        #expect(flag.defaultValue == nil)
        #expect(!flag.isRequired)
        #expect(!flag.isRepeating)
    }

    @Test func argumentDisplay() {
        #expect(ArgumentDefinition("path", help: "h").display == "<path>")
        #expect(!ArgumentDefinition("path", help: "h").isOptional)
        #expect(ArgumentDefinition("fixtures", help: "h", isOptional: true).isOptional)
    }

    @Test func subcommandLookupIsByExactName() {
        #expect(SampleCommands.root.subcommand(named: "inspect")?.commandName == "inspect")
        #expect(SampleCommands.root.subcommand(named: "Inspect") == nil)
        #expect(SampleCommands.root.subcommand(named: "list") == nil)
        #expect(SampleCommands.bundle.subcommand(named: "list")?.commandName == "list")
    }

    @Test func defaultsOfTheInitializer() {
        let command = CommandConfiguration(commandName: "x", abstract: "An x.")
        #expect(command.discussion == nil)
        #expect(command.version == nil)
        #expect(command.arguments.isEmpty)
        #expect(command.options.isEmpty)
        #expect(command.subcommands.isEmpty)
        #expect(command.unavailableReason == nil)
    }
}

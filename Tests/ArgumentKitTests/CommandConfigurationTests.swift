import Testing
@testable import ArgumentKit

@Suite struct CommandConfigurationTests {
    @Test func optionDisplay() {
        #expect(OptionDefinition.option("db", value: "path", help: "h").display == "--db <path>")
        #expect(OptionDefinition.flag("json", help: "h").display == "--json")
    }

    @Test func argumentDisplay() {
        #expect(ArgumentDefinition("path", help: "h").display == "<path>")
        #expect(ArgumentDefinition("files", help: "h", isRepeating: true).display == "<files> ...")
    }

    @Test func subcommandLookupIsByExactName() {
        #expect(SampleCommands.root.subcommand(named: "inspect")?.commandName == "inspect")
        #expect(SampleCommands.root.subcommand(named: "Inspect") == nil)
        #expect(SampleCommands.root.subcommand(named: "list") == nil)
        #expect(SampleCommands.bundle.subcommand(named: "list")?.commandName == "list")
    }
}

import Testing
import ArgumentKit

@Suite struct CommandLineErrorTests {
    @Test func rendersThreeLinesEachEndingInANewline() {
        let error = CommandLineError(
            message: "Unknown option '--josn'. Did you mean '--json'?",
            usage: "steward inspect [--json] <path>",
            commandPath: "steward inspect")
        #expect(error.description
            == "Error: Unknown option '--josn'. Did you mean '--json'?\n"
            + "Usage: steward inspect [--json] <path>\n"
            + "  See 'steward inspect --help' for more information.\n")
        let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 4)
        #expect(lines.last == "")
    }

    @Test func rootCommandHint() {
        let error = CommandLineError(message: "Unknown command 'x'", usage: "steward <subcommand>", commandPath: "steward")
        #expect(error.description.hasSuffix("  See 'steward --help' for more information.\n"))
    }

    @Test func exitCodeIsEXUsage() {
        #expect(CommandLineError.exitCode == 64)
    }
}

import Testing
@testable import ArgumentKit

/// Completion scripts are generated from the definitions: every visible command and
/// option appears, hidden commands do not, and values complete by their placeholder.
@Suite struct CompletionScriptTests {
    static let hidden = CommandConfiguration(
        commandName: "secret", abstract: "Not for users.", options: [OptionDefinition.flag("now", help: "Right away.")],
        isHidden: true)

    static var rootWithHidden: CommandConfiguration {
        var root = SampleCommands.root
        root.subcommands.append(hidden)
        return root
    }

    @Test(arguments: [
        ("path", ValueCompletion.file), ("file", .file), ("file.sql", .file), ("file.json", .file),
        ("bundle", .file), ("key-file", .file), ("dir", .directory), ("directory", .directory),
        ("out-dir", .directory), ("seconds", .none), ("n", .none), ("version", .none), ("sql", .none),
    ])
    func placeholderDecidesWhatCompletes(placeholder: String, completion: ValueCompletion) {
        #expect(ValueCompletion(placeholder: placeholder) == completion)
    }

    @Test func flagsCompleteNothing() {
        #expect(SampleCommands.json.definition.valueCompletion == .none)
    }

    @Test func hiddenCommandIsLeftOutOfHelpButStillParses() throws {
        let text = HelpFormatter.help(for: Self.rootWithHidden, path: ["steward"])
        #expect(!text.contains("secret"))
        let parser = CommandLineParser(root: Self.rootWithHidden)
        guard case .run(let values) = try parser.parse(["secret", "--now"]) else {
            Issue.record("'secret --now' should run")
            return
        }
        #expect(values.command.commandName == "secret")
        #expect(values.flag("now"))
    }

    @Test(arguments: CompletionShell.allCases)
    func everyVisibleCommandAndOptionIsInTheScript(shell: CompletionShell) {
        let script = shell.script(for: Self.rootWithHidden)
        for command in ["inspect", "backup", "verify", "bundle", "list", "restore"] {
            #expect(script.contains(command), "\(shell): \(command)")
        }
        for option in ["output", "retries", "timeout", "check", "json", "quiet", "help", "version"] {
            #expect(script.contains(option), "\(shell): --\(option)")
        }
        #expect(!script.contains("secret"), "\(shell): hidden command")
        #expect(!script.contains("now"), "\(shell): hidden command's option")
    }

    @Test(arguments: CompletionShell.allCases)
    func anOptionAddedToADefinitionAppearsInTheScript(shell: CompletionShell) {
        var root = SampleCommands.root
        root.subcommands[0].options.append(.option("frobnicate-dir", value: "dir", help: "Where to frobnicate."))
        #expect(!shell.script(for: SampleCommands.root).contains("frobnicate-dir"))
        #expect(shell.script(for: root).contains("frobnicate-dir"))
    }

    @Test func bashKnowsWhichOptionsTakeFilesAndDirectories() {
        var root = SampleCommands.root
        root.subcommands[0].options.append(.option("into", value: "dir", help: "A directory."))
        let script = CompletionShell.bash.script(for: root)
        #expect(script.contains("""
                    'steward inspect')
                        options='--json -q --quiet --into -h --help'
                        values='--into'
                        directories='--into'
                        positional='file'
            """))
        #expect(script.contains("""
                    'steward backup')
                        options='-o --output --retries --timeout --check --json -h --help'
                        values='-o --output --retries --timeout --check'
                        files='-o --output'
                        positional='file'
            """))
        #expect(script.contains("'steward bundle'|'steward bundle list'"))
        #expect(script.hasSuffix("complete -F _steward steward\n"))
    }

    @Test func zshSpecsCarryValuesRepeatsAndShortNames() {
        let script = CompletionShell.zsh.script(for: SampleCommands.root)
        #expect(script.hasPrefix("#compdef steward\n"))
        #expect(script.contains("'(-o --output)'{-o,--output=}'[Where to write the bundle.]:path:_files'"))
        #expect(script.contains("'*--check=[An SQL assertion to run on the copy.]:sql: '"))
        #expect(script.contains("'--retries=[How often to retry on SQLITE_BUSY. (default: 3)]:count: '"))
        #expect(script.contains("'(-q --quiet)'{-q,--quiet}'[Print no progress on stderr.]'"))
        #expect(script.contains("':path:_files'"))
        #expect(script.contains("'::fixtures: '"))
        #expect(script.contains("'bundle:Work with bundles.'"))
        #expect(script.contains("_steward_bundle_list()"))
    }

    @Test func fishCompletesEachOptionAtItsCommand() {
        let script = CompletionShell.fish.script(for: SampleCommands.root)
        #expect(script.contains(
            "complete -c steward -n '__steward_at steward backup' -s o -l output -r -F -d 'Where to write the bundle.'"))
        #expect(script.contains(
            "complete -c steward -n '__steward_at steward backup' -l retries -x -d 'How often to retry on SQLITE_BUSY. (default: 3)'"))
        #expect(script.contains("complete -c steward -n '__steward_at steward' -a 'bundle' -d 'Work with bundles.'"))
        #expect(script.contains("complete -c steward -n '__steward_at steward bundle list' -F"))
    }

    /// Help text is quoted for each shell: a quote or bracket in it cannot end a string
    /// or a description early.
    @Test func quotesAndBracketsInHelpAreEscaped() {
        let root = CommandConfiguration(
            commandName: "steward", abstract: "Root.",
            subcommands: [CommandConfiguration(
                commandName: "odd", abstract: "It's [odd].",
                options: [OptionDefinition.flag("loud", help: "Say 'hi' [twice] \\ now.")])])
        #expect(CompletionShell.zsh.script(for: root).contains("'--loud[Say '\\''hi'\\'' \\[twice\\] \\\\ now.]'"))
        #expect(CompletionShell.fish.script(for: root).contains("-d 'Say \\'hi\\' [twice] \\\\ now.'"))
        #expect(CompletionShell.zsh.script(for: root).contains("'odd:It'\\''s [odd].'"))
    }
}

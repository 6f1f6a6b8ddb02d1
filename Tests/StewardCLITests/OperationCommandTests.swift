import ArgumentKit
import Foundation
import StewardCore
import Testing
@testable import StewardCLI

/// The shared run of `OperationCommand`: progress on stderr unless `--quiet`, the report
/// as text or as the JSON envelope on stdout, and the command's own exit-status rule.
@Suite struct OperationCommandTests {
    /// An operation that reports one step and passes or fails as asked.
    struct Probe: StewardOperation {
        struct Options: Sendable { var fails = false }
        enum Event: Sendable { case step(Int) }
        struct Report: Codable, Sendable { let passed: Bool }

        let setup: OperationSetup<Options, Event>

        init(setup: OperationSetup<Options, Event>) {
            self.setup = setup
        }

        func run() throws -> Report {
            setup.progress(.step(1))
            return Report(passed: !setup.options.fails)
        }
    }

    struct ProbeCommand: FleetCommand {
        static let fails = Flag("fails", help: "Fail.")
        static let configuration = CommandConfiguration(
            commandName: "probe", abstract: "Probe.", options: [fails] + CommonOptions.output)
        let invocation: Invocation<Probe>

        init(_ values: ParsedValues) throws(CommandLineError) {
            invocation = Invocation(options: Probe.Options(fails: values[Self.fails]), output: OutputOptions(values))
        }

        func progress(on terminal: Terminal, live: Bool) -> @Sendable (Probe.Event) -> Void {
            { event in
                if case .step(let number) = event { terminal.diagnose("step \(number)") }
            }
        }

        static func render(_ report: Probe.Report) -> String {
            report.passed ? "PASSED" : "FAILED"
        }

        static func exitStatus(of report: Probe.Report) -> Int32 {
            report.passed ? ExitCode.success : ExitCode.checkFailed
        }

        static func options(_ options: Probe.Options, for path: String) -> Probe.Options {
            options
        }

        static func fleetDetail(_ report: Probe.Report) -> String {
            report.passed ? "all good" : "it failed"
        }

        static func inputs(of options: Probe.Options) -> [ReportFile.Input] { [] }
        static func subject(of options: Probe.Options) -> String { "probe.db" }
        static func seconds(of report: Probe.Report) -> Double { 0 }
        static func handoverCases(_ report: Probe.Report) -> [JUnit.Case] {
            [JUnit.Case(name: "probe", seconds: 0, result: report.passed ? .passed : .failed("it failed", details: []))]
        }
        static func handoverSummary(_ report: Probe.Report) -> [String] { [] }
    }

    final class Captured: @unchecked Sendable {
        var out = ""
        var error = ""
    }

    private func run(_ arguments: [String]) throws -> (status: Int32, out: String, error: String) {
        let root = CommandConfiguration(commandName: "steward", abstract: "S.", subcommands: [ProbeCommand.configuration])
        guard case .run(let values) = try CommandLineParser(root: root).parse(["probe"] + arguments) else {
            throw CommandLineError(message: "not run", usage: "", commandPath: "")
        }
        let captured = Captured()
        let terminal = Terminal(out: { captured.out += $0 }, error: { captured.error += $0 }, isErrorInteractive: false)
        let status = try ProbeCommand(values).run(on: terminal)
        return (status, captured.out, captured.error)
    }

    @Test func textReportAndProgress() throws {
        let result = try run([])
        #expect(result.status == 0)
        #expect(result.out == "PASSED\n")
        #expect(result.error == "step 1\n")
    }

    @Test func quietSilencesProgressOnly() throws {
        let result = try run(["--quiet", "--fails"])
        #expect(result.status == 1)
        #expect(result.out == "FAILED\n")
        #expect(result.error == "")
    }

    @Test func jsonCarriesTheEnvelopeAndTheCommandsStatus() throws {
        let result = try run(["--json", "--fails"])
        #expect(result.status == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [String: Any])
        #expect(object["command"] as? String == "probe")
        #expect(object["status"] as? String == "failed")
        #expect(object["exitCode"] as? Int == 1)
        #expect(object["passed"] as? Bool == false)
        #expect(object["schemaVersion"] as? Int == 1)
    }

    /// An item of a fleet is judged by the rule of a single run, and its line carries the
    /// report a single run prints, with its kind and outcome.
    @Test func aFleetItemIsJudgedAsASingleRun() throws {
        let failed = try ProbeCommand.item(Probe.Report(passed: false), path: "probe.db")
        #expect(failed.exitCode == 1)
        #expect(failed.outcome == "failed")
        #expect(failed.detail == "it failed")
        #expect(failed.message == "it failed")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(failed.json.utf8)) as? [String: Any])
        #expect(object["kind"] as? String == "database")
        #expect(object["outcome"] as? String == "failed")
        #expect(object["status"] as? String == "failed")
        #expect(object["passed"] as? Bool == false)
        let passed = try ProbeCommand.item(Probe.Report(passed: true), path: "probe.db")
        #expect(passed.exitCode == 0)
        #expect(passed.outcome == "passed")
        #expect(passed.message == nil)
    }

    @Test func theOperationCommandsShareTheShape() {
        let shaped = Steward.commands.filter { $0 is any OperationCommand.Type }.map { $0.configuration.commandName }
        #expect(Set(shaped) == ["migrate", "verify", "lint", "backup", "restore", "inspect"])
    }
}

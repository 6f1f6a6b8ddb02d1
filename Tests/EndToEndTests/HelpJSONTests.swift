import Foundation
import Testing
import TestSupport

/// `--help` has no JSON form: with `--json` every command answers with the usage error
/// (64) and its JSON object, so a script reading one JSON object never gets help text.
@Suite struct HelpJSONTests {
    static let commands = [[], ["migrate"], ["verify"], ["backup"], ["restore"], ["inspect"], ["report"], ["completions"]]

    @Test(arguments: commands)
    func helpWithJSONIsAUsageError(_ command: [String]) throws {
        // `steward help CMD --json` is the same request as `steward CMD --help --json`.
        for line in [command + ["--help", "--json"], command + ["--json", "-h"], ["help"] + command + ["--json"]] {
            let run = try StewardProcess.run(line)
            let label = line.joined(separator: " ")
            #expect(run.status == 64, "\(label): \(run.allOutput)")
            let object = try #require(try? run.json(), "\(label): \(run.stdout)")
            #expect(object["command"] as? String == command.first ?? "steward", "\(label)")
            let error = object["error"] as? [String: Any]
            #expect(error?["kind"] as? String == "usage", "\(label)")
            #expect(error?["message"] as? String == "--help has no JSON form; run it without --json", "\(label)")
            let lines = run.stderr.split(separator: "\n")
            #expect(lines.first == "Error: --help has no JSON form; run it without --json", "\(label): \(run.stderr)")
            #expect(lines.count == 3 && lines[1].hasPrefix("Usage: steward"), "\(label): \(run.stderr)")
        }
    }

    @Test(arguments: commands)
    func helpAloneIsStillText(_ command: [String]) throws {
        let run = try StewardProcess.run(command + ["--help"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("OVERVIEW:"), "\(run.stdout)")
        // After `--`, `--json` is no option.
        if let name = command.first, name != "completions" {
            let ended = try StewardProcess.run([name, "--help", "--", "--json"])
            #expect(ended.status == 0 && ended.stdout.hasPrefix("OVERVIEW:"), "\(ended.allOutput)")
        }
    }
}

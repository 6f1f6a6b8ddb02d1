import FileNames
import Foundation
import Testing
@testable import StewardCLI

@Suite struct ReportOutputTests {
    // MARK: - escaped

    @Test(arguments: [
        ("plain name", "plain name"),
        ("a\nb", "a\\nb"),
        ("a\rb\tc", "a\\rb\\tc"),
        ("back\\slash", "back\\\\slash"),
        ("bell\u{07}", "bell\\x07"),
        ("esc\u{1B}[31m", "esc\\x1B[31m"),
        ("del\u{7F}", "del\\x7F"),
        ("c1\u{9B}", "c1\\x9B"),
        ("café 客户", "café 客户"),
    ])
    func escapedMakesTextOneHarmlessLine(_ text: String, _ expected: String) {
        #expect(ReportOutput.escaped(text) == expected)
    }

    @Test func escapedWritesRawFileNameBytesAsHex() {
        let name = FileName.decode([0x61, 0xFF, 0x62])
        #expect(ReportOutput.escaped(name) == "a\\xFFb")
    }

    @Test func aForgedLineCannotBePrinted() {
        let hostile = "x.db\nResult     PASSED"
        #expect(!ReportOutput.escaped(hostile).contains("\n"))
    }

    // MARK: - seconds and bytes

    @Test(arguments: [(0.0, "0.000 s"), (0.1234, "0.123 s"), (12.5, "12.500 s"), (0.0005, "0.001 s")])
    func secondsHaveThreeDecimals(_ value: Double, _ expected: String) {
        #expect(ReportOutput.seconds(value) == expected)
    }

    static let byteCounts: [(Int64, String)] = [
        (0, "0 bytes"),
        (1023, "1023 bytes"),
        (1024, "1.0 KiB (1024 bytes)"),
        (1536, "1.5 KiB (1536 bytes)"),
        (5_242_880, "5.0 MiB (5242880 bytes)"),
        (3_221_225_472, "3.0 GiB (3221225472 bytes)"),
        (2_251_799_813_685_248, "2048.0 TiB (2251799813685248 bytes)"),
    ]

    @Test(arguments: byteCounts)
    func bytesNameTheLargestUnitAndTheExactCount(_ count: Int64, _ expected: String) {
        #expect(ReportOutput.bytes(count) == expected)
    }

    // MARK: - JSON

    @Test func jsonEscapesWhatATerminalWouldDraw() throws {
        let text = try ReportOutput.json(["name": "a\u{7F}b\u{85}c"])
        #expect(text.contains("a\\u007fb\\u0085c"))
        let decoded = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: String]
        #expect(decoded?["name"] == "a\u{7F}b\u{85}c")
    }

    @Test func failureIsOneObjectWithKindMessageAndExitCode() throws {
        let text = ReportOutput.failure(command: "backup", kind: "busy", message: "locked", exitCode: 75)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["command"] as? String == "backup")
        #expect(object["status"] as? String == "error")
        #expect(object["exitCode"] as? Int == 75)
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["kind"] as? String == "busy")
        #expect(error["message"] as? String == "locked")
    }

    @Test func aCommandKeepsItsShellQuotingAndEscapesOnlyWhatCouldForgeALine() {
        let quoted = #"steward restore /b.tar.zst --replace '/srv/it'\''s here.db'"#
        #expect(ReportOutput.command(quoted) == quoted)
        #expect(ReportOutput.command("steward restore '/x\nResult PASSED'") == #"steward restore '/x\nResult PASSED'"#)
    }
}

import FileNames
import Foundation
import StewardCore
import StewardBase

/// Renders reports: one JSON object on stdout with `--json`, readable text otherwise.
enum ReportOutput {
    /// The report with the envelope's fields at its top level (schema/steward.schema.json).
    static func json<Report: Encodable>(
        _ report: Report, command: String, exitCode: Int32, status: Envelope.Status? = nil
    ) throws -> String {
        try json(Enveloped(report: report, envelope: Envelope(command: command, exitCode: exitCode, status: status)))
    }

    static func json<Report: Encodable>(_ report: Report) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(report)
        return escapingControlCharacters(String(decoding: data, as: UTF8.self))
    }

    /// The fields every `--json` object carries, whatever the command and outcome, so that
    /// a script can tell what it holds before it reads the command's own fields.
    struct Envelope: Encodable {
        /// Of the JSON itself; raised when a field is renamed or removed, not when one is added.
        var schemaVersion = 1
        let command: String
        let status: Status
        let exitCode: Int32
        var stewardVersion = StewardVersion.current
        var sqliteVersion = StewardVersion.sqlite

        /// `status` by default from the exit status.
        init(command: String, exitCode: Int32, status: Status? = nil) {
            self.command = command
            self.exitCode = exitCode
            self.status = status ?? (exitCode == ExitCode.success ? .ok : exitCode == ExitCode.checkFailed ? .failed : .error)
        }

        enum Status: String, Encodable {
            /// Exit status 0.
            case ok
            /// Exit status 1: a check failed or Steward refused to publish; or a summary
            /// of databases some of which failed.
            case failed
            /// Any other exit status.
            case error

            /// The status of a summary that was made: `failed` when any of its databases
            /// failed, never an error of the run that summed them up.
            static func summing(exitCode: Int32) -> Status {
                exitCode == ExitCode.success ? .ok : .failed
            }
        }
    }

    /// A report and the envelope encoded into one object: both write into the same keyed
    /// container, so the report's own fields stay where they are.
    private struct Enveloped<Report: Encodable>: Encodable {
        let report: Report
        let envelope: Envelope

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            try envelope.encode(to: encoder)
        }
    }

    /// JSONEncoder escapes C0 controls but leaves DEL and the C1 range raw; they can only
    /// stand inside strings, where `\u00XX` is the same value, and safe on a terminal.
    /// A byte of a file name that is not UTF-8 (FileNames) has no JSON form at all: it is
    /// written as the four characters `\xHH`, as text output writes it (steward(1)).
    static func escapingControlCharacters(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: { $0.value == 0x7F || (0x80...0x9F).contains($0.value) || FileName.rawByte($0) != nil })
        else { return json }
        var result = ""
        for scalar in json.unicodeScalars {
            if let byte = FileName.rawByte(scalar) {
                // Inside a JSON string, so the backslash itself is escaped.
                result += String(format: "\\\\x%02X", byte)
            } else if scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value) {
                result += String(format: "\\u%04x", scalar.value)
            } else {
                result.unicodeScalars.append(scalar)
            }
        }
        return result
    }

    /// Text that came from a file (a path, a table or trigger name, a manifest string, a
    /// message that quotes one) as it is shown in text output: on one line, and unable to
    /// draw on the terminal. `\n`, `\r`, `\t` and `\\` stand for themselves; every other
    /// control character, and every byte of a file name that is not UTF-8, is `\xHH`.
    /// Without this, a name holding a newline could print a line such as a forged
    /// "Result     PASSED".
    static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        for scalar in text.unicodeScalars {
            if let byte = FileName.rawByte(scalar) {
                result += String(format: "\\x%02X", byte)
                continue
            }
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case "\\": result += "\\\\"
            default:
                if isControl(scalar) {
                    result += String(format: "\\x%02X", scalar.value)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }

    /// A shell command to be copied and run: printed as it is unless it holds a control
    /// character or a byte that is not UTF-8 (then escaped, as names are), since its
    /// quoting needs its backslashes.
    static func command(_ text: String) -> String {
        text.unicodeScalars.contains { isControl($0) || FileName.rawByte($0) != nil } ? escaped(text) : text
    }

    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\\" || isControl(scalar) || FileName.rawByte(scalar) != nil
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F || (0x80...0x9F).contains(scalar.value)
    }

    /// What the envelope carries when a `--json` run fails: `error: {kind, message}`.
    struct Failure: Encodable {
        let error: Detail

        struct Detail: Encodable {
            /// `StewardError.Kind`'s name (`not-found`, `bad-input` …), or `usage`.
            let kind: String
            let message: String
        }
    }

    /// A report printed although the run failed (`inspect` of a bundle that does not
    /// verify): the report's fields and `error`, as every failure carries it.
    struct Failing<Report: Encodable>: Encodable {
        let report: Report
        let failure: Failure

        func encode(to encoder: any Encoder) throws {
            try report.encode(to: encoder)
            try failure.encode(to: encoder)
        }
    }

    static func failure(command: String, kind: String, message: String, exitCode: Int32) -> String {
        let report = Failure(error: .init(kind: kind, message: message))
        // Status 1 (a check failed, Steward refused to publish) is `failed`, with its error.
        return (try? json(report, command: command, exitCode: exitCode)) ?? "{\"status\":\"error\",\"exitCode\":\(exitCode)}"
    }

    /// A duration as reports print it: `0.123 s`.
    static func seconds(_ value: Double) -> String {
        String(format: "%.3f s", value)
    }

    static func bytes(_ count: Int64) -> String {
        let units = ["bytes", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? Counted.phrase(count, "byte") : String(format: "%.1f %@ (%lld bytes)", value, units[unit], count)
    }

    /// Left-aligned columns, two spaces apart; every cell escaped (`escaped(_:)`).
    static func table(_ rows: [[String]], indent: Int = 2) -> String {
        let rows = rows.map { $0.map(escaped) }
        guard let width = rows.map(\.count).max() else { return "" }
        var widths = Array(repeating: 0, count: width)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            let cells = row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }
            let line = String(repeating: " ", count: indent) + cells.joined(separator: "  ")
            return String(line.reversed().drop { $0 == " " }.reversed())
        }.joined(separator: "\n")
    }
}

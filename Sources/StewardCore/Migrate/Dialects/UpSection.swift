import Foundation

/// The up part of a file that keeps both directions in one text (goose, dbmate). Lines
/// outside the up part are blanked, not removed, so that SQLite's error offsets still give
/// the file's own line numbers.
enum UpSection {
    /// Lines split on LF only; a CR stays at the end of its line, as goose and dbmate read it.
    static func lines(_ text: String) -> [Substring] {
        text.split(separator: "\n", omittingEmptySubsequences: false)
    }

    static func join(_ lines: [Substring], keeping keep: (Int) -> Bool) -> String {
        lines.enumerated().map { keep($0.offset) ? String($0.element) : "" }.joined(separator: "\n")
    }

    static func isBlankOrComment(_ line: Substring) -> Bool {
        let trimmed = line.trimmingWhitespaceAndNewlines()
        return trimmed.isEmpty || trimmed.hasPrefix("--")
    }

    // MARK: - goose

    /// goose's annotation on a line, read as pressly/goose internal/sqlparser/parser.go does:
    /// the line starts with `--` and the rest, trimmed, is the whole annotation.
    static func gooseAnnotation(_ line: Substring) -> String? {
        guard line.hasPrefix("--") else { return nil }
        let command = line.dropFirst(2).trimmingWhitespaceAndNewlines()
        return command.hasPrefix("+goose ") ? command : nil
    }

    /// The up part of a goose file. Refuses (65) what Steward cannot run as goose would:
    /// `NO TRANSACTION` (goose runs such a file outside any transaction), `ENVSUBST ON`
    /// (goose substitutes environment variables), SQL before `-- +goose Up`, and a file
    /// without `-- +goose Up`.
    static func goose(_ text: String, file: String) throws -> String {
        let lines = lines(text)
        var upStart: Int?
        var downStart: Int?
        for (index, line) in lines.enumerated() {
            guard let annotation = gooseAnnotation(line) else {
                if upStart == nil, !isBlankOrComment(line) {
                    throw StewardError(
                        .badInput,
                        "\(file):\(index + 1): SQL before '-- +goose Up'; goose refuses this file too")
                }
                continue
            }
            switch annotation {
            case "+goose Up":
                if upStart == nil { upStart = index }
            case "+goose Down":
                if downStart == nil, upStart != nil { downStart = index }
            case "+goose NO TRANSACTION":
                throw StewardError(
                    .badInput,
                    "\(file):\(index + 1): '-- +goose NO TRANSACTION' asks for the file to run outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses this file (run it with goose)")
            case "+goose ENVSUBST ON":
                throw StewardError(
                    .badInput,
                    "\(file):\(index + 1): '-- +goose ENVSUBST ON' makes goose substitute environment variables into the SQL; Steward does not, so it refuses this file")
            default:
                break
            }
        }
        guard let upStart else {
            throw StewardError(.badInput, "\(file): no '-- +goose Up' annotation; goose refuses this file too")
        }
        let end = downStart ?? lines.count
        return join(lines) { $0 > upStart && $0 < end }
    }

    // MARK: - dbmate

    /// Whether a line is dbmate's `-- migrate:up` (or `down`) directive, as the expressions
    /// of amacneil/dbmate pkg/dbmate/migration.go match it: `--`, optional whitespace, the
    /// directive, then the end of the line or whitespace and options.
    static func dbmateDirective(_ line: Substring, _ direction: String) -> Bool {
        guard line.hasPrefix("--") else { return false }
        let rest = line.dropFirst(2).drop { $0 == " " || $0 == "\t" }
        guard rest.hasPrefix("migrate:\(direction)") else { return false }
        let after = rest.dropFirst("migrate:\(direction)".count)
        return after.isEmpty || after.first?.isWhitespace == true
    }

    /// The options on a dbmate directive line (`transaction:false`).
    static func dbmateOptions(_ line: Substring) -> [String: String] {
        var options: [String: String] = [:]
        let words = line.split(whereSeparator: { $0.isWhitespace }).dropFirst()
        for word in words {
            let pair = word.split(separator: ":", omittingEmptySubsequences: false)
            if pair.count == 2, pair[0] != "migrate" { options[String(pair[0])] = String(pair[1]) }
        }
        return options
    }

    /// The up part of a dbmate file. Refuses (65) `transaction:false` on the up directive
    /// (dbmate runs such a file outside any transaction), SQL before `-- migrate:up`, a
    /// down directive before the up one, and a file without `-- migrate:up`.
    static func dbmate(_ text: String, file: String) throws -> String {
        let lines = lines(text)
        guard let upStart = lines.firstIndex(where: { dbmateDirective($0, "up") }) else {
            throw StewardError(.badInput, "\(file): no '-- migrate:up' directive; dbmate refuses this file too")
        }
        let downStart = lines.firstIndex(where: { dbmateDirective($0, "down") }) ?? lines.count
        if downStart < upStart {
            throw StewardError(.badInput, "\(file):\(downStart + 1): '-- migrate:down' comes before '-- migrate:up'; dbmate refuses this file too")
        }
        if let statement = lines[..<upStart].firstIndex(where: { !isBlankOrComment($0) }) {
            throw StewardError(.badInput, "\(file):\(statement + 1): SQL before '-- migrate:up'; dbmate refuses this file too")
        }
        if dbmateOptions(lines[upStart])["transaction"] == "false" {
            throw StewardError(
                .badInput,
                "\(file):\(upStart + 1): 'transaction:false' asks for the up part to run outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses this file (run it with dbmate)")
        }
        return join(lines) { $0 > upStart && $0 < downStart }
    }
}

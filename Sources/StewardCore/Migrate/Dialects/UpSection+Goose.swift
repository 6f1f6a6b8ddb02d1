import Foundation
import SQLiteKit

/// A goose SQL file read as pressly/goose v3.27.3 internal/sqlparser/parser.go reads it
/// (`ParseSQLMigration`, `extractAnnotation`, `endsWithSemicolon`), for the up direction.
extension UpSection {
    /// goose's annotations (`annotationUp` … `annotationEnvsubOff`), as goose spells them.
    enum GooseAnnotation: String, CaseIterable {
        case up = "Up"
        case down = "Down"
        case statementBegin = "StatementBegin"
        case statementEnd = "StatementEnd"
        case noTransaction = "NO TRANSACTION"
        case envsubOn = "ENVSUB ON"
        case envsubOff = "ENVSUB OFF"
    }

    /// Whether goose reads `line` as an annotation line: its text (spaces trimmed) starts
    /// with `--` and it holds `+goose` (in that case: `+GOOSE` is a plain comment).
    static func isGooseAnnotationLine(_ line: Substring) -> Bool {
        let scalars = Array(line.unicodeScalars)
        return Array(GoText.trimSpace(line)).starts(with: ["-", "-"]) && GoText.firstIndex(of: "+goose", in: scalars) != nil
    }

    /// The annotation on a line goose reads as one, or why goose refuses it
    /// (`extractAnnotation`): no leading space or tab, every `--` removed, one `+goose`
    /// removed, the rest trimmed and compared with `strings.EqualFold`.
    static func gooseAnnotation(parsing line: Substring) -> Result<GooseAnnotation, GooseLineError> {
        if line.hasPrefix(" ") || line.hasPrefix("\t") { return .failure(.leadingWhitespace) }
        var command = GoText.removingAll("--", from: Array(line.unicodeScalars))
        if let marker = GoText.firstIndex(of: "+goose", in: command) {
            command.removeSubrange(marker..<marker + 6)
        }
        if GoText.firstIndex(of: "+goose", in: command) != nil { return .failure(.twoAnnotations) }
        let trimmed = Array(GoText.trimSpace(String(String.UnicodeScalarView(command))))
        if trimmed.isEmpty { return .failure(.empty) }
        guard let found = GooseAnnotation.allCases.first(where: { GoText.equalFold(trimmed, $0.rawValue) }) else {
            return .failure(.unknown(String(String.UnicodeScalarView(trimmed))))
        }
        return .success(found)
    }

    enum GooseLineError: Error {
        case leadingWhitespace, twoAnnotations, empty, unknown(String)
    }

    /// goose's annotation on a line (for detection): the annotation goose reads there, or
    /// the line's text for one goose refuses that still starts with `+goose` (a comment
    /// that only mentions `+goose` further on says nothing about the layout).
    static func gooseAnnotation(_ line: Substring) -> String? {
        let line = line.hasSuffix("\r") ? line.dropLast() : line
        guard isGooseAnnotationLine(line) else { return nil }
        switch gooseAnnotation(parsing: line) {
        case .success(let annotation): return "+goose " + annotation.rawValue
        case .failure:
            let comment = GoText.trimSpace(line).drop { $0 == "-" || GoText.isSpace($0) }
            return comment.starts(with: "+goose".unicodeScalars) ? String(line) : nil
        }
    }

    /// `endsWithSemicolon`: the last word of the line before any word starting with `--`
    /// ends with `;`.
    static func gooseEndsWithSemicolon(_ line: Substring) -> Bool {
        var previous: Substring.UnicodeScalarView?
        for word in GoText.words(line) {
            if word.starts(with: ["-", "-"]) { break }
            previous = word
        }
        return previous?.last == ";"
    }

    private enum GooseState {
        case start, up, beginUp, endUp, down, beginDown, endDown
    }

    /// The up part of a goose file. Refuses (65), naming the line, what goose refuses
    /// (an annotation it does not know, SQL before `-- +goose Up`, a second Up, a Down or
    /// StatementEnd out of place, a statement without its `;`, a StatementBegin without its
    /// StatementEnd, no Up at all), a statement goose would send cut short (its lines end
    /// with `;` inside a trigger, string or comment: goose sends each piece to SQLite, which
    /// rejects it), and what Steward cannot run as goose would: `NO TRANSACTION` (goose runs
    /// the file outside any transaction) and `ENVSUB ON` (goose substitutes environment
    /// variables into the lines that follow).
    static func goose(_ text: String, file: String) throws -> String {
        var lines = lines(text)
        // bufio.Scanner gives no line after a final LF.
        if lines.count > 1, lines.last?.isEmpty == true { lines.removeLast() }
        func refuse(_ index: Int, _ reason: String) -> StewardError {
            StewardError(.badInput, "\(file):\(index + 1): \(reason)")
        }
        var state = GooseState.start
        var upStart: Int?
        var upEnd: Int?
        var annotationLines = Set<Int>()
        // The lines of the statement goose is collecting, and where it started.
        var buffer = ""
        var bufferStart = 0

        func emit(at index: Int) throws {
            // SQLite prepares a statement without its final `;`, as go-sqlite3 does; a piece
            // cut inside a trigger, string or comment stays incomplete with one added.
            if !SQLiteLibrary.isComplete(buffer + "\n;") {
                throw refuse(
                    bufferStart,
                    "goose sends lines \(bufferStart + 1)-\(index + 1) to SQLite as one statement, which is cut short (a line inside it ends with ';': a trigger body needs '-- +goose StatementBegin' and '-- +goose StatementEnd' around it); goose fails on this file")
            }
            buffer = ""
        }

        for (index, raw) in lines.enumerated() {
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if state == .start, GoText.trimSpace(line).isEmpty { continue }
            if isGooseAnnotationLine(line) {
                let annotation: GooseAnnotation
                switch gooseAnnotation(parsing: line) {
                case .success(let found): annotation = found
                case .failure(.leadingWhitespace):
                    throw refuse(index, "a goose annotation must start at the beginning of its line; goose refuses this file too")
                case .failure(.twoAnnotations):
                    throw refuse(index, "two '+goose' annotations on one line; goose refuses this file too")
                case .failure(.empty):
                    throw refuse(index, "'+goose' without an annotation; goose refuses this file too")
                case .failure(.unknown(let text)):
                    throw refuse(index, "'\(text)' is not a goose annotation (goose knows Up, Down, StatementBegin, StatementEnd, NO TRANSACTION, ENVSUB ON and ENVSUB OFF, in any case); goose refuses this file too")
                }
                annotationLines.insert(index)
                switch annotation {
                case .up:
                    guard state == .start else { throw refuse(index, "a second '-- +goose Up'; goose refuses this file too") }
                    state = .up
                    upStart = index
                    continue
                case .down:
                    guard state == .up || state == .endUp else {
                        throw refuse(index, "'-- +goose Down' \(state == .start ? "before '-- +goose Up'" : state == .beginUp ? "inside a StatementBegin block" : "a second time"); goose refuses this file too")
                    }
                    if !GoText.trimSpace(buffer).isEmpty {
                        throw refuse(bufferStart, "a statement without its ';' before '-- +goose Down'; goose refuses this file too")
                    }
                    state = .down
                    upEnd = index
                    continue
                case .statementBegin:
                    switch state {
                    case .up, .endUp: state = .beginUp
                    case .down, .endDown: state = .beginDown
                    default:
                        throw refuse(index, "'-- +goose StatementBegin' \(state == .start ? "before '-- +goose Up'" : "inside another StatementBegin block"); goose refuses this file too")
                    }
                    continue
                case .statementEnd:
                    switch state {
                    case .beginUp where !buffer.isEmpty:
                        try emit(at: index)
                        state = .up
                    case .beginUp:
                        // goose skips the annotation as a comment before any statement and
                        // stays in its StatementEnd state (see below).
                        state = .endUp
                    case .beginDown: state = .endDown
                    default: throw refuse(index, "'-- +goose StatementEnd' without a StatementBegin; goose refuses this file too")
                    }
                    continue
                case .noTransaction:
                    throw refuse(index, "'\(line)' asks goose to run the file outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses this file (run it with goose)")
                case .envsubOn:
                    throw refuse(index, "'\(line)' makes goose substitute environment variables into the SQL that follows; Steward does not, so it refuses this file (run it with goose)")
                case .envsubOff:
                    continue
                }
            }
            if buffer.isEmpty, Array(GoText.trimSpace(line)).starts(with: ["-", "-"]) || line.isEmpty { continue }
            if state == .endUp {
                // After a StatementBegin/StatementEnd pair with nothing between them, goose
                // drops the next line instead of running it.
                throw refuse(index, "goose drops this line without running it (the StatementBegin/StatementEnd pair before it is empty); Steward refuses the file rather than run what goose would not")
            }
            if state != .endDown {
                if buffer.isEmpty { bufferStart = index }
                buffer += line + "\n"
            }
            switch state {
            case .start:
                throw refuse(index, "SQL before '-- +goose Up'; goose refuses this file too")
            case .down, .beginDown, .endDown:
                buffer = ""
                continue
            case .up:
                if gooseEndsWithSemicolon(line) { try emit(at: index) }
            case .beginUp, .endUp:
                break
            }
        }
        switch state {
        case .start:
            throw StewardError(.badInput, "\(file): no '-- +goose Up' annotation; goose refuses this file too")
        case .beginUp, .beginDown:
            throw StewardError(.badInput, "\(file): a '-- +goose StatementBegin' without its StatementEnd; goose refuses this file too")
        default:
            break
        }
        if !GoText.trimSpace(buffer).isEmpty {
            throw refuse(bufferStart, "a statement without its ';' at the end of the up part; goose refuses this file too")
        }
        let start = upStart ?? 0
        let end = upEnd ?? Int.max
        return join(Self.lines(text)) { $0 > start && $0 < end && !annotationLines.contains($0) }
    }
}

import Foundation
import SQLiteKit
import StewardBase

/// The up part of a file that keeps both directions in one text (goose, dbmate). Lines
/// outside the up part are blanked, not removed, so that SQLite's error offsets still give
/// the file's own line numbers.
enum UpSection {
    static func join(_ lines: [Substring], keeping keep: (Int) -> Bool) -> String {
        lines.enumerated().map { keep($0.offset) ? String($0.element) : "" }.joined(separator: "\n")
    }

    /// A file's lines split on LF scalars, as `bufio.Scanner` and `strings.Split(s, "\n")`
    /// split them. Splitting the `String` itself would not: "\r\n" is one `Character`, so a
    /// CRLF file would be one line. Each line keeps its CR; the last is empty when the text
    /// ends with LF.
    static func lines(_ text: String) -> [Substring] {
        text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).map { Substring($0) }
    }
}

/// A goose SQL file read as pressly/goose v3.27.3 internal/sqlparser/parser.go reads it
/// (`ParseSQLMigration`, `extractAnnotation`, `endsWithSemicolon`), for the up direction.
extension UpSection {
    /// goose's annotations (`annotationUp` … `annotationEnvsubOff`), as goose spells them.
    enum GooseAnnotation: String, CaseIterable {
        case up = "Up"
        case down = "Down"
        case statementBegin = "StatementBegin", statementEnd = "StatementEnd"
        case noTransaction = "NO TRANSACTION"
        case envsubOn = "ENVSUB ON", envsubOff = "ENVSUB OFF"
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
        try gooseParts(text, file: file).up
    }

    /// The down part of a file that keeps both directions (goose's lines after
    /// `-- +goose Down`, dbmate's after `-- migrate:down`), other lines blanked; `refusal`
    /// says why Steward cannot run it as the runner's down command would (a goose statement
    /// cut short or left without its `;`, a dbmate `transaction:false`). It refuses only a
    /// down run: the runners' up runs never read these lines, and neither does Steward's.
    struct DownSection {
        let sql: String
        let refusal: String?
    }

    /// Both parts of a goose file, read in one pass of goose's state machine: what the up
    /// run refuses is refused here (65); the down part's own problems are kept in its
    /// `refusal`.
    static func gooseParts(_ text: String, file: String) throws -> (up: String, down: DownSection?) {
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
        // The same for the down part, as goose's down run collects it.
        var downBuffer = ""
        var downBufferStart = 0
        var downRefusal: String?
        func refuseDown(_ index: Int, _ reason: String) {
            if downRefusal == nil { downRefusal = "\(file):\(index + 1): \(reason)" }
        }
        func emitDown(at index: Int) {
            if !SQLiteLibrary.isComplete(downBuffer + "\n;") {
                refuseDown(
                    downBufferStart,
                    "goose sends lines \(downBufferStart + 1)-\(index + 1) of the down part to SQLite as one statement, which is cut short (a line inside it ends with ';': a trigger body needs '-- +goose StatementBegin' and '-- +goose StatementEnd' around it); goose fails on this down part")
            }
            downBuffer = ""
        }

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
                    case .beginDown where !downBuffer.isEmpty:
                        emitDown(at: index)
                        state = .down
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
            if [.down, .beginDown, .endDown].contains(state) {
                if downBuffer.isEmpty, Array(GoText.trimSpace(line)).starts(with: ["-", "-"]) || line.isEmpty { continue }
                if state == .endDown {
                    refuseDown(index, "goose drops this line of the down part without running it (the StatementBegin/StatementEnd pair before it is empty); Steward refuses to run the down part rather than run what goose would not")
                    state = .down
                    continue
                }
                if downBuffer.isEmpty { downBufferStart = index }
                downBuffer += line + "\n"
                if state == .down, gooseEndsWithSemicolon(line) { emitDown(at: index) }
                continue
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
        if !GoText.trimSpace(downBuffer).isEmpty {
            refuseDown(downBufferStart, "a statement without its ';' at the end of the down part; goose refuses to run this down part")
        }
        let start = upStart ?? 0
        let end = upEnd ?? Int.max
        let up = join(Self.lines(text)) { $0 > start && $0 < end && !annotationLines.contains($0) }
        let down = upEnd.map { downStart in
            DownSection(sql: join(Self.lines(text)) { $0 > downStart && !annotationLines.contains($0) }, refusal: downRefusal)
        }
        return (up, down)
    }
}

/// A dbmate file read as amacneil/dbmate v2.35.0 pkg/dbmate/migration.go reads it
/// (`parseMigrationContents`): its expressions `upRegExp`, `downRegExp`, `emptyLineRegExp`,
/// `commentLineRegExp` and the options of `parseMigrationOptions`, matched by hand on the
/// text's scalars with RE2's ASCII `\s`.
extension UpSection {
    /// Where `(?m)^--\s*migrate:<direction>(\s*$|\s+\S+)` matches in `scalars`: at a
    /// line's start, `--`, any `\s` (across lines too, as RE2 allows), the directive, then
    /// the end of the text or a `\s`. Gives each match's start.
    static func dbmateDirectives(_ direction: String, in scalars: [Unicode.Scalar]) -> [Int] {
        let word = Array("migrate:\(direction)".unicodeScalars)
        var found: [Int] = []
        // After `from`, the start of the next line.
        func nextLine(_ from: Int) -> Int {
            var at = from
            while at < scalars.count, scalars[at] != "\n" { at += 1 }
            return at + 1
        }
        var index = 0
        while index < scalars.count {
            guard index + 1 < scalars.count, scalars[index] == "-", scalars[index + 1] == "-" else {
                index = nextLine(index)
                continue
            }
            var at = index + 2
            while at < scalars.count, GoText.isRegexpSpace(scalars[at]) { at += 1 }
            let after = at + word.count
            guard after <= scalars.count, Array(scalars[at..<after]) == word,
                  after == scalars.count || GoText.isRegexpSpace(scalars[after]) else {
                index = nextLine(index)
                continue
            }
            found.append(index)
            // Matches do not overlap, and this one ends on the line of its directive.
            index = nextLine(after)
        }
        return found
    }

    /// Whether one line is a dbmate directive for `direction` (for detection).
    static func dbmateDirective(_ line: Substring, _ direction: String) -> Bool {
        dbmateDirectives(direction, in: Array(line.unicodeScalars)).first == 0
    }

    /// `parseMigrationOptions` of a directive line: after `^--\s*migrate:(up|down)`, the
    /// trimmed rest split on `\s+` into `key:value` pairs (exactly one `:`).
    static func dbmateOptions(_ line: Substring) -> [String: String] {
        var rest = Array(line.unicodeScalars)
        var at = 2
        while at < rest.count, GoText.isRegexpSpace(rest[at]) { at += 1 }
        for word in ["migrate:up", "migrate:down"] where rest[min(at, rest.count)...].starts(with: word.unicodeScalars) {
            rest = Array(rest[(at + word.unicodeScalars.count)...])
            break
        }
        var options: [String: String] = [:]
        let text = String(String.UnicodeScalarView(GoText.trimSpace(String(String.UnicodeScalarView(rest)))))
        for pair in text.unicodeScalars.split(whereSeparator: GoText.isRegexpSpace) {
            let parts = pair.split(separator: ":", omittingEmptySubsequences: false)
            if parts.count == 2 { options[String(parts[0])] = String(parts[1]) }
        }
        return options
    }

    /// The up parts of a dbmate file. dbmate splits a file into sections, each from one
    /// `-- migrate:up` to the next, and runs the up part of each (from its up directive to
    /// its down directive). Refuses (65) what dbmate refuses (no up directive, SQL before
    /// the first one, a section without its down directive or with two) and a section
    /// whose up directive says `transaction:false` (dbmate runs it outside any transaction).
    static func dbmate(_ text: String, file: String) throws -> String {
        try dbmateParts(text, file: file).up
    }

    /// Both parts of a dbmate file: the up parts as `dbmate(_:file:)` gives them, and the
    /// down part, from its `-- migrate:down` to the end of its section, with `refusal`
    /// set where Steward cannot run it as `dbmate rollback` would (`transaction:false` on
    /// the down directive; a file of several sections, whose rollback dbmate 2.37.0 runs
    /// only in part: the first section's down part, the others' never).
    static func dbmateParts(_ text: String, file: String) throws -> (up: String, down: DownSection) {
        let scalars = Array(text.unicodeScalars)
        let lines = lines(text)
        // The line each scalar offset is on.
        var lineStarts: [Int] = []
        var offset = 0
        for line in lines {
            lineStarts.append(offset)
            offset += line.unicodeScalars.count + 1
        }
        func line(at position: Int) -> Int {
            (lineStarts.lastIndex { $0 <= position }) ?? 0
        }
        let ups = dbmateDirectives("up", in: scalars)
        guard let first = ups.first else {
            throw StewardError(.badInput, "\(file): no '-- migrate:up' directive; dbmate refuses this file too")
        }
        for index in 0..<line(at: first) {
            let content = lines[index].unicodeScalars
            let blank = content.allSatisfy(GoText.isRegexpSpace)
            let comment = content.drop(while: GoText.isRegexpSpace).starts(with: ["-", "-"])
            if !blank && !comment {
                throw StewardError(.badInput, "\(file):\(index + 1): SQL before '-- migrate:up'; dbmate refuses this file too")
            }
        }
        let downs = dbmateDirectives("down", in: scalars)
        var kept = Set<Int>()
        for (number, up) in ups.enumerated() {
            let end = number + 1 < ups.count ? ups[number + 1] : scalars.count
            let sectionDowns = downs.filter { $0 > up && $0 < end }
            let upLine = line(at: up)
            guard let down = sectionDowns.first else {
                throw StewardError(.badInput, "\(file):\(upLine + 1): no '-- migrate:down' after this '-- migrate:up'; dbmate refuses a file whose up part has no down part")
            }
            if sectionDowns.count > 1 {
                throw StewardError(.badInput, "\(file):\(line(at: sectionDowns[1]) + 1): a second '-- migrate:down' after one '-- migrate:up'; dbmate refuses this file too")
            }
            if dbmateOptions(lines[upLine])["transaction"] == "false" {
                throw StewardError(
                    .badInput,
                    "\(file):\(upLine + 1): 'transaction:false' asks dbmate to run this up part outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses this file (run it with dbmate)")
            }
            for index in (upLine + 1)..<max(upLine + 1, line(at: down)) { kept.insert(index) }
        }
        // Every section has exactly one down directive (checked above).
        let downLine = line(at: downs.first { $0 > first } ?? first)
        let sectionEnd = ups.count > 1 ? line(at: ups[1]) : lines.count
        var refusal: String?
        if ups.count > 1 {
            refusal = "\(file):\(line(at: ups[1]) + 1): a second '-- migrate:up' section; dbmate's rollback of such a file runs the first section's down part only (dbmate 2.37.0), so Steward does not take it back (take it back with dbmate, or split the file)"
        } else if dbmateOptions(lines[downLine])["transaction"] == "false" {
            refusal = "\(file):\(downLine + 1): 'transaction:false' asks dbmate to run this down part outside a transaction; Steward runs every migration inside one transaction, all or nothing, so it refuses to take this file back (run it with dbmate)"
        }
        let down = join(lines) { $0 > downLine && $0 < sectionEnd }
        return (join(lines) { kept.contains($0) }, DownSection(sql: down, refusal: refusal))
    }
}

/// The few string functions of Go's standard library that goose's and dbmate's parsers
/// decide with, scalar for scalar, so that a line is read as those runners read it (and
/// not as Foundation would trim it).
enum GoText {
    /// `unicode.IsSpace`: the Latin-1 blanks, then the Unicode White_Space property. Also
    /// what `bufio.ScanWords` splits on. U+200B, which Foundation trims, is not one.
    static func isSpace(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09...0x0D, 0x20, 0x85, 0xA0: true
        case 0...0xFF: false
        default: scalar.properties.isWhitespace
        }
    }

    /// `\s` in Go's regular expressions (RE2, ASCII only): `[\t\n\f\r ]`, no vertical tab.
    static func isRegexpSpace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\t" || scalar == "\n" || scalar == "\u{0C}" || scalar == "\r" || scalar == " "
    }

    /// `strings.TrimSpace`.
    static func trimSpace<S: StringProtocol>(_ text: S) -> Substring.UnicodeScalarView {
        let scalars = Substring(text).unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }),
              let last = scalars.lastIndex(where: { !isSpace($0) }) else { return Substring("").unicodeScalars }
        return scalars[first...last]
    }

    /// `strings.Fields`, as `bufio.ScanWords` gives the words of a line.
    static func words<S: StringProtocol>(_ text: S) -> [Substring.UnicodeScalarView] {
        Substring(text).unicodeScalars.split(whereSeparator: isSpace)
    }

    /// `strings.EqualFold` of `text` with an ASCII `word`: Unicode simple case folding, under
    /// which U+017F (long s) folds to `s` and U+212A (Kelvin sign) to `k`.
    static func equalFold<S: Sequence>(_ text: S, _ word: String) -> Bool where S.Element == Unicode.Scalar {
        let left = Array(text)
        let right = Array(word.unicodeScalars)
        guard left.count == right.count else { return false }
        return zip(left, right).allSatisfy { scalar, letter in
            if scalar == letter { return true }
            let lower = Character(letter).lowercased()
            if scalar.isASCII { return Character(scalar).lowercased() == lower }
            return (scalar == "\u{017F}" && lower == "s") || (scalar == "\u{212A}" && lower == "k")
        }
    }

    /// `strings.ReplaceAll(text, old, "")`: every non-overlapping `old`, left to right, removed.
    static func removingAll(_ old: String, from text: [Unicode.Scalar]) -> [Unicode.Scalar] {
        let pattern = Array(old.unicodeScalars)
        var result: [Unicode.Scalar] = []
        var index = 0
        while index < text.count {
            if index + pattern.count <= text.count, Array(text[index..<index + pattern.count]) == pattern {
                index += pattern.count
            } else {
                result.append(text[index])
                index += 1
            }
        }
        return result
    }

    /// The position of the first `pattern` in `text`.
    static func firstIndex(of pattern: String, in text: [Unicode.Scalar]) -> Int? {
        let pattern = Array(pattern.unicodeScalars)
        guard pattern.count <= text.count else { return nil }
        return (0...(text.count - pattern.count)).first { Array(text[$0..<$0 + pattern.count]) == pattern }
    }
}

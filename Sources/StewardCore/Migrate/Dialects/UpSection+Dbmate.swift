import Foundation

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
        return join(lines) { kept.contains($0) }
    }
}

import Foundation
import SQLiteKit
import StewardBase

/// Runs a file of SQL assertions (business invariants) inside a transaction that is
/// rolled back. A statement that returns rows passes when the first column of every
/// row is 1; any other statement passes when it runs, so the usual pattern
/// (a TEMP table `assertion(ok INTEGER CHECK(ok = 1))` filled by `INSERT … SELECT`)
/// fails exactly where a CHECK is violated. A `-- name: …` comment names the next
/// statement; otherwise it is named by its line.
struct AssertionRunner: Sendable {
    struct Failure: Equatable {
        let name: String
        let reason: String
    }

    let path: String
    let sql: String

    /// Reads an assertion file. Throws `.notFound` or `.badInput` (not UTF-8, or the
    /// last statement is incomplete).
    init(path: String) throws {
        guard let data = Paths.contents(of: path) else {
            throw StewardError(.notFound, Paths.exists(path)
                ? "cannot read the assertion file \(path)" : "\(path): no such assertion file")
        }
        guard let sql = String(data: data, encoding: .utf8) else {
            throw StewardError(.badInput, "malformed assertion file \(path): not UTF-8 text")
        }
        guard SQLiteLibrary.isComplete(sql + "\n;") else {
            throw StewardError(.badInput, "malformed assertion file \(path): the last statement is not complete (an open quote or comment?)")
        }
        self.path = path
        self.sql = sql
    }

    /// Runs every statement; returns how many ran and the failures.
    func run(on connection: Connection) throws -> (count: Int, failures: [Failure]) {
        let fileName = Paths.fileName(of: path)
        let lines = SourceLines(sql)
        var count = 0
        var failures: [Failure] = []
        try connection.execute(sql: "BEGIN")
        defer { connection.rollbackIfNeeded() }

        // One pass over the file; a statement that cannot be prepared is reported and the
        // pass starts again after it, so that the rest still run.
        var cursorOffset = 0
        while cursorOffset < lines.utf8.count {
            let remaining = cursorOffset == 0 ? sql : String(decoding: lines.utf8[cursorOffset...], as: UTF8.self)
            do {
                try connection.forEachStatement(in: remaining) { statement, offset in
                    count += 1
                    let start = cursorOffset + offset
                    let name = Self.name(in: statement.sql) ?? "\(fileName) line \(lines.lineOfFirstToken(from: start))"
                    if let reason = Self.evaluate(statement) {
                        failures.append(Failure(name: name, reason: reason))
                    }
                }
                break
            } catch let error as Connection.StatementPreparationError {
                count += 1
                // Named like a statement that runs: by its `-- name:` comment, or by the line
                // of its first token (not of the failing token, which may be lines later).
                let start = cursorOffset + error.statementOffset
                let leading = String(decoding: lines.utf8[start..<lines.firstToken(from: start)], as: UTF8.self)
                let name = Self.name(in: leading) ?? "\(fileName) line \(lines.lineOfFirstToken(from: start))"
                failures.append(Failure(name: name, reason: "cannot be prepared: \(error.error.shownMessage)"))
                cursorOffset += max(Self.endOfStatement(in: remaining, from: error.byteOffset), 1)
            }
        }
        return (count, failures)
    }

    /// Why a statement failed as an assertion, or nil when it passed.
    private static func evaluate(_ statement: Statement) -> String? {
        do {
            if statement.columnCount == 0 {
                while try statement.step() {}
                return nil
            }
            var rows = 0
            var wrong = 0
            while try statement.step() {
                rows += 1
                switch statement.value(at: 0) {
                case .integer(1): break
                case .real(let value) where value == 1: break
                default: wrong += 1
                }
            }
            return wrong == 0 ? nil : "the first column is not 1 in \(wrong) of \(Counted.phrase(rows, "row"))"
        } catch let error as SQLiteError {
            // A constraint's message names the constraint, from the schema; a RAISE() text
            // or an FTS5 query built from a row is not shown (`SQLiteMessage`).
            if error.code == .constraint {
                return "violated: \(error.shownMessage)"
            }
            return "failed: \(error.messageAndCode)"
        } catch {
            return "failed: \(SQLiteMessage.text(of: error))"
        }
    }

    /// The name given by the last `-- name: …` comment before the statement's first token.
    static func name(in statementText: String) -> String? {
        var scanner = SQLScanner(statementText)
        let leading = String(decoding: Array(statementText.utf8).prefix(scanner.offsetOfNextToken()), as: UTF8.self)
        var name: String?
        // Split on LF scalars, as SQLite ends a `--` comment: "\r\n" is one Character, so
        // splitting the String itself would see a CRLF file's comments as one line.
        for line in leading.unicodeScalars.split(separator: "\n") {
            let text = Substring(line).trimmingWhitespaceAndNewlines()
            guard text.hasPrefix("--") else { continue }
            let comment = text.dropFirst(2).trimmingWhitespace()
            if comment.lowercased().hasPrefix("name:") {
                let value = comment.dropFirst(5).trimmingWhitespace()
                if !value.isEmpty { name = value }
            }
        }
        return name
    }

    /// Where the statement containing `offset` ends: the first `;` after which the text
    /// so far is complete, or the end of the text.
    static func endOfStatement(in text: String, from offset: Int) -> Int {
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: ";"), index >= offset,
               SQLiteLibrary.isComplete(String(decoding: bytes[...index], as: UTF8.self))
            {
                return index + 1
            }
            index += 1
        }
        return bytes.count
    }
}

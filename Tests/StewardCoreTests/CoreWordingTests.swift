import Foundation
import StewardBase
import TestSupport
import Testing

/// StewardCore says what is wrong; the command line says which option fixes it.
/// No string literal in the library modules (`Sources/StewardCore`, `Sources/StewardBase`, `Sources/StewardChecks`, `Sources/StewardKit`,
/// `Sources/BundleFormat`) names an option (`--name`), except the
/// rollback command a fleet run prints, which is a shell command on purpose.
@Suite struct CoreWordingTests {
    /// File name and literal allowed to name an option.
    static let allowed: Set<[String]> = [
        ["Migrator+Backup.swift", "--replace"],
        ["Migrator+Backup.swift", "--accept-recorded-failures"],
    ]

    @Test func noStringLiteralInTheCoreNamesAnOption() throws {
        let root = Fixtures.repositoryRoot.appendingPathComponent("Sources")
        var files: [String] = []
        for module in ["StewardCore", "StewardBase", "StewardChecks", "StewardKit", "BundleFormat"] {
            let found = try #require(FileManager.default.subpaths(atPath: root.appendingPathComponent(module).path))
            #expect(found.contains { $0.hasSuffix(".swift") }, "no sources found for \(module) under \(root.path)")
            files += found.filter { $0.hasSuffix(".swift") }.map { "\(module)/\($0)" }
        }
        #expect(files.count > 50, "the core's sources were not found under \(root.path)")
        var literals = 0
        var named: [String] = []
        for file in files.sorted() {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            for literal in SwiftLiterals.strings(in: text) {
                literals += 1
                guard literal.text.range(of: "--[a-z]", options: .regularExpression) != nil else { continue }
                let name = (file as NSString).lastPathComponent
                if !Self.allowed.contains([name, literal.text]) {
                    named.append("\(file):\(literal.line): \"\(literal.text)\"")
                }
            }
        }
        #expect(literals > 1000, "the scanner found too few string literals to be reading the code")
        #expect(named.isEmpty, "StewardCore names options; set a StewardError.Remedy or a typed field the CLI words:\n\(named.joined(separator: "\n"))")
    }

    @Test func theScannerReadsLiteralsAndSkipsComments() {
        let source = #"""
            // a comment about --json
            /* and --quiet */
            let a = "plain --create here"
            let b = "n \(count == 1 ? "--it" : "them") \"--x\" done"
            let c = #"raw --raw"#
            let d = """
                multi --line
                """
            """#
        let texts = SwiftLiterals.strings(in: source).map(\.text)
        #expect(texts.contains("plain --create here"))
        #expect(texts.contains("--it"))
        #expect(texts.contains(#" \"--x\" done"#))
        #expect(texts.contains("raw --raw"))
        #expect(texts.contains { $0.contains("multi --line") })
        #expect(!texts.contains { $0.contains("--json") || $0.contains("--quiet") })
    }
}

/// The string literals of Swift source, enough for the check above: line and block
/// comments skipped, `"…"`, `"""…"""` and raw `#"…"#` read, each interpolation's code read
/// as code (its own literals counted), the literal's text split around it.
enum SwiftLiterals {
    struct Literal {
        let text: String
        let line: Int
    }

    static func strings(in source: String) -> [Literal] {
        var reader = Reader(bytes: Array(source.utf8))
        reader.code(untilClosingParen: false)
        return reader.literals
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var line = 1
        var literals: [Literal] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        func at(_ offset: Int) -> UInt8? {
            index + offset < bytes.count ? bytes[index + offset] : nil
        }

        mutating func advance(_ count: Int = 1) {
            for _ in 0..<count where index < bytes.count {
                if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                index += 1
            }
        }

        mutating func code(untilClosingParen: Bool) {
            var depth = 0
            while let byte = at(0) {
                switch byte {
                case UInt8(ascii: "/") where at(1) == UInt8(ascii: "/"):
                    while let next = at(0), next != UInt8(ascii: "\n") { advance() }
                case UInt8(ascii: "/") where at(1) == UInt8(ascii: "*"):
                    advance(2)
                    while at(0) != nil, !(at(0) == UInt8(ascii: "*") && at(1) == UInt8(ascii: "/")) { advance() }
                    advance(2)
                case UInt8(ascii: "("):
                    depth += 1
                    advance()
                case UInt8(ascii: ")"):
                    advance()
                    if untilClosingParen {
                        if depth == 0 { return }
                        depth -= 1
                    }
                case UInt8(ascii: "#"):
                    var hashes = 0
                    while at(hashes) == UInt8(ascii: "#") { hashes += 1 }
                    if at(hashes) == UInt8(ascii: "\"") {
                        advance(hashes)
                        string(hashes: hashes)
                    } else {
                        advance(hashes)
                    }
                case UInt8(ascii: "\""):
                    string(hashes: 0)
                default:
                    advance()
                }
            }
        }

        /// At the opening quote of a literal with `hashes` `#` before it.
        mutating func string(hashes: Int) {
            let multiline = at(1) == UInt8(ascii: "\"") && at(2) == UInt8(ascii: "\"")
            advance(multiline ? 3 : 1)
            var text: [UInt8] = []
            var start = line
            func closes(_ reader: Reader) -> Bool {
                let quotes = multiline ? 3 : 1
                for offset in 0..<quotes where reader.at(offset) != UInt8(ascii: "\"") { return false }
                for offset in 0..<hashes where reader.at(quotes + offset) != UInt8(ascii: "#") { return false }
                return true
            }
            while let byte = at(0) {
                if closes(self) {
                    advance((multiline ? 3 : 1) + hashes)
                    break
                }
                if byte == UInt8(ascii: "\\"), (0..<hashes).allSatisfy({ at(1 + $0) == UInt8(ascii: "#") }) {
                    if at(1 + hashes) == UInt8(ascii: "(") {
                        literals.append(Literal(text: String(decoding: text, as: UTF8.self), line: start))
                        text = []
                        advance(2 + hashes)
                        code(untilClosingParen: true)
                        start = line
                        continue
                    }
                    text.append(contentsOf: bytes[index...].prefix(2 + hashes))
                    advance(2 + hashes)
                    continue
                }
                text.append(byte)
                advance()
            }
            literals.append(Literal(text: String(decoding: text, as: UTF8.self), line: start))
        }
    }
}

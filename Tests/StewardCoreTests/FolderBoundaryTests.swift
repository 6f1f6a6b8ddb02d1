import Foundation
import TestSupport
import Testing

/// StewardCore has one folder per command (docs/architecture.md, "Inside StewardCore"),
/// and no file in one command's folder names a type defined in another command's
/// folder; `Fleet/` names none of them. What two commands share lives outside their
/// folders (`MigrationSet/`, `Checks/`, `Base/`, `Operations/`, the library modules).
@Suite struct FolderBoundaryTests {
    static let commandFolders = ["Migrate", "Verify", "Backup", "Restore", "Inspect"]
    static var core: URL { Fixtures.repositoryRoot.appendingPathComponent("Sources/StewardCore") }

    /// The Swift files below `folder`, relative to StewardCore, with their code (comments
    /// and string literals removed).
    static func code(in folder: String) throws -> [(file: String, code: String)] {
        let root = core.appendingPathComponent(folder)
        let names = try #require(FileManager.default.subpaths(atPath: root.path)).filter { $0.hasSuffix(".swift") }
        return try names.sorted().map { name in
            let text = try String(contentsOf: root.appendingPathComponent(name), encoding: .utf8)
            return ("\(folder)/\(name)", SourceCode.withoutCommentsAndStrings(text))
        }
    }

    /// The types declared at the top level of `files` (a nested type is named through
    /// its parent from outside).
    static func declaredTypes(in files: [(file: String, code: String)]) -> Set<String> {
        var names = Set<String>()
        for (_, code) in files {
            names.formUnion(SourceCode.matches(
                of: #"(?m)^(?:(?:public|package|internal|fileprivate|private|final|indirect)\s+)*(?:struct|enum|class|protocol|typealias|actor)\s+([A-Za-z_][A-Za-z0-9_]*)"#,
                in: code))
        }
        return names
    }

    /// `file: Name (Folder)` for each file of `folders` that names a type of `owners`
    /// other than its own folder's.
    static func crossings(from folders: [String], owners: [String: Set<String>]) throws -> [String] {
        var found: [String] = []
        for folder in folders {
            for (file, code) in try code(in: folder) {
                let words = Set(SourceCode.matches(of: #"\b([A-Za-z_][A-Za-z0-9_]*)\b"#, in: code))
                for (owner, types) in owners.sorted(by: { $0.key < $1.key }) where owner != folder {
                    for name in types.intersection(words).sorted() { found.append("\(file): \(name) (\(owner))") }
                }
            }
        }
        return found
    }

    static func commandTypes() throws -> [String: Set<String>] {
        var owners: [String: Set<String>] = [:]
        for folder in commandFolders { owners[folder] = declaredTypes(in: try code(in: folder)) }
        return owners
    }

    @Test func noCommandFolderNamesAnothersTypes() throws {
        let owners = try Self.commandTypes()
        #expect(owners.values.allSatisfy { !$0.isEmpty }, "a command folder declares no type: the sources were not read")
        #expect(owners["Migrate"]?.contains("Migrator") == true)
        let crossings = try Self.crossings(from: Self.commandFolders, owners: owners)
        #expect(crossings.isEmpty, "a command's folder names another's types; move what they share out of both:\n\(crossings.joined(separator: "\n"))")
    }

    @Test func fleetNamesNoCommand() throws {
        let crossings = try Self.crossings(from: ["Fleet"], owners: try Self.commandTypes())
        #expect(crossings.isEmpty, "Fleet/ names a command's types:\n\(crossings.joined(separator: "\n"))")
    }

    /// The scan itself: a type named only in a comment or a string is not named.
    @Test func commentsAndStringsDoNotCount() {
        let code = SourceCode.withoutCommentsAndStrings("""
            // Restorer in a comment
            /* BackupMaker
               in a block */
            let a = "Verifier in a string \\(x)"
            let b = \"\"\"
                Migrator in a multi-line string
                \"\"\"
            let c = Inspection()
            """)
        let words = Set(SourceCode.matches(of: #"\b([A-Za-z_][A-Za-z0-9_]*)\b"#, in: code))
        #expect(words.contains("Inspection"))
        #expect(!words.contains("Restorer") && !words.contains("BackupMaker") && !words.contains("Verifier") && !words.contains("Migrator"))
    }
}

/// Swift source read as code, for the boundary checks: comments and string literals
/// blanked out (well enough for this codebase's sources; an interpolation's code is
/// dropped with its string).
enum SourceCode {
    static func withoutCommentsAndStrings(_ text: String) -> String {
        var result = text
        for pattern in [#"/\*[\s\S]*?\*/"#, #"//[^\n]*"#, ##"#*"""[\s\S]*?"""#*"##, ##"#*"(?:\\.|[^"\\\n])*"#*"##] {
            result = result.replacingOccurrences(of: pattern, with: " ", options: .regularExpression)
        }
        return result
    }

    /// The first capture group of every match of `pattern` in `text`.
    static func matches(of pattern: String, in text: String) -> [String] {
        guard let expression = try? NSRegularExpression(pattern: pattern) else { return [] }
        let range = NSRange(text.startIndex..., in: text)
        return expression.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }
}

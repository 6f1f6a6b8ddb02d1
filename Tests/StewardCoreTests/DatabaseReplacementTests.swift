import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

/// `restore --replace` meets the database it replaces through `SQLiteErrorMapping`, like
/// every other command: SQLite's message and code, never the SQL it was running.
@Suite struct DatabaseReplacementTests {
    @Test func aTargetThatIsNoDatabaseIsRefusedInTheMappingsWords() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("app.db")
        let garbage = Data(repeating: 0x5A, count: 4096)
        try garbage.write(to: URL(fileURLWithPath: target))
        let restored = directory.file("restored.db")
        try Fixtures.makeExampleDatabase(at: restored)
        let replacement = DatabaseReplacement(path: target, keptPath: nil, timeout: 1, cancellation: Cancellation())
        let error = try #require(throws: StewardError.self) { try replacement.run(newDatabase: restored) }
        #expect(error.kind == .badInput)
        #expect(error.message == "cannot lock \(target) to replace it: file is not a database (SQLite error \(ResultCode.notADatabase))")
        #expect(!error.message.contains("while executing"))
        #expect(FileManager.default.contents(atPath: target) == garbage)
    }
}

import Foundation
import Testing
import TestSupport

/// A zero-byte file is 65 in inspect and verify, as in backup; SQLite
/// would call it an empty database, but it is almost always a wrong path.
@Suite struct EmptyFileTests {
    @Test(arguments: [["inspect"], ["inspect", "--json"], ["verify", "--db"], ["verify", "--json", "--db"]])
    func aZeroByteFileIsBadInput(_ command: [String]) throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("empty.db")
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let run = try StewardProcess.run(command + [path])
        #expect(run.status == 65, "\(command): \(run.allOutput)")
        #expect(run.stderr.contains("\(path) is empty (0 bytes)"))
        #expect(try directory.contents() == ["empty.db"], "nothing created beside it")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty)
    }
}

import Foundation
import SQLiteKit
import Testing
@testable import StewardCore
import TestSupport

/// The private copy verify's FTS5 check and assertions run on (issue 14).
@Suite struct VerifierPrivateCopyTests {
    /// Hardened as any file from elsewhere, cell-size checks on, and not memory-mapped:
    /// with a map, every page fetched is checked again (a mapped page is not kept in
    /// the page cache), which made FTS5's check on the copy half as slow again.
    @Test func theCopyIsHardenedAndNotMemoryMapped() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("tickets.db")
        _ = try Fixtures.makeExampleDatabase(at: path)
        let verifier = Verifier(options: .init(databasePath: path), cancellation: Cancellation(), progress: { _ in })
        let source = try DatabaseFile.openReadOnly(path: path, header: try DatabaseFile(path: path).header())
        let made = try verifier.makeCopy(of: source, path: path, header: try DatabaseFile(path: path).header(),
                                         in: directory.path, held: HeldDescriptors())
        defer { made.workspace?.remove() }
        let copy = try #require(made.copy, "\(String(describing: made.failure))")
        #expect(try copy.integer(sql: "PRAGMA mmap_size") == 0)
        #expect(try copy.integer(sql: "PRAGMA cell_size_check") == 1)
        #expect(copy.isDefensive)
        #expect(try copy.integer(sql: "SELECT count(*) FROM ticket") > 0)
    }
}

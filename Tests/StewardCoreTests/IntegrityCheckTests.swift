import Foundation
import SQLiteKit
import Testing
import TestSupport
@testable import StewardCore

/// Where verify may run its read-write integrity check on the original file (see
/// docs/design-notes.md, "Integrity checks see CHECK constraints"): only where opening it read-write can change nothing.
@Suite struct IntegrityCheckTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws { workspace = try Workspace(database: "t.sqlite", making: []) }

    func header() throws -> DatabaseHeader {
        try DatabaseHeader(bytes: Array(try #require(FileManager.default.contents(atPath: database)).prefix(100)))
    }

    @Test func aRollbackJournalDatabaseIsCheckedInPlaceUnlessAJournalLiesBesideIt() throws {
        try Fixtures.makeExampleDatabase(at: database)
        #expect(IntegrityCheck.canCheckInPlace(path: database, header: try header()))
        try Data([0xd9, 0xd5, 0x05, 0xf9]).write(to: URL(fileURLWithPath: database + "-journal"))
        #expect(!IntegrityCheck.canCheckInPlace(path: database, header: try header()), "a hot journal would be rolled back")
        try Data().write(to: URL(fileURLWithPath: database + "-journal"))
        #expect(IntegrityCheck.canCheckInPlace(path: database, header: try header()), "an empty journal is not hot")
    }

    @Test func aWALDatabaseIsCheckedInPlaceOnlyWithItsWALAndSHM() throws {
        let connection = try Fixtures.makeExampleDatabase(at: database, journalMode: "wal")
        #expect(FileManager.default.fileExists(atPath: database + "-shm"))
        #expect(IntegrityCheck.canCheckInPlace(path: database, header: try header()))
        _ = connection
    }

    @Test func aClosedWALDatabaseIsNotCheckedInPlace() throws {
        do { try Fixtures.makeExampleDatabase(at: database, journalMode: "wal") }
        #expect(!FileManager.default.fileExists(atPath: database + "-wal"))
        #expect(!IntegrityCheck.canCheckInPlace(path: database, header: try header()), "it would create -wal and -shm")
    }

    @Test func theConnectionSeesCheckConstraintsAndWritesNothing() throws {
        do {
            let connection = try Fixtures.makeExampleDatabase(at: database)
            try connection.execute(sql: "PRAGMA ignore_check_constraints = ON; INSERT INTO ticket(title, status) VALUES ('x', 'bogus')")
        }
        let before = FileManager.default.contents(atPath: database)
        let connection = try IntegrityCheck.open(path: database, loadingExtensions: []) { false }
        #expect(try connection.integrityCheck() == ["CHECK constraint failed in ticket"])
        #expect(throws: SQLiteError.self) { try connection.execute(sql: "DELETE FROM ticket") }
        #expect(FileManager.default.contents(atPath: database) == before)
        #expect(try directory.contents() == ["t.sqlite"])
    }
}

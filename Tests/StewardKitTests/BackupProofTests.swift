import CSQLite
import Foundation
@testable import StewardKit
import TestSupport
import Testing

/// The backup proof through the app's connection: a copy made with `sqlite3_backup`,
/// reopened on its own, checked, and its tables' digests compared with the live database's.
@Suite struct BackupProofTests {
    let directory: TemporaryDirectory
    let app: AppConnection

    init() throws {
        directory = try TemporaryDirectory(prefix: "steward-kit-backup")
        app = try AppConnection(path: directory.file("app.sqlite"))
        try app.createTicketDatabase()
    }

    /// The app opens the copy its own way: its tokenizer registered.
    static func appOpener(path: String, check: (OpaquePointer) throws -> Void) throws {
        let copy = try AppConnection(path: path)
        try check(copy.handle)
    }

    @Test func theRoundTripPassesAndItsDigestsEqualTheLiveDatabases() throws {
        try app.execute("PRAGMA query_only = ON")
        let steward = BorrowedConnection(sqliteConnection: app.handle)
        let report = try steward.proveBackup(openingCopyWith: Self.appOpener)
        #expect(report.passed, "\(report.checks.map { "\($0.name.rawValue): \($0.summary) \($0.details)" })")
        #expect(report.checks.map(\.name) == [.sideFiles, .integrity, .foreignKeys, .ftsSync, .contentDigest])
        #expect(report.check(.ftsSync)?.summary.contains("ticket_fts") == true)
        let digests = try #require(report.tableDigests)
        #expect(digests == (try steward.tableDigests()))
        #expect(digests.map(\.name).contains("ticket"))
        #expect(digests.map(\.name).contains("ticket_fts_data"))
        #expect(digests.first { $0.name == "ticket" }?.rows == 3)
        #expect(try app.integer("PRAGMA query_only") == 1)
        #expect(app.isAutocommit)
        let json = String(decoding: try report.json(), as: UTF8.self)
        #expect(!json.contains("secret") && !json.contains("Customer"))
    }

    @Test func withoutTheAppsTokenizerTheCopysFullTextCheckFailsNamingIt() throws {
        let report = try BorrowedConnection(sqliteConnection: app.handle).proveBackup()
        #expect(!report.passed)
        let sync = try #require(report.check(.ftsSync))
        #expect(sync.status == .fail)
        #expect(sync.details.contains { $0.contains("the FTS5 tokenizer app_words is not in this SQLite") })
        #expect(report.check(.contentDigest)?.status == .pass)
    }

    @Test func aDriftedIndexFailsTheCopysFullTextCheck() throws {
        try app.driftIndex()
        let report = try BorrowedConnection(sqliteConnection: app.handle).proveBackup(openingCopyWith: Self.appOpener)
        #expect(report.check(.ftsSync)?.status == .fail)
        #expect(report.check(.ftsSync)?.details.contains { $0.hasPrefix("ticket_fts: the index is out of step") } == true)
        #expect(report.check(.contentDigest)?.status == .pass)
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
    ])
    /// The platform's SHA-256 (libcrypto here) is wired as the digests expect.
    func tableHasherIsTheStandardsSHA256(input: String, digest: String) throws {
        var hasher = try TableHasher()
        hasher.update(Array(input.utf8))
        #expect(try hasher.finalize() == digest)
    }
}

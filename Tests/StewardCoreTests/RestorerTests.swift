import ArchiveKit
import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct RestorerTests {
    let example: ExampleBundle
    var directory: TemporaryDirectory { example.directory }
    var into: String { directory.file("restored") }

    init() throws {
        example = try ExampleBundle()
    }

    func restore(_ bundle: String? = nil, into: String? = nil, cancellation: Cancellation = Cancellation(),
                 progress: @escaping @Sendable (Restorer.Event) -> Void = { _ in }) throws -> RestoreReport {
        try Restorer(options: .init(bundlePath: bundle ?? example.path, intoDirectory: into ?? self.into),
                     cancellation: cancellation, progress: progress).run()
    }

    /// The names in the test directory besides the bundles and the databases they were
    /// made from.
    func leftovers() throws -> [String] {
        try directory.contents().filter { $0 != "out" && !$0.hasSuffix(".sqlite") && !$0.hasSuffix(".tar.zst") }
    }

    @Test func aRoundTripPublishesTheSameDatabaseWithEveryCheck() throws {
        let events = Recording<Restorer.Event>()
        let report = try restore { events.append($0) }
        #expect(report.published)
        #expect(report.failedChecks.isEmpty)
        #expect(report.checks.map(\.name.rawValue) == ["sha256", "header", "payload-size", "journal-mode", "integrity", "foreign-keys",
                                              "version", "application-id", "page-count", "tables", "schema-objects", "fts-sync",
                                              "read-write-probe", "content-digest", "side-files"])
        #expect(report.checks.allSatisfy { $0.status == .pass })
        #expect(Set(events.checkNames) == Set(report.checks.map(\.name.rawValue)))
        #expect(report.database.path == into + "/data/tickets.sqlite")
        #expect(try directory.contents(of: "restored") == ["data", "manifest-sha256.txt", "manifest.json"])
        #expect(try directory.contents(of: "restored/data") == ["tickets.sqlite"])
        #expect(Array(try #require(FileManager.default.contents(atPath: report.database.path))) == example.parts.payload)
        #expect(try DatabaseState(path: report.database.path) == DatabaseState(path: example.database))
        #expect(report.database.sha256 == report.files[0].sha256)
        #expect(!report.walConverted)
        #expect(report.tables.first { $0.name == "ticket" }?.rowCount == 2)
        #expect(report.manifest.source.fileName == "tickets.sqlite")
        #expect(try leftovers() == ["restored"])
    }

    @Test func anEmptyExistingDirectoryIsFilled() throws {
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: false)
        let report = try restore()
        #expect(report.published)
        #expect(try directory.contents(of: "restored") == ["data", "manifest-sha256.txt", "manifest.json"])
    }

    @Test func aWALDatabaseIsSwitchedToRollbackJournalInStaging() throws {
        // A payload whose header says WAL: the main file of a checkpointed WAL database.
        let wal = directory.file("wal.sqlite")
        do {
            let connection = try Fixtures.makeExampleDatabase(at: wal, journalMode: "wal")
            _ = try connection.rows(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let bytes = Array(try #require(FileManager.default.contents(atPath: wal)))
        #expect(Array(bytes[18...19]) == [2, 2])
        var parts = example.parts
        try parts.replacePayload(with: bytes)
        parts.setSource("pageCount", bytes.count / 4096)
        parts.setSource("journalMode", "wal")
        // The recorded digests are of another database, whose created_at values differ
        // from this one's whenever the two were made in different seconds (a flaky
        // content_digest failure under load).
        parts.manifest["contentDigests"] = nil
        let bundle = directory.file("wal.tar.zst")
        try parts.bundle(to: bundle)

        let report = try restore(bundle)
        #expect(report.published, "\(report.checks.filter { $0.status == .fail })")
        #expect(report.walConverted)
        #expect(report.checks.first { $0.name.rawValue == "journal-mode" }?.summary.contains("switched to rollback journal") == true)
        let restored = Array(try #require(FileManager.default.contents(atPath: report.database.path)))
        #expect(Array(restored[18...19]) == [1, 1])
        #expect(report.database.sha256 == (try SHA256Hasher.hex(of: restored)))
        #expect(report.database.sha256 != report.files[0].sha256)
        #expect(try directory.contents(of: "restored/data") == ["tickets.sqlite"], "no -wal or -shm")
        #expect(try DatabaseState(path: report.database.path) == DatabaseState(path: wal))
    }

    @Test func aDamagedPageFailsIntegrityCheckAndNothingIsPublished() throws {
        let source = directory.file("indexed.sqlite")
        try Fixtures.makeIndexedDatabase(at: source)
        var parts = example.parts
        try parts.replacePayload(with: try Fixtures.damagedIndexBytes(of: source))
        parts.setSource("userVersion", 5)
        parts.setSource("pageCount", parts.payload.count / 4096)
        let bundle = directory.file("damaged.tar.zst")
        try parts.bundle(to: bundle)

        let report = try restore(bundle)
        #expect(!report.published)
        #expect(report.failedChecks == ["integrity"], "\(report.checks)")
        #expect(report.checks.first { $0.name.rawValue == "integrity" }?.details.isEmpty == false)
        let left = try leftovers()
        #expect(left.isEmpty, "nothing published, staging removed: \(left)")
    }

    @Test func aPaddedPayloadIsNeverWrittenPastItsPagesNorCopied() throws {
        var parts = example.parts
        let pages = parts.payload.count
        try parts.replacePayload(with: parts.payload + [UInt8](repeating: 0, count: 8 << 20))
        let bundle = directory.file("padded.tar.zst")
        try parts.bundle(to: bundle)
        let directory = self.directory
        let sizes = Recording<String>()
        let report = try restore(bundle) { event in
            // The staging directory as the check that refuses the payload sees it.
            guard case .checked(let check) = event, check.name.rawValue == "payload-size" else { return }
            for name in (try? directory.contents()) ?? [] where name.contains(".steward-restore-") {
                // The staging tree sits in a flock'd workspace (TemporaryWorkspace).
                for file in (try? directory.contents(of: name + "/tree/data")) ?? [] {
                    let attributes = try? FileManager.default.attributesOfItem(atPath: directory.file("\(name)/tree/data/\(file)"))
                    sizes.append("\(file): \((attributes?[.size] as? Int) ?? -1)")
                }
            }
        }
        #expect(!report.published)
        #expect(report.failedChecks == ["payload-size"])
        #expect(report.checks.map(\.name.rawValue) == ["sha256", "header", "payload-size"])
        #expect(report.files[0].matches, "the whole stream was hashed")
        #expect(sizes.elements == ["tickets.sqlite: \(pages)"], "only the declared pages on disk, no probe copy")
        #expect(try leftovers().isEmpty)
    }

    @Test func checksAgainstTheManifestFailWhenItLies() throws {
        var parts = example.parts
        parts.setSource("userVersion", 9)
        parts.setSource("applicationID", 77)
        // The same number of bytes (payload_size passes), in pages of another size.
        parts.setSource("pageCount", parts.payload.count / 2048)
        parts.setSource("pageSize", 2048)
        let bundle = directory.file("liar.tar.zst")
        try parts.bundle(to: bundle)
        let report = try restore(bundle)
        #expect(!report.published)
        #expect(report.failedChecks == ["version", "application-id", "page-count"])
        #expect(report.checks.first { $0.name.rawValue == "version" }?.summary == "2, the manifest says 9")
        #expect(try leftovers().isEmpty)
    }

    @Test func foreignKeyViolationsFail() throws {
        let source = directory.file("orphans.sqlite")
        do {
            let connection = try Connection(path: source)
            try connection.execute(sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));
                INSERT INTO child(parent_id) VALUES (1), (2);
                """)
        }
        var parts = example.parts
        try parts.replacePayload(with: Array(try #require(FileManager.default.contents(atPath: source))))
        parts.setSource("userVersion", 0)
        parts.setSource("pageCount", parts.payload.count / 4096)
        let bundle = directory.file("orphans.tar.zst")
        try parts.bundle(to: bundle)
        let report = try restore(bundle)
        #expect(report.failedChecks == ["foreign-keys"])
        #expect(report.checks.first { $0.name.rawValue == "foreign-keys" }?.summary == "2 violations: child → parent: 2")
    }

    @Test func anAlteredPayloadIsDamagedOrAltered() throws {
        var parts = example.parts
        parts.payload[6000] ^= 0x20
        let bundle = directory.file("altered.tar.zst")
        try parts.bundle(to: bundle)
        let error = try #require(throws: StewardError.self, "restored an altered bundle") { _ = try restore(bundle) }
        #expect(error.kind == .badInput)
        #expect(error.message.hasPrefix("the bundle is damaged or was altered: "))
        #expect(error.message.contains("data/tickets.sqlite has SHA-256"))
        #expect(try leftovers().isEmpty)
    }

    @Test func aPayloadThatIsNotSQLiteIsBadInputBeforeSQLiteOpensIt() throws {
        var parts = example.parts
        try parts.replacePayload(with: Array(repeating: UInt8(ascii: "A"), count: 8192))
        let bundle = directory.file("text.tar.zst")
        try parts.bundle(to: bundle)
        let error = try #require(throws: StewardError.self, "restored text") { _ = try restore(bundle) }
        #expect(error.kind == .badInput)
        #expect(error.message.contains("its payload data/tickets.sqlite is not a SQLite database (the header string is not 'SQLite format 3')"))
        #expect(try leftovers().isEmpty)
    }

    @Test func theProbeNeverWritesTheRestoredFileAndLeavesNothing() throws {
        let report = try restore()
        let probe = try #require(report.checks.first { $0.name.rawValue == "read-write-probe" })
        #expect(probe.status == .pass)
        #expect(probe.summary.contains("rolled back; reopened without the table, file SHA-256 unchanged"), "\(probe.summary)")
        #expect(try SHA256Hasher.hex(of: Array(try #require(FileManager.default.contents(atPath: report.database.path)))) == report.files[0].sha256)
        let tables = try Connection(path: report.database.path, mode: [.readOnly]).integer(sql: "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'steward_restore_probe%'")
        #expect(tables == 0)
    }

    @Test func aNonEmptyTargetIsRefusedBeforeTheBundleIsRead() throws {
        try FileManager.default.createDirectory(atPath: into, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: into + "/keep"))
        let error = try #require(throws: StewardError.self, "restored into a full directory") { _ = try restore() }
        #expect(error.kind == .cannotCreate)
        #expect(error.message.contains("is not empty"))
        #expect(try directory.contents(of: "restored") == ["keep"])
        #expect(try leftovers() == ["restored"])
    }

    @Test func aMissingBundleIsNotFound() throws {
        let error = try #require(throws: StewardError.self, "restored nothing") { _ = try restore(directory.file("nope.tar.zst")) }
        #expect(error.kind == .notFound)
        #expect(try leftovers().isEmpty)
    }

    @Test(arguments: ["extracting", "checking", "integrity", "tables", "read-write-probe", "side-files"])
    func cancellationAtEveryPhaseLeavesNothing(phase: String) throws {
        let cancellation = Cancellation()
        do {
            _ = try restore(cancellation: cancellation) { event in
                switch event {
                case .extracting where phase == "extracting", .checking where phase == "checking":
                    cancellation.cancel(reason: "SIGTERM")
                case .checked(let check) where check.name.rawValue == phase:
                    cancellation.cancel(reason: "SIGTERM")
                default:
                    break
                }
            }
            Issue.record("not interrupted at \(phase)")
        } catch let error as StewardError {
            #expect(error.kind == .interrupted, "\(error)")
            #expect(error.message.contains("SIGTERM"))
        }
        #expect(try leftovers().isEmpty, "at \(phase)")
    }

    @Test func aStaleStagingDirectoryIsRemovedAndReported() throws {
        let stale = ".restored.steward-restore-\(getpid())-0badf0"
        try FileManager.default.createDirectory(atPath: directory.file(stale + "/tree/data"), withIntermediateDirectories: true)
        try Data().write(to: URL(fileURLWithPath: directory.file(stale + "/.lock")))
        let report = try restore()
        #expect(report.staleStagingRemoved == [stale])
        #expect(try leftovers() == ["restored"])
    }
}


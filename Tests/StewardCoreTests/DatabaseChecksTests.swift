@testable import BundleFormat
import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import Testing

/// The database checks verify, backup and restore share: each fails on a database made to
/// fail it and passes on one that is sound.
@Suite struct DatabaseChecksTests {
    @Test func integrityPassesOnASoundDatabase() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "CREATE TABLE t(x INTEGER CHECK (x > 0)); INSERT INTO t VALUES (1)")
        let check = try DatabaseChecks.integrity(on: connection, maximumErrors: 10)
        #expect(check.name == .integrity)
        #expect(check.status == .ok)
        #expect(check.detail == "integrity_check returned ok")
        #expect(check.problems.isEmpty)
    }

    @Test(arguments: [false, true])
    func integrityFailsOnARowPastItsCheckConstraint(quick: Bool) throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE t(x INTEGER CHECK (x > 0));
            PRAGMA ignore_check_constraints = ON; INSERT INTO t VALUES (-1); PRAGMA ignore_check_constraints = OFF
            """)
        let check = try DatabaseChecks.integrity(on: connection, quick: quick, maximumErrors: 10)
        #expect(check.status == .failed)
        #expect(check.detail == "\(quick ? "quick_check" : "integrity_check") found 1 problem")
        #expect(check.problems == ["CHECK constraint failed in t"])
        #expect(check.counts == ["problems": 1])
    }

    @Test func foreignKeysPassWithoutOrphans() throws {
        let connection = try Self.parentAndChild(orphans: 0)
        let check = try DatabaseChecks.foreignKeys(on: connection)
        #expect(check.status == .ok)
        #expect(check.detail == "foreign_key_check found no violations")
        #expect(check.total == 0)
    }

    @Test func foreignKeysCountViolationsPerTablePairWithoutRowData() throws {
        let connection = try Self.parentAndChild(orphans: 2)
        let check = try DatabaseChecks.foreignKeys(on: connection)
        #expect(check.name == .foreignKeys)
        #expect(check.status == .failed)
        #expect(check.detail == "foreign_key_check found 2 violations")
        #expect(check.problems == ["child → parent: 2 rows"])
        #expect(check.counts == ["child → parent": 2])
        #expect(check.total == 2)
        #expect(check.countsSummary == "child → parent: 2")
        #expect(!check.problems.joined().contains("secret"), "no row data")
    }

    /// backup's and restore's record of failures (`RecordedFailures`) is read by the same
    /// checks: the same problems, the same pairs, with a table name holding " → " kept whole.
    @Test func recordedFailuresAreWhatTheSharedChecksFind() throws {
        let connection = try Self.parentAndChild(orphans: 2)
        try connection.execute(sql: """
            CREATE TABLE "a → b"(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id));
            INSERT INTO "a → b"(parent_id) VALUES (7);
            CREATE TABLE t(x INTEGER CHECK (x > 0));
            PRAGMA ignore_check_constraints = ON; INSERT INTO t VALUES (-1); PRAGMA ignore_check_constraints = OFF
            """)
        let recorded = try Self.recordedFailures(connection)
        #expect(recorded.integrity.problems == 1 && recorded.integrity.tables == ["t"])
        #expect(recorded.foreignKeyViolations.map { "\($0.table)|\($0.parent)|\($0.count)" } == ["a → b|parent|1", "child|parent|2"])
        #expect(try DatabaseChecks.foreignKeyCounts(on: connection) == recorded.foreignKeyViolations)
        #expect(try DatabaseChecks.foreignKeys(on: connection).detail == "foreign_key_check found 3 violations")
        #expect(try Self.recordedFailures(try Self.parentAndChild(orphans: 0)).isEmpty)
    }

    /// The record made from what the checks found, as backup and restore make it.
    static func recordedFailures(_ connection: Connection) throws -> RecordedFailures {
        let integrity = try DatabaseChecks.integrity(on: connection, maximumErrors: RecordedFailures.integrityLimit)
        return RecordedFailures(
            integrity: try integrity.recordedIntegrity(tablesIn: connection),
            foreignKeyViolations: try DatabaseChecks.foreignKeyCounts(on: connection),
            fts5Tables: [])
    }

    /// One long run serves the record and the report: its first problems are the short
    /// run's, word for word.
    @Test func aLongIntegrityRunLimitedIsTheShortRun() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE t(x INTEGER CHECK (x > 0));
            PRAGMA ignore_check_constraints = ON;
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 15) INSERT INTO t SELECT -i FROM n;
            PRAGMA ignore_check_constraints = OFF
            """)
        let short = try DatabaseChecks.integrity(on: connection, maximumErrors: 10)
        let long = try DatabaseChecks.integrity(on: connection, maximumErrors: RecordedFailures.integrityLimit)
        #expect(long.problems.count == 15)
        #expect(DatabaseChecks.integrity(long, limitedTo: 10) == short)
        #expect(short.detail == "integrity_check found 10 problems")
        let sound = try DatabaseChecks.integrity(on: try Connection.inMemory(), maximumErrors: 10)
        #expect(DatabaseChecks.integrity(sound, limitedTo: 10) == sound)
    }

    @Test func userVersionPassesOnlyWhenItIsTheExpectedOne() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: "PRAGMA user_version = 3")
        let matching = try DatabaseChecks.userVersion(on: connection, expected: 3)
        #expect(matching.status == .ok)
        #expect(matching.detail == "user_version is 3")
        #expect(matching.userVersion == 3)
        let other = try DatabaseChecks.userVersion(on: connection, expected: 4)
        #expect(other.name == .version)
        #expect(other.status == .failed)
        #expect(other.detail == "user_version is 3, expected 4")
    }

    /// FTS5's statement and Steward's digest (on the connection alone) say the same.
    static let methods: [FTS5CheckMethod] = [.sqlite, .parallel(workers: 1, open: nil)]

    @Test(.enabled(if: SQLiteLibrary.canCreateFTS5(), "needs FTS5"), arguments: methods)
    func fts5IntegrityPassesOnAnIndexInStepWithItsContent(method: FTS5CheckMethod) throws {
        let connection = try Self.externalContentIndex(inStep: true)
        let check = try DatabaseChecks.fullTextIntegrity(on: connection, method: method)
        #expect(check.name == .ftsSync)
        #expect(check.status == .ok)
        #expect(check.fts5Tables == ["doc_fts"])
        #expect(check.failedFTS5Tables.isEmpty)
        #expect(connection.isAutocommit, "the check's transaction is rolled back")
    }

    @Test(.enabled(if: SQLiteLibrary.canCreateFTS5(), "needs FTS5"), arguments: methods)
    func fts5IntegrityFailsOnAnIndexThatDriftedFromItsContent(method: FTS5CheckMethod) throws {
        let connection = try Self.externalContentIndex(inStep: false)
        let check = try DatabaseChecks.fullTextIntegrity(on: connection, method: method)
        #expect(check.status == .failed)
        #expect(check.fts5Tables == ["doc_fts"])
        #expect(check.failedFTS5Tables == ["doc_fts"])
        #expect(check.problems.count == 1)
        #expect(check.problems.first?.hasPrefix("doc_fts: the index is out of step with its content table doc (drift, not damage to the file") == true)
        #expect(!check.problems.joined().contains("secret"), "no row data")
    }

    /// The one statement migrate and verify run: only rank 1 compares the index with its content.
    @Test(.enabled(if: SQLiteLibrary.canCreateFTS5(), "needs FTS5"))
    func fts5StatementComparesWithTheContentOnlyAtRankOne() throws {
        let connection = try Self.externalContentIndex(inStep: false)
        try FTS5IntegrityCheck.check("doc_fts", rank: nil, on: connection)
        #expect(throws: SQLiteError.self) { try FTS5IntegrityCheck.check("doc_fts", rank: 1, on: connection) }
        let sound = try Self.externalContentIndex(inStep: true)
        try FTS5IntegrityCheck.check("doc_fts", rank: 1, on: sound)
    }

    @Test func checkNamesKeepVerifysOrderAndTheManifestNames() {
        #expect(Verifier.checkOrder == [
            "sqlite", "schema-objects", "integrity", "foreign-keys", "fts-sync", "fts-triggers", "version", "ledger", "schema", "assertions",
            "search-contract",
        ])
        // The bundle format keeps its recorded names, and reads each back as the one check.
        #expect(BundleManifest.checkNames == ["integrity_check", "foreign_key_check", "user_version", "journal_mode", "fts5_integrity"])
        #expect(BundleManifest.checkNames.map { CheckName(manifestName: $0) } == [.integrity, .foreignKeys, .version, .journalMode, .ftsSync])
        #expect(CheckName(manifestName: "integrity") == nil)
        #expect(CheckName(manifestName: "tables") == nil)
    }

    // MARK: - Fixtures

    static func parentAndChild(orphans: Int) throws -> Connection {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id), note TEXT);
            INSERT INTO parent VALUES (1);
            INSERT INTO child(parent_id, note) VALUES (1, 'secret');
            """)
        for _ in 0..<orphans {
            try connection.execute(sql: "INSERT INTO child(parent_id, note) VALUES (99, 'secret')")
        }
        return connection
    }

    /// An external-content FTS5 table; out of step when a row reaches the content table
    /// without reaching the index (no sync trigger).
    static func externalContentIndex(inStep: Bool) throws -> Connection {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='id');
            INSERT INTO doc(body) VALUES ('secret words');
            """)
        if inStep { try connection.execute(sql: "INSERT INTO doc_fts(doc_fts) VALUES ('rebuild')") }
        return connection
    }
}

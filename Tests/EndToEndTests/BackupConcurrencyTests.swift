import Foundation
import SQLiteKit
import Testing
import TestSupport

/// Writes one batch and its lines per transaction, as fast as it can, on its own thread
/// and connection, until stopped (field notes §3, the concurrency test). Batch numbers
/// are given in commit order, so a consistent snapshot holds exactly batches 1…n.
final class BatchWriter: @unchecked Sendable {
    private let path: String
    private let lock = NSLock()
    private var stopRequested = false
    private var committed = 0
    private var failure: Error?
    private let done = DispatchSemaphore(value: 0)

    init(path: String) {
        self.path = path
    }

    static func createSchema(at path: String, journalMode: String) throws {
        let connection = try Connection(path: path)
        try connection.setJournalMode(journalMode)
        try connection.execute(sql: """
            CREATE TABLE batch(id INTEGER PRIMARY KEY, batch_no INTEGER NOT NULL, expected INTEGER NOT NULL);
            CREATE TABLE line(id INTEGER PRIMARY KEY, batch_id INTEGER NOT NULL REFERENCES batch(id), n INTEGER NOT NULL, filler BLOB);
            CREATE INDEX line_batch ON line(batch_id);
            PRAGMA user_version = 7;
            """)
    }

    func start() {
        Thread.detachNewThread { [self] in
            do {
                try run()
            } catch {
                lock.lock()
                failure = error
                lock.unlock()
            }
            done.signal()
        }
    }

    /// Stops the writer and returns the number of batches it committed.
    func stop() throws -> Int {
        lock.lock()
        stopRequested = true
        lock.unlock()
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        if let failure { throw failure }
        return committed
    }

    var committedSoFar: Int {
        lock.lock()
        defer { lock.unlock() }
        return committed
    }

    private var shouldStop: Bool {
        lock.lock()
        defer { lock.unlock() }
        return stopRequested
    }

    private func run() throws {
        let connection = try Connection(path: path)
        connection.setBusyTimeout(milliseconds: 20_000)
        try connection.execute(sql: "PRAGMA synchronous = OFF")
        let insertBatch = try connection.prepare(sql: "INSERT INTO batch(batch_no, expected) VALUES (?, ?)")
        let insertLine = try connection.prepare(sql: "INSERT INTO line(batch_id, n, filler) VALUES (?, ?, randomblob(200))")
        var number = 0
        while !shouldStop {
            number += 1
            let lines = number % 9 + 1
            try connection.transaction(.immediate) {
                try insertBatch.reset()
                try insertBatch.bind([.integer(Int64(number)), .integer(Int64(lines))])
                try insertBatch.step()
                let batchID = connection.lastInsertRowID
                for line in 1...lines {
                    try insertLine.reset()
                    try insertLine.bind([.integer(batchID), .integer(Int64(line))])
                    try insertLine.step()
                }
            }
            lock.lock()
            committed = number
            lock.unlock()
        }
    }
}

/// Backups taken again and again, each to a new name, while a writer commits batches
/// (or with nobody writing): every snapshot is one point in time.
@Suite struct BackupConcurrencyTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let journalMode: String
        let writer: Bool
        var testDescription: String { "\(journalMode), \(writer ? "with" : "without") a writer" }
    }

    @Test(arguments: [Case(journalMode: "delete", writer: true), Case(journalMode: "delete", writer: false),
                      Case(journalMode: "wal", writer: true)])
    func everySnapshotHoldsWholeBatchesOnly(_ setup: Case) throws {
        let directory = try TemporaryDirectory()
        let database = directory.file("orders.sqlite")
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: true)
        try BatchWriter.createSchema(at: database, journalMode: setup.journalMode)

        // Some batches first, so that every copy takes many steps.
        let writer = BatchWriter(path: database)
        writer.start()
        while writer.committedSoFar < 200 { Thread.sleep(forTimeInterval: 0.005) }
        let before = setup.writer ? 200 : try writer.stop()

        var counts: [Int] = []
        for index in 0..<10 {
            let name = "snapshot-\(index).tar.zst"
            let run = try StewardProcess.run(
                ["backup", "--db", database, "--out", out, "--name", name, "--pages-per-step", "8", "--json"])
            try #require(run.status == 0, "backup \(index): \(run.stderr)")
            let report = try run.json()
            #expect(((report["manifest"] as? [String: Any])?["snapshot"] as? [String: Any])?["restarts"] as? Int == 0)

            let extracted = directory.file("x\(index)")
            try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
            let bundle = try BundleContents(reading: out + "/" + name, extractingInto: extracted)
            let files = try #require(bundle.manifest["files"] as? [[String: Any]])
            #expect(files.first?["sha256"] as? String == bundle.databaseSHA256)
            counts.append(try checkSnapshot(bundle.databasePath, label: "snapshot \(index)"))
        }
        let committed = setup.writer ? try writer.stop() : before
        #expect(counts.allSatisfy { $0 >= before && $0 <= committed }, "\(counts), writer committed \(committed)")
        if !setup.writer {
            #expect(Set(counts) == [before], "without a writer every snapshot is the same")
        }
        #expect(try directory.contents(of: "out").count == 10, "ten bundles, no temporaries")
        if setup.journalMode == "wal" {
            #expect(try Connection(path: database).journalMode() == "wal", "the source stays in WAL mode")
        }
    }

    /// Checks one snapshot and returns its number of batches.
    func checkSnapshot(_ path: String, label: String) throws -> Int {
        let bytes = try #require(FileManager.default.contents(atPath: path))
        #expect(Array(bytes[18...19]) == [1, 1], "\(label): rollback journal")
        let connection = try Connection(path: path, mode: [.readOnly])
        #expect(try connection.integrityCheck() == ["ok"], "\(label)")
        #expect(try connection.foreignKeyViolations().isEmpty, "\(label)")
        #expect(try connection.userVersion() == 7, "\(label)")
        let partial = try connection.integer(sql: """
            SELECT count(*) FROM batch WHERE expected != (SELECT count(*) FROM line WHERE line.batch_id = batch.id)
            """)
        #expect(partial == 0, "\(label): batches with missing lines")
        let orphans = try connection.integer(sql: "SELECT count(*) FROM line WHERE batch_id NOT IN (SELECT id FROM batch)")
        #expect(orphans == 0, "\(label): orphan lines")
        let duplicates = try connection.integer(sql: "SELECT count(*) - count(DISTINCT batch_no) FROM batch")
        #expect(duplicates == 0, "\(label): duplicate batch numbers")
        let count = Int(try connection.integer(sql: "SELECT count(*) FROM batch"))
        let newest = Int(try connection.integer(sql: "SELECT coalesce(max(batch_no), 0) FROM batch"))
        #expect(newest == count, "\(label): batches 1…\(count) and nothing after a gap")
        return count
    }
}

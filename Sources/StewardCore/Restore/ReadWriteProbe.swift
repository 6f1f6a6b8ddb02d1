import Foundation
import FileNames
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

/// Proves that a restored database accepts writes (field notes §4) without writing it:
/// on a disposable copy inside the staging directory, a probe table is created, rows are
/// inserted, updated and deleted, the transaction is committed, the connection closed,
/// the copy reopened and the rows read back. Then the copy and every file SQLite made
/// beside it are removed.
///
/// The copy is made by `prepare()`, so that the caller can choose when the file is read
/// for it.
final class ReadWriteProbe {
    let databasePath: String
    let staging: StagingDirectory
    let cancellation: Cancellation
    let extensions: [String]
    private let copyName = "\(ReadWriteProbe.copyPrefix)\(String(format: "%08x", UInt32.random(in: .min ... .max))).sqlite"
    private var copySeconds = 0.0

    static let copyPrefix = ".probe-"

    init(databasePath: String, staging: StagingDirectory, cancellation: Cancellation, extensions: [String] = []) {
        self.extensions = extensions
        self.databasePath = databasePath
        self.staging = staging
        self.cancellation = cancellation
    }

    private var copyPath: String { staging.file(copyName) }

    /// Makes the disposable copy. Throws for a signal or when the staging directory has
    /// no room (74) for it.
    func prepare() throws {
        let watch = Stopwatch()
        defer { copySeconds = watch.seconds }
        try makeCopy(at: copyName)
    }

    /// The copy and whatever SQLite left beside it; most are absent (ENOENT).
    func discard() {
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(FileName.cString(copyPath + suffix)) }
    }

    /// Probes the copy made by `prepare()`, then removes it.
    func run() throws -> RestoreReport.Check {
        let watch = Stopwatch()
        let copyPath = self.copyPath
        defer { discard() }
        func seconds() -> Double { ((copySeconds + watch.seconds) * 1000).rounded() / 1000 }
        do {
            let summary = try probe(copyPath)
            for suffix in ["-journal", "-wal", "-shm"] where DatabaseFile.exists(copyPath + suffix) {
                return .init(name: "read_write_probe", status: .fail,
                             summary: "SQLite left a \(suffix) file beside the copy after closing it", durationSeconds: seconds())
            }
            return .init(name: "read_write_probe", status: .pass, summary: summary, durationSeconds: seconds())
        } catch let error as SQLiteError {
            return .init(name: "read_write_probe", status: .fail,
                         summary: try RestoredDatabaseChecks.failure(error, cancellation), durationSeconds: seconds())
        } catch let failure as ProbeFailure {
            return .init(name: "read_write_probe", status: .fail, summary: failure.reason, durationSeconds: seconds())
        }
    }

    struct ProbeFailure: Error {
        let reason: String
    }

    private func makeCopy(at name: String) throws {
        let source = open(FileName.cString(databasePath), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard source >= 0 else {
            throw StewardError(.inputOutput, "cannot read \(databasePath): \(SystemCall.message(errno))")
        }
        defer { close(source) }
        let target = try staging.createFile(name)
        let code = FileCopy.copy(from: source, to: target, isCancelled: { cancellation.isCancelled })
        // Never synced: the copy is removed in a moment.
        let closed = close(target) == 0 ? 0 : errno
        if cancellation.isCancelled { throw BundleReader.interrupted(cancellation) }
        let failure = code != 0 ? code : closed
        guard failure == 0 else {
            throw StewardError(failure == ENOSPC || failure == EDQUOT ? .inputOutput : SystemCall.outputKind(failure),
                               "cannot copy the database for the read-write probe in \(staging.path): \(SystemCall.message(failure))")
        }
    }

    /// The probe itself; returns the summary of what was proven.
    private func probe(_ path: String) throws -> String {
        let table = "steward_restore_probe_\(String(format: "%08x", UInt32.random(in: .min ... .max)))"
        let quoted = Connection.quote(identifier: table)
        do {
            let connection = try connect(path)
            // The copy is thrown away: syncing it would only write the whole file back
            // to disk. The journal is still written, and the commit still goes through it.
            try connection.execute(sql: "PRAGMA synchronous = OFF")
            let mode = try connection.journalMode()
            guard mode == "delete" else { throw ProbeFailure(reason: "the copy opens in journal mode \(mode), not delete") }
            let exists = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema WHERE name = ?", bindings: [.text(table)])
            guard exists == 0 else { throw ProbeFailure(reason: "the probe table \(table) exists already") }
            try connection.transaction(.immediate) {
                try connection.execute(sql: "CREATE TABLE main.\(quoted)(id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
                for (id, value) in [(1, "one"), (2, "two"), (3, "three")] {
                    try connection.execute(sql: "INSERT INTO main.\(quoted)(id, value) VALUES (?, ?)", bindings: [.integer(Int64(id)), .text(value)])
                }
                try connection.execute(sql: "UPDATE main.\(quoted) SET value = 'TWO' WHERE id = 2")
                guard connection.changes == 1 else { throw ProbeFailure(reason: "the update changed \(connection.changes) rows, not 1") }
                try connection.execute(sql: "DELETE FROM main.\(quoted) WHERE id = 3")
                guard connection.changes == 1 else { throw ProbeFailure(reason: "the delete removed \(connection.changes) rows, not 1") }
            }
        }
        // Closed (the connection is released above); a new one must see the commit.
        let reopened = try connect(path)
        var rows: [String] = []
        try reopened.forEachRow(sql: "SELECT id, value FROM main.\(quoted) ORDER BY id") { row in
            rows.append("\(row.int(at: 0))=\(row.text(at: 1) ?? "NULL")")
        }
        guard rows == ["1=one", "2=TWO"] else {
            throw ProbeFailure(reason: "after reopening, the probe table holds \(rows.count) rows, not the 2 committed")
        }
        return "on a copy: created a table, inserted, updated, deleted, committed, reopened and read back"
    }

    private func connect(_ path: String) throws -> Connection {
        let connection = try Connection(path: DatabaseFile.uri(for: path, query: "mode=rw"), mode: [.readWrite, .uri, .noFollow])
        try connection.harden(loadingExtensions: extensions)
        let cancellation = self.cancellation
        connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
        return connection
    }
}

/// Copies one open file into another: in the kernel with copy_file_range(2) where the
/// system has it, with read and write otherwise.
enum FileCopy {
    typealias CopyFileRange = @convention(c) (Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32) -> Int

    /// glibc 2.27 and later; Swift's Glibc module leaves GNU-only declarations out.
    static let copyFileRange: CopyFileRange? = {
        guard let symbol = dlsym(nil, "copy_file_range") else { return nil }
        return unsafeBitCast(symbol, to: CopyFileRange.self)
    }()

    /// Copies from the current offsets to the end of `source`. Returns 0 or errno.
    static func copy(from source: Int32, to target: Int32, isCancelled: () -> Bool) -> Int32 {
        if let copyFileRange {
            while true {
                if isCancelled() { return EINTR }
                let copied = copyFileRange(source, nil, target, nil, 64 << 20, 0)
                if copied > 0 { continue }
                if copied == 0 { return 0 }
                let code = errno
                if code == EINTR { continue }
                // Across file systems before Linux 5.3, or not supported at all: fall back.
                guard code == EXDEV || code == ENOSYS || code == EOPNOTSUPP || code == EINVAL else { return code }
                break
            }
        }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            if isCancelled() { return EINTR }
            let count = SystemCall.readSome(source, buffer)
            if count < 0 { return Int32(-count) }
            if count == 0 { return 0 }
            let code = SystemCall.writeAll(target, UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            if code != 0 { return code }
        }
    }
}

import FileNames
import Foundation
import SQLiteKit

import StewardBase
import BundleFormat
#if canImport(Glibc)
import Glibc
#endif

/// The part of a backup that holds the source: a read transaction pins one point in time,
/// the source is copied into the temporary file, and released at once
/// (https://www.sqlite.org/backup.html; a long reader holds back WAL checkpoints). Nothing
/// else happens while it is held.
///
/// A rollback-journal database is copied as it is, in the kernel (copy_file_range(2)),
/// while the transaction's shared lock keeps every writer from changing the file: about a
/// third of the online backup API's time and CPU on the 1 GiB bench database. A WAL
/// database keeps part of its pages in the `-wal`, so the online backup API copies it, in
/// steps of `pagesPerStep` pages, as it does any file the kernel copy cannot take.
///
/// The plain descriptor the kernel copy reads is closed only after the source connection
/// is: closing any descriptor on a file drops every POSIX lock this process holds on it.
struct SourceSnapshot {
    struct Result {
        let source: BundleManifest.Source
        let snapshot: BundleManifest.Snapshot
        /// When the snapshot was pinned, in seconds since 1970.
        let pinnedAt: Int64
    }

    let databasePath: String
    /// The source as `BackupMaker.checkSource` found it: the kernel copy reads only that file.
    let sourceFile: stat
    let copyPath: String
    let pagesPerStep: Int32
    let waits: LockWaits
    let cancellation: Cancellation
    let progress: @Sendable (BackupMaker.Event) -> Void
    /// Told how far the kernel copy has got, for a reader that follows it; abandoned when
    /// the copy is made any other way or fails.
    var mark: CopyWatermark? = nil
    /// Takes the kernel copy's descriptor instead of its being closed here, when other
    /// connections of this process hold locks on the source (`BackupMaker.Options.heldDescriptors`).
    var holder: HeldDescriptors? = nil
    /// `--load-extension`: loaded into the source's connection and the copy's, as into
    /// every connection a command opens on the user's data.
    var extensions: [String] = []

    /// Copies the source into `copyPath`. `whilePinned` runs once the facts of the snapshot
    /// are known and before the copy starts; it may refuse by throwing.
    func take(whilePinned: (BundleManifest.Source, Int64) throws -> Void) throws -> Result {
        let started = Stopwatch()
        // A copy SQLite cannot open fails before the source is touched.
        _ = try openCopy()
        // The kernel copy's descriptor on the source, closed when this returns: after the
        // source connection, which lives in `copySource`, is.
        var held: Int32 = -1
        defer {
            if held >= 0 {
                if let holder { holder.hold(held) } else { close(held) }
            }
        }
        let pinned: (result: Result, inKernel: Bool)
        do {
            pinned = try copySource(started: started, whilePinned: whilePinned, descriptor: &held)
        } catch {
            mark?.abandon()
            throw error
        }
        let snapshot = pinned.result.snapshot
        progress(.copied(pages: pinned.result.source.pageCount, seconds: snapshot.durationSeconds, heldSeconds: snapshot.sourceHeldSeconds))
        // The kernel's copy is the rollback-journal file as it is, and may be read already:
        // it is not opened for writing again.
        if !pinned.inKernel { try switchToRollbackJournal(try openCopy()) }
        return pinned.result
    }

    /// Everything that touches the source, so that its connection is closed on return;
    /// the snapshot's duration runs from `started` until the source is released.
    /// `descriptor` is the plain one the kernel copy read, for the caller to close afterwards.
    private func copySource(
        started: Stopwatch, whilePinned: (BundleManifest.Source, Int64) throws -> Void, descriptor: inout Int32
    ) throws -> (result: Result, inKernel: Bool) {
        let source = try openSource()
        // Deferred BEGIN takes no lock; the first read takes the shared lock (or, in WAL
        // mode, the read mark) and with it the point in time.
        try sourceStatement { try source.execute(sql: "BEGIN DEFERRED") }
        defer { source.rollbackIfNeeded() }
        try sourceStatement { _ = try source.integer(sql: "SELECT count(*) FROM main.sqlite_schema") }
        let held = Stopwatch()
        let pinnedAt = Int64(Date().timeIntervalSince1970)

        let facts = try sourceStatement {
            BundleManifest.Source(
                fileName: Paths.fileName(of: databasePath),
                userVersion: try source.userVersion(),
                applicationID: Int32(truncatingIfNeeded: try source.integer(sql: "PRAGMA application_id")),
                pageSize: Int(try source.integer(sql: "PRAGMA page_size")),
                pageCount: Int(try source.integer(sql: "PRAGMA page_count")),
                journalMode: try source.journalMode())
        }
        try whilePinned(facts, pinnedAt)

        var steps = 0, restarts = 0, pagesPerStep = Int(self.pagesPerStep)
        let chunks = copyInKernel(facts, held: &descriptor)
        if let chunks {
            steps = chunks
            pagesPerStep = FileCopy.chunkBytes / max(facts.pageSize, 1)
        } else {
            mark?.abandon()
            if cancellation.isCancelled { throw interrupted() }
            (steps, restarts) = try copyPages(from: source, to: try openCopy(), pageSize: facts.pageSize)
        }

        // Released before anything else happens: the rest works on the copy alone.
        try sourceStatement { try source.execute(sql: "COMMIT") }
        let snapshot = BundleManifest.Snapshot(
            durationSeconds: started.roundedSeconds, sourceHeldSeconds: held.roundedSeconds,
            lockWaitSeconds: (waits.secondsWaited * 1000).rounded() / 1000,
            restarts: restarts, pagesPerStep: pagesPerStep, steps: steps)
        return (Result(source: facts, snapshot: snapshot, pinnedAt: pinnedAt), chunks != nil)
    }

    /// Copies a rollback-journal source as it is, in the kernel, while the read
    /// transaction's shared lock holds every writer off. Returns the number of chunks
    /// copied, or nil, having left the copy empty, when it cannot: a WAL database, another
    /// file at the path than the one checked, a file shorter than its pages, or a failed
    /// copy. Bytes past the last page are not the database: the copy is cut to the pages.
    private func copyInKernel(_ facts: BundleManifest.Source, held: inout Int32) -> Int? {
        guard Self.copiesInKernel(facts, path: databasePath) else { return nil }
        let input = open(FileName.cString(databasePath), O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return nil }
        held = input
        var info = stat()
        let bytes = off_t(facts.pageSize) * off_t(facts.pageCount)
        guard fstat(input, &info) == 0, info.st_dev == sourceFile.st_dev, info.st_ino == sourceFile.st_ino,
              info.st_size >= bytes, bytes > 0 else { return nil }
        let output = open(FileName.cString(copyPath), Self.kernelCopyOpenFlags)
        guard output >= 0 else { return nil }
        let watch = Stopwatch()
        let pageSize = max(facts.pageSize, 1)
        var code = FileCopy.copy(from: input, to: output, isCancelled: { cancellation.isCancelled }) { bytes in
            mark?.advance(to: Int64(bytes))
            let seconds = watch.seconds
            progress(.copying(pages: min(bytes / pageSize, facts.pageCount), totalPages: facts.pageCount,
                              bytesPerSecond: seconds > 0 ? Double(bytes) / seconds : 0))
        }
        if code == 0, TestHooks.failsKernelCopy {
            // Once the reader behind the copy has read and compressed all of it.
            _ = mark?.waitForReader(seconds: 30)
            code = EIO
        }
        let cut = code == 0 && ftruncate(output, bytes) == 0
        let closed = close(output) == 0
        guard cut, closed else {
            // Left empty: the online backup API writes the copy anew. A reader behind the
            // copy stops first.
            mark?.abandon()
            truncate(FileName.cString(copyPath), 0)
            return nil
        }
        mark?.complete()
        return Int((bytes + off_t(FileCopy.chunkBytes) - 1) / off_t(FileCopy.chunkBytes))
    }

    /// How the kernel copy opens the copy: without `O_TRUNC`. The copy was made empty by
    /// this run, and everything below the pages is overwritten and cut to them anyway. On
    /// ext4 a truncation to size 0, even of an empty file, marks the file so that closing
    /// it allocates and starts writing back every delayed block (`auto_da_alloc`): 0.45 s
    /// inside `close` at 1 GiB while the source was still held, and a disk write of a
    /// file that is deleted a few seconds later (design notes, "Performance (issue 14)").
    static let kernelCopyOpenFlags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC

    /// Whether the kernel copies the source: a rollback-journal database, no `-wal` beside
    /// it. Such a copy can still fail, and is then made by the online backup API.
    static func copiesInKernel(_ facts: BundleManifest.Source, path: String) -> Bool {
        facts.journalMode != "wal" && !DatabaseFile.exists(path + "-wal")
    }

    // MARK: - Steps

    private func openSource() throws -> Connection {
        let connection: Connection
        do {
            // Read-write when the file allows it, as the application opens it: SQLite may
            // then roll back a hot journal and, as the last connection of a WAL database,
            // checkpoint and remove the -wal it made. Only reads are issued.
            connection = try DatabaseFile.open(path: databasePath, .readWrite, followLinks: true)
            for path in extensions { try connection.loadExtension(path: path) }
        } catch let error as SQLiteError {
            throw explainSource(error)
        }
        waits.attach(to: connection)
        return connection
    }

    private func openCopy() throws -> Connection {
        do {
            let copy = try DatabaseFile.open(path: copyPath, .readWrite, followLinks: true)
            for path in extensions { try copy.loadExtension(path: path) }
            // The copy is private and thrown away on any failure: no journal, no syncs
            // while it is written. The bundle is what gets synced.
            _ = try copy.setJournalMode("off")
            try copy.execute(sql: "PRAGMA synchronous = OFF")
            return copy
        } catch let error as SQLiteError {
            throw explainCopy(error)
        }
    }

    /// Steps the online backup. BUSY and LOCKED are waited out within the allowance;
    /// anything else ends the run. Returns the number of steps and of restarts.
    private func copyPages(from source: Connection, to copy: Connection, pageSize: Int) throws -> (Int, Int) {
        let backup: Backup
        do {
            backup = try Backup(from: source, to: copy)
        } catch let error as SQLiteError {
            throw explainCopy(error)
        }
        var steps = 0, restarts = 0, copied = 0, attempt = 0
        let watch = Stopwatch()
        var lastReport = -1.0
        while true {
            if cancellation.isCancelled { throw interrupted() }
            let done: Bool
            do {
                done = try backup.step(pages: pagesPerStep)
            } catch let error as SQLiteError where error.isBusy {
                guard waits.pause(attempt: attempt) else {
                    if cancellation.isCancelled { throw interrupted() }
                    throw busy(error)
                }
                attempt += 1
                continue
            } catch let error as SQLiteError {
                throw explainStep(error)
            }
            attempt = 0
            steps += 1
            let now = backup.totalPages - backup.remainingPages
            // Progress that goes backwards is a restart: the source changed under a
            // backup that was not pinned (never expected here).
            if now < copied { restarts += 1 }
            copied = now
            let seconds = watch.seconds
            if done || seconds - lastReport >= 0.1 {
                lastReport = seconds
                progress(.copying(pages: copied, totalPages: backup.totalPages,
                                  bytesPerSecond: seconds > 0 ? Double(copied * pageSize) / seconds : 0))
            }
            if done { break }
        }
        do {
            try backup.finish()
        } catch let error as SQLiteError {
            throw explainStep(error)
        }
        return (steps, restarts)
    }

    /// The copy of a WAL database still says WAL in its header (bytes 18 and 19 are
    /// copied); the next access opens it as WAL, and `journal_mode = DELETE` then writes
    /// 1 and 1 and removes the `-wal` and `-shm` it made.
    private func switchToRollbackJournal(_ copy: Connection) throws {
        do {
            let mode = try copy.setJournalMode("delete")
            guard mode == "delete" else {
                throw StewardError(.internal, "the copy stayed in journal mode \(mode) instead of delete")
            }
        } catch let error as SQLiteError {
            throw explainCopy(error)
        }
    }

    // MARK: - Errors

    private func sourceStatement<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw explainSource(error)
        }
    }

    private func interrupted() -> StewardError {
        StewardError.interrupted(by: cancellation, "; no bundle was written")
    }

    private func busy(_ error: SQLiteError) -> StewardError {
        StewardError.gaveUp(on: databasePath, after: waits.timeout, error.shownMessage)
    }

    private func explainSource(_ error: SQLiteError) -> StewardError {
        SQLiteErrorMapping(path: databasePath, role: .sourceDatabase, cancellation: cancellation,
                           interruptedDetail: "; no bundle was written", lockTimeout: waits.timeout).error(for: error)
    }

    private func explainCopy(_ error: SQLiteError) -> StewardError {
        SQLiteErrorMapping(path: copyPath, role: .copy, cancellation: cancellation,
                           interruptedDetail: "; no bundle was written").error(for: error)
    }

    /// A failed step: a full or failing disk is the copy's, damage is the source's.
    private func explainStep(_ error: SQLiteError) -> StewardError {
        if error.isNotADatabase || error.isCorrupt { return explainSource(error) }
        return explainCopy(error)
    }
}

import Foundation
import SQLiteKit

/// The part of a backup that holds the source: a read transaction pins one point in time,
/// the online backup API copies it into the temporary file in chunks, and the source is
/// released at once (https://www.sqlite.org/backup.html; a long reader holds back WAL
/// checkpoints). Nothing else happens while it is held.
///
/// The source is read only through SQLite connections: a plain descriptor on it, once
/// closed, would drop every POSIX lock this process holds on the file.
struct SourceSnapshot {
    struct Result {
        let source: BundleManifest.Source
        let snapshot: BundleManifest.Snapshot
        /// When the snapshot was pinned, in seconds since 1970.
        let pinnedAt: Int64
    }

    let databasePath: String
    let copyPath: String
    let pagesPerStep: Int32
    let waits: LockWaits
    let cancellation: Cancellation
    let progress: @Sendable (BackupMaker.Event) -> Void

    /// Copies the source into `copyPath`. `whilePinned` runs once the facts of the snapshot
    /// are known and before the copy starts; it may refuse by throwing.
    func take(whilePinned: (BundleManifest.Source, Int64) throws -> Void) throws -> Result {
        let started = Stopwatch()
        let copy = try openCopy()
        let (facts, pinnedAt, heldSeconds, steps, restarts) = try copySource(into: copy, whilePinned: whilePinned)
        let duration = started.roundedSeconds
        progress(.copied(pages: facts.pageCount, seconds: duration, heldSeconds: heldSeconds))
        try switchToRollbackJournal(copy)
        return Result(
            source: facts,
            snapshot: .init(
                durationSeconds: duration, sourceHeldSeconds: heldSeconds,
                lockWaitSeconds: (waits.secondsWaited * 1000).rounded() / 1000,
                restarts: restarts, pagesPerStep: Int(pagesPerStep), steps: steps),
            pinnedAt: pinnedAt)
    }

    /// Everything that touches the source, so that its connection is closed on return.
    private func copySource(
        into copy: Connection, whilePinned: (BundleManifest.Source, Int64) throws -> Void
    ) throws -> (BundleManifest.Source, Int64, Double, Int, Int) {
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

        let (steps, restarts) = try copyPages(from: source, to: copy, pageSize: facts.pageSize)

        // Released before anything else happens: the rest works on the copy alone.
        try sourceStatement { try source.execute(sql: "COMMIT") }
        return (facts, pinnedAt, held.roundedSeconds, steps, restarts)
    }

    // MARK: - Steps

    private func openSource() throws -> Connection {
        let connection: Connection
        do {
            // Read-write when the file allows it, as the application opens it: SQLite may
            // then roll back a hot journal and, as the last connection of a WAL database,
            // checkpoint and remove the -wal it made. Only reads are issued.
            connection = try DatabaseFile.open(path: databasePath, .readWrite, followLinks: true)
        } catch let error as SQLiteError {
            throw explainSource(error)
        }
        let waits = self.waits
        connection.setBusyHandler { attempt in waits.pause(attempt: attempt) }
        return connection
    }

    private func openCopy() throws -> Connection {
        do {
            let copy = try DatabaseFile.open(path: copyPath, .readWrite, followLinks: true)
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
        StewardError.gaveUp(on: databasePath, after: waits.timeout, error.message)
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

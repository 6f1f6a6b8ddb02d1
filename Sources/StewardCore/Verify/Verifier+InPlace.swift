import Foundation
import FileNames
import SQLiteKit

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

extension Verifier {
    /// Runs fts-sync without copying a rollback-journal database: on the file read in
    /// place through a `FileOverlay` (SQLiteKit), whose connection keeps every page it
    /// writes in memory, so that FTS5's check, an INSERT, can write nothing to the file.
    /// A read transaction of `source` holds its shared lock from before the overlay is
    /// opened until the check is done and the overlay is closed: no SQLite writer can
    /// change the file under it (writers wait for the check, not only for a copy). Saves
    /// the copy's time (about 1.3 s per GiB) and its room in TMPDIR.
    ///
    /// A program that changes the file without SQLite's locks (cuts it short) while it is
    /// read is an I/O error that ends the run (74), never a signal: a private memory map
    /// of the file, used here before, died of SIGBUS reading a page that was gone.
    ///
    /// Returns false, having run and recorded nothing, for a WAL database (part of its data
    /// is in the -wal) or when the file cannot be opened or its overlay not opened: the
    /// caller then makes the private copy. A check that would write more than the overlay
    /// keeps in memory (SQLITE_FULL) runs again on a copy made in the same read transaction.
    func checkFTSSyncInPlace(
        of source: Connection, path: String, header: DatabaseHeader?, base: String, held: HeldDescriptors, results: CheckResults
    ) throws -> Bool {
        guard let header, !header.isWAL, !DatabaseFile.exists(path + "-wal") else { return false }
        try source.execute(sql: "BEGIN")
        defer { source.rollbackIfNeeded() }
        _ = try source.integer(sql: "SELECT count(*) FROM sqlite_schema")
        guard let opened = try openInPlace(of: source, path: path, held: held) else { return false }
        // Closed before the read transaction ends (defers run last first).
        var connection: Connection? = opened.connection
        defer { connection = nil }
        let overlay = opened.overlay
        let cancellation = self.cancellation
        connection?.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
        TestHooks.pause(at: .verifyFTSCheck)

        timed(.ftsSync, into: results) {
            guard let connection else { return Check(.ftsSync, passed: false, "cannot run: no connection to the file", []) }
            do {
                if TestHooks.verifyMappingIsFull { throw SQLiteError(extendedCode: .full) }
                return try ftsSync(on: connection, file: path, throwingFull: true)
            } catch let error as SQLiteError where error.code == .full {
                let made = try makeCopy(of: source, path: path, header: header, in: base, held: held)
                defer { made.workspace?.remove() }
                guard let copy = made.copy else {
                    return Check(.ftsSync, passed: false, made.failure?.summary ?? "cannot run: no copy", made.failure?.details ?? [])
                }
                copy.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
                return try ftsSync(on: copy, file: made.workspace?.file("copy.sqlite"))
            }
        }
        if let changed = Self.changeWhileRead(overlay, path: path) { results.failChanged(changed) }
        return true
    }

    /// A hardened connection to the file at `path` read in place, as `source` sees it, and
    /// its overlay; nil when the file cannot be opened or the connection not opened. Only
    /// inside a read transaction of `source`, which must last as long as the connection.
    func openInPlace(of source: Connection, path: String, held: HeldDescriptors) throws -> (connection: Connection, overlay: FileOverlay)? {
        // The pages the source sees.
        let length = try source.integer(sql: "PRAGMA page_count") * source.integer(sql: "PRAGMA page_size")
        let descriptor = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        // Closed only once every connection to the file is: closing a descriptor drops
        // the process's POSIX locks on the file, the source's shared lock among them.
        held.hold(descriptor)
        var info = stat()
        guard length > 0, fstat(descriptor, &info) == 0, Int64(info.st_size) >= length else { return nil }
        let overlay = FileOverlay(descriptor: descriptor, size: length)
        do {
            // Used by this thread only, from here until it is closed.
            let connection = try Connection.overlaying(overlay, oneThread: true)
            // As the copy: hardened as any file from elsewhere, its triggers trusted as in
            // the application, and harden's mmap_size 0 kept (design notes, "Performance").
            try connection.harden(loadingExtensions: options.extensions, trustingSchema: true)
            _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
            return (connection, overlay)
        } catch {
            return nil
        }
    }

    /// The error that ends the run when the file read in place was changed under the
    /// read (a read came back short of its pages or failed, or the file is now shorter
    /// than its pages); nil when it was read as it was.
    static func changeWhileRead(_ overlay: FileOverlay, path: String) -> StewardError? {
        var info = stat()
        let now: Int64? = fstat(overlay.descriptor, &info) == 0 ? Int64(info.st_size) : nil
        switch overlay.readProblem {
        case .failed(let code):
            return StewardError(.inputOutput, "cannot read \(path) while FTS5's check read it: \(SystemCall.message(code)); no result of this run can be trusted")
        case .cutShort, nil:
            guard overlay.readProblem != nil || (now ?? overlay.size) < overlay.size else { return nil }
            let size = now.map { "it is now \(Counted.phrase($0, "byte")), \(overlay.size) when verify began" } ?? "it is shorter than its \(overlay.size) bytes"
            return StewardError(.inputOutput, "the database file \(path) changed while verify read it: \(size) (a program cut it short "
                                + "without SQLite's locks); no result of this run can be trusted")
        }
    }
}

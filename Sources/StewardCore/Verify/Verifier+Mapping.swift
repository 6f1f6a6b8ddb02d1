import Foundation
import FileNames
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

extension Verifier {
    /// Runs fts-sync without copying a rollback-journal database: on a private
    /// copy-on-write mapping of its file (`PrivateFileMapping`), handed to a connection of
    /// its own with `sqlite3_deserialize`, so that FTS5's check, an INSERT, can write
    /// nothing to the file. A read transaction of `source` holds its shared lock from
    /// before the file is mapped until the check is done and the mapping is gone: no
    /// writer can change the file under it (writers wait for the check, not only for a
    /// copy). Saves the copy's time (about 1.3 s per GiB) and its room in TMPDIR.
    ///
    /// Returns false, having run and recorded nothing, for a WAL database (part of its data
    /// is in the -wal) or when the file cannot be mapped or the mapping not opened: the
    /// caller then makes the private copy. A check that would grow the database (SQLITE_FULL
    /// on the fixed-size mapping) runs again on a copy made in the same read transaction.
    func checkFTSSyncOnMapping(
        of source: Connection, path: String, header: DatabaseHeader?, base: String, held: HeldDescriptors, results: CheckResults
    ) throws -> Bool {
        guard let header, !header.isWAL, !DatabaseFile.exists(path + "-wal") else { return false }
        try source.execute(sql: "BEGIN")
        defer { source.rollbackIfNeeded() }
        _ = try source.integer(sql: "SELECT count(*) FROM sqlite_schema")
        var mapped = try openMapping(of: source, path: path, held: held)
        guard mapped != nil else { return false }
        // Closed, and so unmapped, before the read transaction ends (defers run last first).
        defer { mapped = nil }
        let cancellation = self.cancellation
        mapped?.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }

        timed(.ftsSync, into: results) {
            guard let connection = mapped else { return (false, "cannot run: no mapping", []) }
            do {
                if TestHooks.verifyMappingIsFull { throw SQLiteError(extendedCode: .full) }
                return try ftsSync(on: connection, throwingFull: true)
            } catch let error as SQLiteError where error.code == .full {
                let made = try makeCopy(of: source, path: path, header: header, in: base, held: held)
                defer { made.workspace?.remove() }
                guard let copy = made.copy else {
                    return (false, made.failure?.summary ?? "cannot run: no copy", made.failure?.details ?? [])
                }
                copy.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
                return try ftsSync(on: copy)
            }
        }
        return true
    }

    /// A hardened connection to a private mapping of the file at `path`, as `source` sees
    /// it; nil when the file cannot be opened or mapped, or the mapping not opened. Only
    /// inside a read transaction of `source`, which must last as long as the connection.
    func openMapping(of source: Connection, path: String, held: HeldDescriptors) throws -> Connection? {
        // The pages the source sees; a file shorter than that is not mapped (PrivateFileMapping).
        let length = try source.integer(sql: "PRAGMA page_count") * source.integer(sql: "PRAGMA page_size")
        let descriptor = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        held.hold(descriptor)
        guard let mapping = PrivateFileMapping(descriptor: descriptor, length: length) else { return nil }
        do {
            // Used by this thread only, from here until it is closed.
            let connection = try Connection.deserializing(mapping, oneThread: true)
            // As the copy: hardened as any file from elsewhere, its triggers trusted as in
            // the application, and harden's mmap_size 0 kept (design notes, "Performance").
            try connection.harden(loadingExtensions: options.extensions, trustingSchema: true)
            _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
            return connection
        } catch {
            return nil
        }
    }
}

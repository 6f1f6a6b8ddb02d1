import SQLiteKit
import StewardBase

extension FTS5CheckMethod {
    /// The method for a database file that nothing changes while it is checked (Steward's
    /// own copy or staged file, or a file a read transaction holds): each worker opens the
    /// file read-only, hardened as every connection to a file from elsewhere, with the
    /// run's extensions (their tokenizers), stopping when the run is cancelled.
    /// `workers` nil: the number of cores.
    static func file(
        _ path: String, kind: FTS5CheckKind, workers: Int?, extensions: [String], cancellation: Cancellation?
    ) -> FTS5CheckMethod {
        guard kind == .parallel else { return .sqlite }
        return .parallel(workers: workers ?? cores) {
            // No lock: the file is Steward's own, or held by a read transaction of the run,
            // and a lock of a worker must not stand in the way of a check's own (restore's
            // read-write probe). A WAL file (verify's copy of a WAL database) is read
            // through its -shm, as the caller's connection reads it: with locks.
            let isWAL = (try? DatabaseFile(path: path).header().isWAL) ?? false
            let connection = try DatabaseFile.open(path: path, .readOnly, parameters: isWAL ? "" : "&nolock=1", followLinks: true, oneThread: true)
            try connection.harden(loadingExtensions: extensions, trustingSchema: true)
            if let cancellation {
                connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
            }
            return connection
        }
    }

    /// The method for a connection whose changes no other connection sees (a migration's
    /// transaction): the digest on that connection alone.
    static func transaction(kind: FTS5CheckKind) -> FTS5CheckMethod {
        kind == .parallel ? .parallel(workers: 1, open: nil) : .sqlite
    }
}

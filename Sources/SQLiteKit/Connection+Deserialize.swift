import CSQLite

/// Memory holding a whole database image (its pages one after another) that a
/// deserialized connection reads, and writes, in place. The connection keeps it alive
/// until it is closed.
public protocol DatabaseImage: AnyObject {
    /// The image, writable: SQLite writes the pages a statement changes into it.
    var bytes: UnsafeMutableRawBufferPointer { get }
}

extension Connection {
    /// A connection whose `main` database is `image` itself
    /// (https://www.sqlite.org/c3ref/deserialize.html), through SQLite's `memdb` VFS.
    ///
    /// From SQLite 3.40's `memdb.c`:
    /// - flags 0 (neither `FREEONCLOSE` nor `RESIZEABLE`): SQLite never frees or
    ///   reallocates the image; a change that would grow the database past
    ///   `image.bytes.count` fails with `SQLITE_FULL` (`memdbEnlarge`).
    /// - the size is a 64-bit count of bytes: `SQLITE_MEMDB_DEFAULT_MAXSIZE` (1 GiB) is
    ///   only the most a *resizeable* image may grow to (`szMax = max(szBuf, limit)`), so
    ///   a larger image is read whole.
    /// - locks are counts in memdb's own store, never a file's; the pager opens a memdb
    ///   file with `SQLITE_OPEN_MEMORY`, so the rollback journal is in memory too.
    ///
    /// The connection is not hardened: the caller hardens it as any file from elsewhere.
    /// `oneThread`: no thread but the caller's uses the connection at a time (`.noMutex`):
    /// FTS5's check, for one, enters the connection's mutex for every page it reads
    /// through a blob handle (about 1.2% of its instructions, measured with callgrind).
    /// - Throws: `SQLiteError` when SQLite cannot open the in-memory connection or attach
    ///   the image (`.error`).
    public static func deserializing(_ image: some DatabaseImage, oneThread: Bool = false) throws -> Connection {
        let connection = try Connection(path: ":memory:", mode: oneThread ? [.readWrite, .create, .noMutex] : [.readWrite, .create])
        let bytes = image.bytes
        guard let base = bytes.baseAddress else {
            throw SQLiteError(extendedCode: .misuse, message: "an empty database image")
        }
        let size = Int64(bytes.count)
        let rc = sqlite3_deserialize(connection.sqliteConnection, "main", base.assumingMemoryBound(to: UInt8.self), size, size, 0)
        guard rc == SQLITE_OK else { throw SQLiteError.current(on: connection.sqliteConnection, code: rc) }
        connection.image = image
        return connection
    }
}

import CSQLite
import Foundation
import Synchronization

/// Sees the statements that connections of this process run on database files below a
/// directory: for tests that hold an operation to reading a file once per check
/// (`PRAGMA integrity_check` run once, not twice), without a counter in the operation's
/// code. Every connection opened after the first watch starts is traced
/// (`sqlite3_auto_extension`, then `sqlite3_trace_v2` with `SQLITE_TRACE_STMT`); a
/// statement is recorded by each watch whose directory holds the connection's main file,
/// so watches of tests running side by side see only their own files.
///
/// A test-support type: nothing in Steward's modules starts a watch, and without one no
/// connection is traced.
public final class StatementWatch: Sendable {
    private let directory: String
    private let seen = Mutex<[String]>([])

    /// Starts recording the statements run on files below `directory` (a path as the
    /// connections are given it; resolve links first if they may differ).
    public init(directory: String) {
        self.directory = directory.hasSuffix("/") ? directory : directory + "/"
        Self.installOnce()
        Self.watches.withLock { $0.append(Weak(self)) }
    }

    /// The statements' text as prepared (bound values are not expanded), in the order
    /// they started.
    public var statements: [String] { seen.withLock { $0 } }

    /// How many of the statements start with `prefix`, ignoring case.
    public func count(startingWith prefix: String) -> Int {
        statements.filter { $0.lowercased().hasPrefix(prefix.lowercased()) }.count
    }

    private struct Weak: Sendable {
        weak var watch: StatementWatch?
        init(_ watch: StatementWatch) { self.watch = watch }
    }

    private static let watches = Mutex<[Weak]>([])
    private static let installed = Mutex(false)

    private static func installOnce() {
        installed.withLock { done in
            guard !done else { return }
            done = true
            let entry: @convention(c) (OpaquePointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, OpaquePointer?) -> Int32 = { db, _, _ in
                // The callback's arguments: the event, the context (none), the statement,
                // and its unexpanded text.
                sqlite3_trace_v2(db, UInt32(SQLITE_TRACE_STMT), { _, _, statement, _ in
                    guard let statement, let sql = sqlite3_sql(OpaquePointer(statement)) else { return 0 }
                    let connection = sqlite3_db_handle(OpaquePointer(statement))
                    let file = sqlite3_db_filename(connection, "main").map { String(cString: $0) } ?? ""
                    StatementWatch.record(String(cString: sql), file: file)
                    return 0
                }, nil)
                return SQLITE_OK
            }
            sqlite3_auto_extension(unsafeBitCast(entry, to: (@convention(c) () -> Void).self))
        }
    }

    private static func record(_ sql: String, file: String) {
        let watching = watches.withLock { list in
            list.removeAll { $0.watch == nil }
            return list.compactMap(\.watch)
        }
        for watch in watching where file.hasPrefix(watch.directory) {
            watch.seen.withLock { $0.append(sql) }
        }
    }
}

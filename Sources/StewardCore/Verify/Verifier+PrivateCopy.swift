import Foundation
import FileNames
import SQLiteKit

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

extension Verifier {
    static let workspacePrefix = TemporaryWorkspace.verifyCopyPrefix

    /// The private copy, in a new workspace under `base`; or, when it cannot be made, why
    /// (for the checks that need it: the rest of the run goes on) and the space it needs.
    /// Busy and interrupted copies throw.
    func makeCopy(of source: Connection, path: String, header: DatabaseHeader?, in base: String, held: HeldDescriptors)
        throws -> (workspace: TemporaryWorkspace?, copy: Connection?, failure: (summary: String, details: [String])?)
    {
        let needed = (try? source.integer(sql: "PRAGMA page_count")).flatMap { count in
            (try? source.integer(sql: "PRAGMA page_size")).map { count * $0 }
        }
        let room = needed.map { "the copy needs \(Self.describe(bytes: $0)) in \(base)" } ?? "the copy needs as much room in \(base) as the database takes"
        let hint = "set TMPDIR to a writable directory with room for a copy of the database"
        if let needed, let available = FreeSpace.available(at: base) {
            if available < needed {
                return (nil, nil, ("cannot run: no room for the private copy in \(base): \(room), \(Self.describe(bytes: available)) free",
                                   [hint]))
            }
        }
        let workspace: TemporaryWorkspace
        do {
            workspace = try TemporaryWorkspace(in: base, prefix: Self.workspacePrefix)
        } catch let error as StewardError {
            return (nil, nil, ("cannot run: no private directory for the copy: \(error.message)", [room, hint]))
        }
        do {
            let copied = try copyFile(of: source, path: path, header: header, to: workspace.file("copy.sqlite"), held: held)
            // Used by one thread at a time (no mutex: FTS5's check enters it for every page).
            let target = try Connection(path: workspace.file("copy.sqlite"), mode: [.readWrite, .create, .noMutex])
            // Assertions run on the copy: defensive mode and cell checks as for any file from
            // elsewhere, but its triggers must work as in the application (they write to FTS5
            // tables). It keeps its rollback journal (the assertions' transaction is rolled
            // back), but is private and thrown away: no syncs. Not memory-mapped (harden's
            // mmap_size 0 stays): a mapped page is not kept in the page cache, so every
            // fetch checks its cells again, and FTS5's check took 15-17 s of CPU instead of
            // 10-12 s on the 1 GiB bench database (design notes, "Performance").
            try target.harden(loadingExtensions: options.extensions, trustingSchema: true)
            try target.execute(sql: "PRAGMA synchronous = OFF")
            if !copied { try source.backup(to: target) }
            return (workspace, target, nil)
        } catch let error as SQLiteError where !error.isBusy {
            // Its space comes back at once, not when the run ends.
            workspace.remove()
            return (nil, nil, ("cannot run: cannot make the private copy in \(base): \(error.messageAndCode)",
                               [room, hint]))
        } catch {
            workspace.remove()
            throw error
        }
    }

    /// Copies a rollback-journal database file as it is, in the kernel, inside a read
    /// transaction of `source`: its shared lock keeps every writer from changing the file
    /// until the copy is done (design notes, "Performance": the online backup API took three times as long,
    /// on the way to FTS5's check). Returns false, having copied nothing, for a WAL
    /// database (part of its data is in the -wal) or when the file cannot be copied so;
    /// the caller then uses the backup API.
    private func copyFile(of source: Connection, path: String, header: DatabaseHeader?, to target: String, held: HeldDescriptors) throws -> Bool {
        guard let header, !header.isWAL, !DatabaseFile.exists(path + "-wal") else { return false }
        // The mapping's fallback copies inside the read transaction it already holds.
        let ownTransaction = source.isAutocommit
        if ownTransaction {
            try source.execute(sql: "BEGIN")
            _ = try source.integer(sql: "SELECT count(*) FROM sqlite_schema")
        }
        defer { if ownTransaction { source.rollbackIfNeeded() } }
        let input = open(FileName.cString(path), O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { return false }
        held.hold(input)
        let output = open(FileName.cString(target), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard output >= 0 else { return false }
        // Not interrupted, as the backup API is not: the checks on the copy see a signal.
        let code = FileCopy.copy(from: input, to: output, isCancelled: { false })
        // Never synced: the copy is private and removed at the end of the run.
        let closed = close(output) == 0
        guard code == 0, closed else {
            unlink(FileName.cString(target))
            return false
        }
        return true
    }

    /// `5242880 bytes (5.0 MiB)`.
    static func describe(bytes: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = -1
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit < 0 ? "\(bytes) bytes" : "\(bytes) bytes (\(String(format: "%.1f", value)) \(units[unit]))"
    }
}

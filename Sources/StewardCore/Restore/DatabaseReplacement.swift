import Foundation
import FileNames
import SQLiteKit

import StewardBase
import BundleFormat
#if canImport(Glibc)
import Glibc
#endif

/// `restore --replace PATH`: puts a restored (and fully checked) database file in the place
/// of the database at PATH, for a rollback in place.
///
/// The steps, each of which a crash may interrupt without leaving PATH anything but the
/// old or the new database, whole:
/// 0. before anything is changed, the new file gets the owner, group and mode of the
///    file at PATH (`Ownership`), so that the application that owns the database can
///    still open it after the rollback; when it cannot (not root, and PATH is another
///    user's or of a group this user is not in), the run refuses here, 73;
/// 1. `locked`: a connection to PATH takes SQLite's locks as SQLite does, waiting at most
///    the timeout. Taking them rolls a hot `-journal` back into the old database first.
///    A database in WAL mode is checkpointed (TRUNCATE) and switched to rollback-journal
///    mode, which SQLite allows only when no other connection has it open, and which
///    removes its `-wal`; then `BEGIN EXCLUSIVE` holds the exclusive lock until the end.
/// 2. `resolved`: no `-wal` and no `-journal` is left beside PATH (a stale `-shm`, only an
///    index of a WAL that is gone, is removed), so none is replayed or rolled back into
///    the new file;
/// 3. `linked`: the old database is hard-linked to its kept name (not with
///    `--discard-replaced`), and that directory synced;
/// 4. `renamed`: the new file is renamed over PATH, one rename(2);
/// 5. `synced`: PATH's directory is synced; the lock is released by closing.
///
/// The limit: an idle connection in rollback-journal mode holds no lock, so it cannot be
/// seen; it would go on using the replaced file.
struct DatabaseReplacement {
    /// The steps, in order, as `STEWARD_TEST_HOOK_REPLACE_KILL_AT` names them.
    static let steps = ["locked", "resolved", "linked", "renamed", "synced"]
    static let workspaceMarker = ".steward-replace-"

    let path: String
    let keptPath: String?
    let timeout: Double
    let cancellation: Cancellation
    /// `--load-extension`: loaded into the connection to PATH too, as into every
    /// connection a command opens on the user's data.
    var extensions: [String] = []

    /// Where the replaced database is kept: `<PATH>.replaced-<UTC time>` beside it, or the
    /// same name in `keepDirectory`; nil with `discard`.
    static func keptPath(for path: String, keepDirectory: String?, discard: Bool, at seconds: Int64) -> String? {
        guard !discard else { return nil }
        let name = "\(Paths.fileName(of: path)).replaced-\(BackupNaming.compactTimestamp(seconds))"
        return Paths.join(keepDirectory ?? Paths.directoryOrCurrent(of: path), name)
    }

    /// Everything that can be checked before the restore starts: PATH is a regular file
    /// (not a link), the kept name is free and on PATH's file system (a hard link cannot
    /// cross file systems).
    static func checkTarget(_ path: String, keptPath: String?) throws {
        var info = stat()
        guard lstat(FileName.cString(path), &info) == 0 else {
            let code = errno
            throw StewardError(.notFound, "cannot replace \(path): \(SystemCall.message(code))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw StewardError(.cannotCreate, "cannot replace \(path): it is not a regular file (a symbolic link is not followed)")
        }
        guard let keptPath else { return }
        var kept = stat()
        if lstat(FileName.cString(keptPath), &kept) == 0 {
            throw StewardError(.cannotCreate, "cannot keep the replaced database as \(keptPath): it exists")
        }
        var directory = stat()
        let keptDirectory = Paths.directoryOrCurrent(of: keptPath)
        guard stat(FileName.cString(keptDirectory), &directory) == 0, (directory.st_mode & S_IFMT) == S_IFDIR else {
            throw StewardError(.cannotCreate, "cannot keep the replaced database in \(keptDirectory): not a directory")
        }
        guard directory.st_dev == info.st_dev else {
            throw StewardError(.cannotCreate, "cannot keep the replaced database in \(keptDirectory): it is on another file system than \(path) (the replaced database is hard-linked, never copied)")
        }
    }

    /// The owner, group and permission bits the new file takes from the one it replaces.
    struct Ownership: Equatable {
        let owner: uid_t
        let group: gid_t
        let mode: mode_t

        init(_ info: stat) {
            owner = info.st_uid
            group = info.st_gid
            mode = info.st_mode & 0o7777
        }

        /// Of the file at `path` (not following a link).
        static func of(_ path: String) throws -> Ownership {
            var info = stat()
            guard lstat(FileName.cString(path), &info) == 0 else {
                let code = errno
                throw StewardError(.notFound, "cannot replace \(path): \(SystemCall.message(code))")
            }
            return Ownership(info)
        }

        /// Why this user cannot give a file of its own this owner and group, nil when it
        /// can: only root gives a file to another user; any owner may give it a group
        /// the user is in. (A capability such as CAP_CHOWN without root is found out by
        /// `give(to:)`, before anything changes.)
        var refusal: String? {
            guard geteuid() != 0 else { return nil }
            if owner != geteuid() { return "it belongs to user \(owner), and only root can give the restored file to another user" }
            if group != getegid() && !Self.supplementaryGroups().contains(group) {
                return "its group is \(group), which this user is not in"
            }
            return nil
        }

        private static func supplementaryGroups() -> [gid_t] {
            let count = getgroups(0, nil)
            guard count > 0 else { return [] }
            var groups = [gid_t](repeating: 0, count: Int(count))
            let got = getgroups(count, &groups)
            return got < 0 ? [] : Array(groups.prefix(Int(got)))
        }

        /// Gives the file at `path` (Steward's own, in its workspace) this owner, group
        /// and mode: chown first, since it clears the set-user-ID and set-group-ID bits.
        func give(to path: String, replacing target: String) throws {
            guard chown(FileName.cString(path), owner, group) == 0, chmod(FileName.cString(path), mode) == 0 else {
                let code = errno
                throw StewardError(.cannotCreate, "cannot give the restored database the owner (\(owner)), group (\(group)) and mode "
                                   + "(\(String(mode, radix: 8))) of \(target): \(SystemCall.message(code)); nothing was replaced")
            }
        }
    }

    /// Refuses, before the restore starts, a PATH whose owner or group this user cannot
    /// give the restored file (73): the application would lose access to its database.
    static func checkOwnership(of path: String) throws {
        let ownership = try Ownership.of(path)
        if let refusal = ownership.refusal {
            throw StewardError(.cannotCreate, "cannot replace \(path) keeping its owner and group: \(refusal); nothing was replaced")
        }
    }

    /// What was done, for the report.
    struct Outcome {
        var journalModeBefore: String
        var resolved: [String]
        var lockWaitSeconds: Double
    }

    /// Replaces PATH with `newDatabase` (on the same file system, synced).
    func run(newDatabase: String) throws -> Outcome {
        // 0. Before anything changes: what the application's file is, the new one is.
        var ownership = try Ownership.of(path)
        if let refusal = ownership.refusal {
            throw StewardError(.cannotCreate, "cannot replace \(path) keeping its owner and group: \(refusal); nothing was replaced")
        }
        try ownership.give(to: newDatabase, replacing: path)
        let waits = LockWaits(timeout: timeout, cancellation: cancellation, database: path)
        var mapping = SQLiteErrorMapping(
            path: path, role: .replacedDatabase(timeout: timeout), cancellation: cancellation,
            interruptedDetail: "; nothing was replaced", context: "cannot open \(path) to replace it")
        let connection = try mapping.run {
            let connection = try DatabaseFile.open(path: path, .readWrite)
            try connection.harden(loadingExtensions: extensions)
            return connection
        }
        mapping.context = "cannot lock \(path) to replace it"
        waits.attach(to: connection)
        let before: String
        var resolved: [String] = []
        do {
            // Reading the mode takes a shared lock: a hot journal is rolled back here.
            before = try retrying(waits) { try connection.journalMode() }
            if before == "wal" {
                try retrying(waits) { try connection.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
                let mode = try retrying(waits) { () throws -> String in
                    let mode = try connection.setJournalMode("delete")
                    // SQLite answers "wal" (no error) while another connection has it open.
                    if mode == "wal" { throw StillInUse() }
                    return mode
                }
                guard mode == "delete" else {
                    throw StewardError(.busy, "cannot take \(path) out of WAL mode: journal mode stayed \(mode)")
                }
                resolved.append("-wal (checkpointed into the replaced database, then removed)")
            } else if before != "delete" {
                // From `persist` or `truncate`, SQLite deletes the journal file it kept.
                _ = try retrying(waits) { try connection.setJournalMode("delete") }
            }
            try retrying(waits) { try connection.execute(sql: "BEGIN EXCLUSIVE") }
        } catch is StillInUse {
            throw StewardError(.busy, "\(path) is in use by another connection (WAL mode): still open after \(Int(timeout)) s; nothing was replaced")
        } catch let error as SQLiteError {
            throw mapping.error(for: error)
        }
        defer { connection.rollbackIfNeeded() }
        // Changed while the lock was awaited: given again. Should that be refused, PATH
        // is still the old database (a WAL one now checkpointed and in rollback-journal
        // mode, which its application's next open sets back).
        let locked = try Ownership.of(path)
        if locked != ownership {
            ownership = locked
            try ownership.give(to: newDatabase, replacing: path)
        }
        TestHooks.replaceStep("locked")

        // 2. Nothing beside PATH may be replayed or rolled back into the new file.
        if Paths.exists(path + "-wal") {
            guard try isEmptyFile(path + "-wal") else {
                throw StewardError(.badInput, "cannot replace \(path): its -wal is still there under the exclusive lock; nothing was replaced")
            }
            unlink(FileName.cString(path + "-wal"))
            resolved.append("-wal (empty, removed)")
        }
        if Paths.exists(path + "-journal") {
            // Taking the lock rolled a hot journal back; what is left is not hot (an
            // application in `persist` or `truncate` mode keeps its journal file).
            unlink(FileName.cString(path + "-journal"))
            resolved.append("-journal (not hot, kept by a persist or truncate mode; removed)")
        }
        if Paths.exists(path + "-shm") {
            unlink(FileName.cString(path + "-shm"))
            resolved.append("-shm (the index of a WAL that is gone, removed)")
        }
        try DirectoryTree.sync(Paths.directoryOrCurrent(of: path))
        TestHooks.replaceStep("resolved")

        // 3. The old database keeps a name before PATH stops being it.
        if let keptPath {
            guard link(FileName.cString(path), FileName.cString(keptPath)) == 0 else {
                let code = errno
                throw StewardError(SystemCall.outputKind(code), "cannot keep the replaced database as \(keptPath): \(SystemCall.message(code)); nothing was replaced")
            }
            try DirectoryTree.sync(Paths.directoryOrCurrent(of: keptPath))
        }
        TestHooks.replaceStep("linked")
        if cancellation.isCancelled {
            if let keptPath { unlink(FileName.cString(keptPath)) }
            throw StewardError.interrupted(by: cancellation, "; nothing was replaced")
        }

        // 4. One rename, while the lock is still held.
        guard rename(FileName.cString(newDatabase), FileName.cString(path)) == 0 else {
            let code = errno
            if let keptPath { unlink(FileName.cString(keptPath)) }
            throw StewardError(SystemCall.outputKind(code), "cannot rename the restored database to \(path): \(SystemCall.message(code)); nothing was replaced")
        }
        TestHooks.replaceStep("renamed")
        try DirectoryTree.sync(Paths.directoryOrCurrent(of: path))
        TestHooks.replaceStep("synced")
        return Outcome(journalModeBefore: before, resolved: resolved, lockWaitSeconds: (waits.secondsWaited * 1000).rounded() / 1000)
    }

    /// SQLite leaves a database in WAL mode, without an error, while another connection
    /// has it open.
    private struct StillInUse: Error {}

    private func isEmptyFile(_ path: String) throws -> Bool {
        var info = stat()
        guard stat(FileName.cString(path), &info) == 0 else { return true }
        return info.st_size == 0
    }

    /// Runs `body` again while SQLite answers busy and the allowance lasts.
    private func retrying<T>(_ waits: LockWaits, _ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.isBusy {
                guard waits.pause(attempt: attempt) else { throw error }
                attempt += 1
            } catch let error as StillInUse {
                guard waits.pause(attempt: attempt) else { throw error }
                attempt += 1
            }
        }
    }
}

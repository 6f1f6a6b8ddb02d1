import Foundation
import FileNames

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// The directory a backup writes into: the temporaries of this run, those that killed
/// runs left behind, and publishing a finished file under its final name without ever
/// replacing one (docs/design-notes.md, "Temporary workspaces").
///
/// This run's temporaries live in one hidden workspace directory,
/// `.steward-tmp-<pid>-XXXXXX` (see `TemporaryWorkspace`): never a `*.tar.zst`, on the
/// same file system as the bundle's final name, and locked for as long as the run lives.
///
/// For an encrypted bundle the plaintext temporaries (the snapshot's copy, the payload's
/// compressed frame) stay out of the output directory, which is often shared or synced:
/// they go into a workspace of their own, `.steward-backup-<pid>-XXXXXX` (0700), beside
/// the source database, on its file system, where the data already is in the clear and
/// the kernel copies it fastest; under TMPDIR only when the source's directory cannot
/// take one (`keepPlaintext(besides:)`). Only the encrypted partial bundle is written in
/// the output directory, renamed to its name at the end.
final class OutputDirectory {
    static let temporaryPrefix = TemporaryWorkspace.backupTemporaryPrefix
    static let plaintextPrefix = TemporaryWorkspace.backupPlaintextPrefix

    /// The directory as the user gave it.
    let path: String
    private var workspace: TemporaryWorkspace?
    /// Where the plaintext workspace may go, in order; empty: in the output directory's.
    private var plaintextBases: [String] = []
    private var plaintextWorkspace: TemporaryWorkspace?

    init(path: String) throws {
        let info = try Paths.status(
            of: path, missing: { StewardError(.cannotCreate, "the output directory \(path) does not exist") },
            failed: { StewardError(.cannotCreate, "cannot use the output directory \(path): \($0)") })
        guard (info.st_mode & S_IFMT) == S_IFDIR else {
            throw StewardError(.cannotCreate, "the output directory \(path) is not a directory")
        }
        self.path = path
    }

    deinit {
        plaintextWorkspace?.remove()
        workspace?.remove()
    }

    /// Keeps this run's plaintext temporaries out of the output directory: in a workspace
    /// beside the database at `source` (the file a link names), else under TMPDIR.
    func keepPlaintext(besides source: String) {
        var bases = [Paths.directoryOrCurrent(of: Self.resolved(source))]
        let temporary = FileManager.default.temporaryDirectory.path
        if temporary != bases[0] { bases.append(temporary) }
        plaintextBases = bases
    }

    /// Whether plaintext temporaries go elsewhere than the output directory.
    var keepsPlaintextApart: Bool { !plaintextBases.isEmpty }

    private static func resolved(_ path: String) -> String {
        guard let real = realpath(FileName.cString(path), nil) else { return path }
        defer { free(real) }
        return FileName.decode(UnsafeRawBufferPointer(start: real, count: strlen(real)))
    }

    func file(_ name: String) -> String {
        Paths.join(path, name)
    }

    /// This run's workspace, made on first use.
    private func temporaryDirectory() throws -> TemporaryWorkspace {
        if let workspace { return workspace }
        let made = try TemporaryWorkspace(in: path, prefix: Self.temporaryPrefix)
        workspace = made
        return made
    }

    /// The workspace for plaintext: the first of `plaintextBases` that takes one.
    private func plaintextDirectory() throws -> TemporaryWorkspace {
        if let plaintextWorkspace { return plaintextWorkspace }
        guard !plaintextBases.isEmpty else { return try temporaryDirectory() }
        var failures: [String] = []
        for base in plaintextBases {
            do {
                let made = try TemporaryWorkspace(in: base, prefix: Self.plaintextPrefix)
                plaintextWorkspace = made
                return made
            } catch let error as StewardError {
                failures.append(error.message)
            }
        }
        throw StewardError(.cannotCreate, "cannot create a private directory for the plaintext temporaries of an encrypted bundle: "
                           + failures.joined(separator: "; "))
    }

    /// Creates a new temporary file (never an existing one) and returns its descriptor.
    /// Files something else creates beside it (SQLite's journal) go with the workspace.
    /// `plaintext`: the file holds the database's data in the clear (the copy, the
    /// payload's frame), and goes into the plaintext workspace when there is one.
    func createTemporary(suffix: String, permissions: mode_t, plaintext: Bool = false) throws -> (path: String, descriptor: Int32) {
        let workspace = plaintext ? try plaintextDirectory() : try temporaryDirectory()
        let path = workspace.file("backup" + suffix)
        let descriptor = open(FileName.cString(path), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, permissions)
        guard descriptor >= 0 else {
            let code = errno
            let directory = Paths.directoryOrCurrent(of: workspace.path)
            throw StewardError(SystemCall.outputKind(code), "cannot create files in \(directory): \(SystemCall.message(code))")
        }
        return (path, descriptor)
    }

    /// Removes this run's workspaces and every temporary still in them.
    func removeTemporaries() {
        plaintextWorkspace?.remove()
        plaintextWorkspace = nil
        workspace?.remove()
        workspace = nil
    }

    // MARK: - Stale temporaries

    /// Removes the workspaces of runs that were killed (`kill -9`, a crash, a power cut)
    /// and their files: those of this user whose lock nobody holds. A run that is still
    /// going holds its lock and keeps them. Returns the names removed.
    func removeStaleTemporaries() -> [String] {
        TemporaryWorkspace.removeStale(in: path, prefix: Self.temporaryPrefix)
    }

    /// Removes the plaintext workspaces that killed runs left where this run may put its
    /// own (beside the source, under TMPDIR, with Steward's other workspaces there).
    func removeStalePlaintext() -> [String] {
        var removed: [String] = []
        for base in plaintextBases {
            if base == FileManager.default.temporaryDirectory.path {
                removed += TemporaryWorkspace.removeStaleInTemporaryDirectory()
            } else {
                removed += TemporaryWorkspace.removeStale(in: base, prefix: Self.plaintextPrefix)
            }
        }
        return removed
    }

    // MARK: - Publishing

    /// Gives `temporary` the name `name` in this directory, failing with 73 when a file of
    /// that name exists: it is never replaced. The directory itself is not synced here.
    /// `useRename: false` takes the hard-link path that serves where the kernel or the file
    /// system cannot renameat2 (ENOSYS, EINVAL).
    func publish(_ temporary: String, as name: String, useRename: Bool = true) throws {
        let target = file(name)
        if useRename {
            if LinuxCalls.renameNoReplace(temporary, to: target) == 0 { return }
            let code = errno
            // EINVAL: this file system cannot rename without replacing; try a hard link.
            guard code == EINVAL || code == ENOSYS else { throw publishFailure(code, target: target) }
        }
        // link() fails with EEXIST instead of replacing; the temporary name goes afterwards.
        guard link(FileName.cString(temporary), FileName.cString(target)) == 0 else { throw publishFailure(errno, target: target) }
        unlink(FileName.cString(temporary))
    }

    /// Makes the directory's entries (the new name) durable.
    func sync() throws {
        try DirectoryTree.sync(path)
    }

    private func publishFailure(_ code: Int32, target: String) -> StewardError {
        if code == EEXIST {
            return StewardError(.cannotCreate, "\(target) already exists; a backup never replaces a file")
        }
        return StewardError(SystemCall.outputKind(code), "cannot publish \(target): \(SystemCall.message(code))")
    }
}

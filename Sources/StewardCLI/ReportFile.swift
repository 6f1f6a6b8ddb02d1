import Foundation
import FileNames

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// A file a report is written to besides standard output (`verify --report`). It must
/// never be one of the run's inputs: a report written over the database is data lost
/// with exit 0. And it is written whole: under a temporary name beside it, synced, then
/// renamed over the old report, never truncated in place.
public enum ReportFile {
    /// One input of the run, named for messages (`the database t.db`).
    public struct Input: Sendable {
        public enum Kind: Sendable {
            case file
            /// A SQLite database: its `-wal`, `-shm` and `-journal` are inputs too, by name
            /// (they come and go) as well as by identity.
            case database
            /// A directory whose files are inputs (a migration set): a report may not be
            /// one of them nor a new file in it.
            case directory
            /// A key file (an age identity): an input like any file, but its SHA-256 is
            /// not recorded in a handover summary.
            case key
        }

        public let label: String
        public let path: String
        public let kind: Kind

        public init(_ label: String, path: String, kind: Kind = .file) {
            self.label = label
            self.path = path
            self.kind = kind
        }
    }

    static let databaseCompanions = ["-wal", "-shm", "-journal"]

    /// Why `path` cannot take a report, as a phrase (`is the database t.db`), or nil when
    /// it can. Files are compared by device and inode, so another spelling, a symbolic
    /// link or a hard link to an input is caught.
    public static func conflict(path: String, inputs: [Input]) -> String? {
        let target = identity(of: path)
        if let target, !target.isRegularFile {
            return "is not a regular file"
        }
        let place = Place(path)
        for input in inputs {
            let source = identity(of: input.path)
            if let target, let source, target.sameFile(as: source) {
                return "is \(input.label)"
            }
            switch input.kind {
            case .file, .key:
                break
            case .database:
                // SQLite derives these names from the path as given and, for a symbolic
                // link, from the file it points to.
                let bases = [input.path] + (resolved(input.path).map { [$0] } ?? [])
                for base in bases {
                    for suffix in databaseCompanions {
                        let companion = base + suffix
                        let same = (place != nil && place == Place(companion))
                            || (target != nil && identity(of: companion).map { target?.sameFile(as: $0) == true } == true)
                        if same { return "is the \(suffix) file of \(input.label)" }
                    }
                }
            case .directory:
                if let source, let parent = identity(of: Paths.directoryOrCurrent(of: path)), parent.sameFile(as: source) {
                    return "is in \(input.label)"
                }
                if let target, let source, source.isDirectory,
                   let names = try? Paths.names(in: input.path),
                   names.contains(where: { identity(of: Paths.join(input.path, $0)).map(target.sameFile) == true }) {
                    return "is a file of \(input.label)"
                }
            }
        }
        return nil
    }

    /// Writes `text` to `path` through a temporary file in the same directory: synced,
    /// renamed into place (replacing an older report), and the directory synced. Refuses
    /// (73) a path that has become one of `inputs` since the run started.
    public static func write(_ text: String, to path: String, inputs: [Input]) throws {
        if let conflict = conflict(path: path, inputs: inputs) {
            throw StewardError(.cannotCreate, "cannot write the report \(path): it \(conflict)")
        }
        let directory = Paths.directoryOrCurrent(of: path)
        var visible = ""
        for character in Paths.fileName(of: path) {
            guard visible.utf8.count + character.utf8.count <= 64 else { break }
            visible.append(character)
        }
        var temporary = ""
        var descriptor: Int32 = -1
        for _ in 0..<16 where descriptor < 0 {
            temporary = Paths.join(directory, ".\(visible).steward-report-\(String(format: "%08x", UInt32.random(in: .min ... .max)))")
            descriptor = open(FileName.cString(temporary), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
            if descriptor < 0 && errno != EEXIST { break }
        }
        guard descriptor >= 0 else {
            let code = errno
            throw StewardError(SystemCall.outputKind(code), "cannot write the report \(path): \(SystemCall.message(code))")
        }
        let bytes = Array(text.utf8)
        var code = bytes.withUnsafeBytes { SystemCall.writeAll(descriptor, $0) }
        if code == 0 { code = SystemCall.sync(descriptor) }
        if close(descriptor) != 0 && code == 0 { code = errno }
        if code == 0 && rename(FileName.cString(temporary), FileName.cString(path)) != 0 { code = errno }
        guard code == 0 else {
            unlink(FileName.cString(temporary))
            throw StewardError(SystemCall.outputKind(code), "cannot write the report \(path): \(SystemCall.message(code))")
        }
        try DirectoryTree.sync(directory)
    }

    // MARK: - Identities

    struct Identity {
        let device: UInt64
        let inode: UInt64
        let mode: mode_t

        var isRegularFile: Bool { (mode & S_IFMT) == S_IFREG }
        var isDirectory: Bool { (mode & S_IFMT) == S_IFDIR }

        func sameFile(as other: Identity) -> Bool {
            device == other.device && inode == other.inode
        }
    }

    /// The file `path` names, following symbolic links; nil when there is none.
    static func identity(of path: String) -> Identity? {
        var info = stat()
        guard stat(FileName.cString(path), &info) == 0 else { return nil }
        return Identity(device: UInt64(info.st_dev), inode: UInt64(info.st_ino), mode: info.st_mode)
    }

    /// A name in a directory, the directory known by identity: `./t.db-wal` and
    /// `/abs/t.db-wal` are one place whether or not the file exists.
    struct Place: Equatable {
        let directoryDevice: UInt64
        let directoryInode: UInt64
        let name: String

        init?(_ path: String) {
            guard let directory = ReportFile.identity(of: Paths.directoryOrCurrent(of: path)) else { return nil }
            directoryDevice = directory.device
            directoryInode = directory.inode
            name = Paths.fileName(of: path)
        }
    }

    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(FileName.cString(path), nil) else { return nil }
        defer { free(pointer) }
        let result = FileName.decode(UnsafeRawBufferPointer(start: pointer, count: strlen(pointer)))
        return result == path ? nil : result
    }
}

import ArchiveKit
import FileNames
import StewardBase

/// The first 12 hex digits of the SHA-256 of a database's absolute path: a fleet laid out
/// as `/srv/*/app.db` gives every bundle the same stem, and the tag keeps them apart. The
/// path's bytes are hashed (`FileNames`), as the system has them.
public enum PathTag {
    public static func of(_ path: String) throws -> String {
        do {
            return String(try SHA256Hasher.hex(of: FileName.bytes(DatabaseList.absolute(path))).prefix(12))
        } catch {
            throw StewardError(.internal, "cannot hash the path of \(path): \(error)")
        }
    }
}

import FileNames

#if canImport(Glibc)
import Glibc
#endif

/// Room on a file system, for the runs that put large temporaries there.
enum FreeSpace {
    /// The bytes this user may still write on the file system that holds `path`
    /// (statvfs: f_bavail x f_frsize); nil when it cannot be asked.
    static func available(at path: String) -> Int64? {
        var system = statvfs()
        guard statvfs(FileName.cString(path), &system) == 0 else { return nil }
        return Int64(system.f_bavail) * Int64(system.f_frsize)
    }
}

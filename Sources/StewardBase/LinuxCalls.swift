import FileNames
import Foundation

#if canImport(Glibc)
import Glibc
#endif
#if canImport(CSystem)
import CSystem
#endif

/// The Linux calls that Swift's Glibc module leaves out (GNU-only declarations), from the
/// CSystem module. Each returns what the system call returns and leaves `errno` set, so
/// that callers keep their fallbacks for kernels and file systems without them (ENOSYS,
/// EINVAL, EXDEV, EOPNOTSUPP).
package enum LinuxCalls {
    /// renameat2(2) with RENAME_NOREPLACE: fails with EEXIST instead of replacing `target`.
    package static func renameNoReplace(_ source: String, to target: String) -> Int32 {
        #if canImport(CSystem)
        steward_renameat2(AT_FDCWD, FileName.cString(source), AT_FDCWD, FileName.cString(target), steward_rename_noreplace)
        #else
        unsupported()
        #endif
    }

    /// copy_file_range(2) from the current offset of `source` to that of `target`, up to
    /// `count` bytes; returns the bytes copied (0 at the end of `source`) or -1.
    package static func copyFileRange(from source: Int32, to target: Int32, count: Int) -> Int {
        #if canImport(CSystem)
        steward_copy_file_range(source, target, count)
        #else
        Int(unsupported())
        #endif
    }

    /// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: starts write-back of the range's
    /// dirty pages without waiting for it.
    static func startWriteBack(_ descriptor: Int32, offset: Int64, count: Int64) -> Int32 {
        #if canImport(CSystem)
        steward_sync_file_range(descriptor, offset, count, steward_sync_file_range_write)
        #else
        unsupported()
        #endif
    }

    #if !canImport(CSystem)
    /// Elsewhere than on Linux (Apple platforms, for StewardKit's sake; not built here):
    /// ENOSYS, which every caller already meets with its fallback.
    private static func unsupported() -> Int32 {
        errno = ENOSYS
        return -1
    }
    #endif
}

import Foundation

#if canImport(Glibc)
import Glibc
import StewardBase
#endif

/// Faults the end-to-end tests inject where the real fault cannot be made (a full disk
/// where the test may not mount a small file system). Read from the environment only
/// here; nothing else in Steward looks at these variables, but for two that the loader of
/// libarchive and libcrypto reads below Swift, where they are loaded on first use
/// (Sources/CArchive/CArchive.c, Sources/CCrypto/CCrypto.c):
/// `STEWARD_TEST_HOOK_LIBARCHIVE_SONAME=NAME` and `STEWARD_TEST_HOOK_LIBCRYPTO_SONAME=NAME`
/// load NAME instead of libarchive.so.13 or libcrypto.so.3, so that a test sees the
/// failure of a library that cannot be loaded.
package enum TestHooks {
    /// `STEWARD_TEST_HOOK_BUNDLE_ENOSPC_AFTER_BYTES=N`: writing the bundle fails with
    /// ENOSPC once it would grow past N bytes.
    package static var bundleWriteFailureAfterBytes: Int64? {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_BUNDLE_ENOSPC_AFTER_BYTES"].flatMap { Int64($0) }
    }

    /// `STEWARD_TEST_HOOK_SCRYPT_WORK_FACTOR=N`: a passphrase bundle uses scrypt with
    /// log2 N = N instead of age's 18, so that tests do not spend a second and 256 MiB
    /// on every passphrase.
    package static var scryptWorkFactor: Int? {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_SCRYPT_WORK_FACTOR"].flatMap { Int($0) }
    }
}

extension TestHooks {
    /// `STEWARD_TEST_HOOK_MEM_AVAILABLE_BYTES=N`: the memory `migrate --dry-run` believes is
    /// available, instead of `MemAvailable` from /proc/meminfo.
    package static var availableMemoryBytes: Int64? {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_MEM_AVAILABLE_BYTES"].flatMap { Int64($0) }
    }
}

extension TestHooks {
    /// `STEWARD_TEST_HOOK_REPLACE_KILL_AT=STEP`: `restore --replace` kills itself with
    /// SIGKILL right after STEP (see `DatabaseReplacement.steps`), as a crash or a power
    /// cut would stop it there.
    package static func replaceStep(_ step: String) {
        guard ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_REPLACE_KILL_AT"] == step else { return }
        kill(getpid(), SIGKILL)
    }
}

extension TestHooks {
    /// `STEWARD_TEST_HOOK_KERNEL_COPY_FAILS=1`: backup's kernel copy of the source reports
    /// EIO once it has copied everything and the reader behind the copy has compressed
    /// all of it (30 s at most), so the online backup API makes the copy again.
    package static var failsKernelCopy: Bool {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_KERNEL_COPY_FAILS"] == "1"
    }
}

extension TestHooks {
    /// `STEWARD_TEST_HOOK_BUNDLE_IN_PLACE_FROM_BYTES=N`: backup writes the payload's frame
    /// straight into the bundle for sources of N bytes or more (64 MiB otherwise).
    package static var bundleInPlaceFromBytes: Int64? {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_BUNDLE_IN_PLACE_FROM_BYTES"].flatMap { Int64($0) }
    }

    /// `STEWARD_TEST_HOOK_BUNDLE_HEAD_RESERVE_BYTES=N`: the room kept for the head in such
    /// a bundle (16 KiB otherwise); one too small makes backup write the bundle anew.
    package static var bundleReservedHeadBytes: Int64? {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_BUNDLE_HEAD_RESERVE_BYTES"].flatMap { Int64($0) }
    }
}

extension TestHooks {
    /// `STEWARD_TEST_HOOK_VERIFY_MAPPING_FULL=1`: FTS5's check on the file verify reads in
    /// place fails with SQLITE_FULL, as a check that wrote more than the overlay keeps in
    /// memory would (FTS5's integrity-check on SQLite 3.40 writes nothing, so the real
    /// fault cannot be made). The name is from the private mapping the overlay replaced.
    package static var verifyMappingIsFull: Bool {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_VERIFY_MAPPING_FULL"] == "1"
    }
}

import Foundation
import Testing
@testable import StewardCore

#if canImport(Glibc)
import Glibc
#endif

/// How backup's kernel copy opens the copy it writes.
@Suite struct SourceSnapshotCopyTests {
    /// No `O_TRUNC`: on ext4 truncating even an empty file to size 0 makes its `close`
    /// allocate and start writing back every block the copy wrote (0.45 s at 1 GiB while
    /// the source was held). Write-only, never through a link, not inherited.
    @Test func theKernelCopyOpensItsCopyWithoutTruncating() {
        let flags = SourceSnapshot.kernelCopyOpenFlags
        #expect(flags & O_TRUNC == 0)
        #expect(flags & O_ACCMODE == O_WRONLY)
        #expect(flags & O_NOFOLLOW != 0)
        #expect(flags & O_CLOEXEC != 0)
        #expect(flags & O_CREAT == 0)
    }
}

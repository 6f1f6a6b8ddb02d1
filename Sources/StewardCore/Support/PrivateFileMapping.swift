import Foundation
import SQLiteKit

#if canImport(Glibc)
import Glibc
#endif

/// The first `length` bytes of a file mapped copy-on-write (`MAP_PRIVATE`): writable,
/// but nothing written through it ever reaches the file; the pages written become the
/// process's own. Unmapped when the last reference goes (a deserialized connection holds
/// one until it is closed).
///
/// A file cut shorter by another process while mapped makes a read of the lost pages
/// raise SIGBUS, and so does a page the kernel cannot read: the caller holds a lock that
/// keeps SQLite's writers off the file for the mapping's life, and files on network and
/// FUSE file systems, whose reads fail more often than a local disk's, are not mapped.
final class PrivateFileMapping: DatabaseImage {
    let bytes: UnsafeMutableRawBufferPointer

    /// statfs(2) `f_type` of NFS, SMB, CIFS, SMB2, FUSE, 9P and Ceph.
    static let unmappedFileSystems: Set<Int64> = [0x6969, 0x517B, 0xFF53_4D42, 0xFE53_4D42, 0x6573_5546, 0x0102_1997, 0x00C3_6400]

    /// Maps `length` bytes of `descriptor` (opened for reading); nil when the file is
    /// shorter than that (reading past its end would be SIGBUS), is on a file system in
    /// `unmappedFileSystems`, or the kernel refuses.
    init?(descriptor: Int32, length: Int64) {
        var info = stat()
        guard length > 0, length <= Int64(Int.max), fstat(descriptor, &info) == 0, Int64(info.st_size) >= length else { return nil }
        guard let type = LinuxCalls.fileSystemType(descriptor), !Self.unmappedFileSystems.contains(type) else { return nil }
        // MAP_NORESERVE: only the few pages SQLite writes are ever copied, so no swap or
        // commit charge is reserved for the whole file (under the default overcommit
        // heuristic a database larger than memory could not be mapped otherwise).
        let address = mmap(nil, Int(length), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_NORESERVE, descriptor, 0)
        guard let address, address != MAP_FAILED else { return nil }
        bytes = UnsafeMutableRawBufferPointer(start: address, count: Int(length))
    }

    deinit {
        if let base = bytes.baseAddress { munmap(base, bytes.count) }
    }
}

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
/// raise SIGBUS: the caller holds a lock that keeps SQLite's writers off the file for
/// the mapping's life.
final class PrivateFileMapping: DatabaseImage {
    let bytes: UnsafeMutableRawBufferPointer

    /// Maps `length` bytes of `descriptor` (opened for reading); nil when the file is
    /// shorter than that (reading past its end would be SIGBUS) or the kernel refuses.
    init?(descriptor: Int32, length: Int64) {
        var info = stat()
        guard length > 0, length <= Int64(Int.max), fstat(descriptor, &info) == 0, Int64(info.st_size) >= length else { return nil }
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

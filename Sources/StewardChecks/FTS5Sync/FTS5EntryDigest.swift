/// An order-independent digest of a multiset of FTS5 index entries (rowid, column,
/// offset, term): each entry is hashed to two 64-bit words and the words are summed, so
/// workers can digest disjoint parts in any order and add their digests. Unlike FTS5's own
/// checksum (an XOR of one word per entry), an entry counted twice does not cancel out.
///
/// Not a cryptographic hash: it finds accidental differences (drift, damage), which is what
/// FTS5's check finds; nobody forges index entries to pass it.
package struct FTS5EntryDigest: Sendable, Equatable {
    package var count: Int64 = 0
    package var first: UInt64 = 0
    package var second: UInt64 = 0

    package init() {}

    @inline(__always)
    package mutating func add(rowid: Int64, column: UInt64, offset: Int64, term: UInt64) {
        let hash = Self.entry(rowid: rowid, column: column, offset: offset, term: term)
        first &+= hash
        second &+= (hash | 1) &* (hash >> 17 | hash << 47)
        count &+= 1
    }

    /// One entry's word: its parts spread by odd constants, then mixed once.
    @inline(__always)
    static func entry(rowid: Int64, column: UInt64, offset: Int64, term: UInt64) -> UInt64 {
        mix(term &+ UInt64(bitPattern: rowid) &* 0x9E37_79B9_7F4A_7C15 &+ column &* 0xC2B2_AE3D_27D4_EB4F
            &+ UInt64(bitPattern: offset) &* 0x1656_67B1_9E37_79F9)
    }

    /// Takes out an entry added before (a shadowed entry of an older segment).
    @inline(__always)
    package mutating func remove(rowid: Int64, column: UInt64, offset: Int64, term: UInt64) {
        let hash = Self.entry(rowid: rowid, column: column, offset: offset, term: term)
        first &-= hash
        second &-= (hash | 1) &* (hash >> 17 | hash << 47)
        count &-= 1
    }

    package static func + (lhs: FTS5EntryDigest, rhs: FTS5EntryDigest) -> FTS5EntryDigest {
        var sum = lhs
        sum.count &+= rhs.count
        sum.first &+= rhs.first
        sum.second &+= rhs.second
        return sum
    }

    /// splitmix64's finalizer.
    @inline(__always)
    package static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A term's (or a column name's) bytes to one word: eight bytes at a time, each
    /// word mixed in, then the length.
    @inline(__always)
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        guard let base = bytes.baseAddress else { return mix(0) }
        var hash: UInt64 = 0x243F_6A88_85A3_08D3
        var index = 0
        let count = bytes.count
        while index + 8 <= count {
            hash = mix(hash ^ base.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            index += 8
        }
        var tail: UInt64 = 0
        var shift: UInt64 = 0
        while index < count {
            tail |= UInt64(base.load(fromByteOffset: index, as: UInt8.self)) << shift
            shift += 8
            index += 1
        }
        return mix(hash ^ tail ^ (UInt64(count) << 56))
    }

    /// A term's hash as an entry of index `index` (0: the main index; 1, 2, …: the prefix
    /// indexes): the same term in two indexes is two different entries.
    @inline(__always)
    package static func term(_ hash: UInt64, index: Int) -> UInt64 {
        index == 0 ? hash : mix(hash &+ UInt64(index) &* 0xD6E8_FEB8_6659_FD93)
    }

    package static func hash(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}

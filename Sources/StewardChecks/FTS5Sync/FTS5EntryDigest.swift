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
        let place = Self.mix(UInt64(bitPattern: rowid) &+ Self.mix(column ^ (UInt64(bitPattern: offset) &* 0x9E37_79B9_7F4A_7C15)))
        let hash = Self.mix(term ^ place)
        first &+= hash
        second &+= Self.mix(hash ^ 0x5851_F42D_4C95_7F2D)
        count &+= 1
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

    /// FNV-1a over a term's (or a column name's) bytes.
    @inline(__always)
    package static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    package static func hash(_ text: String) -> UInt64 {
        var text = text
        return text.withUTF8 { hash(UnsafeRawBufferPointer($0)) }
    }
}

import CSQLite
import SQLiteKit

/// The structure checks of FTS5's integrity-check that reading every entry does not
/// imply (`fts5IndexIntegrityCheckSegment`, fts5_index.c, SQLite 3.40 to 3.47): each
/// segment's b-tree (`%_idx`) against its leaves, the leaves' page indexes, the term-less
/// leaves between, and the doclist indexes against the leaves' first rowids. A scan of every
/// entry (`fts5vocab`) reads the leaves in order and never uses `%_idx` nor the doclist
/// indexes, so damage there passes a digest and fails FTS5: these checks find it.
///
/// Read from the on-disk format documented in fts5_index.c; each segment is checked on its
/// own, so segments divide across workers. A problem is a sentence naming the segment and
/// page, never a term.
struct FTS5IndexStructure {
    /// One segment of the structure record (id 10 of `%_data`).
    struct Segment: Sendable {
        let id: Int64
        let firstPage: Int64
        let lastPage: Int64
        /// Its age as FTS5 merges segments: 0 the newest (the last of level 0), each
        /// level's segments newest first, then the next level's (`fts5MultiIterNew`).
        let rank: Int
    }

    /// Thrown for an index this reading cannot follow; the caller lets FTS5 judge it.
    struct Damaged: Error {
        let problem: String
    }

    private let connection: Connection
    private let table: String
    private let secureDelete: Bool
    private let read: Statement
    private let cursor: PageCursor

    /// How many indexes the table has (the main one and its prefix indexes): each term
    /// begins with its index's byte, '0' to '0' + indexes - 1.
    private let indexes: Int

    init(connection: Connection, table: String, indexes: Int = 1) throws {
        self.connection = connection
        self.table = table
        self.indexes = indexes
        read = try connection.prepare(sql: "SELECT block FROM main.\(Connection.quote(identifier: table + "_data")) WHERE id = ?1")
        cursor = PageCursor(try connection.prepare(sql: "SELECT id, block FROM main.\(Connection.quote(identifier: table + "_data")) WHERE id >= ?1 AND id <= ?2"))
        let version = try connection.prepare(sql: "SELECT v FROM main.\(Connection.quote(identifier: table + "_config")) WHERE k = 'version'")
        secureDelete = try version.step() && version.int64(at: 0) == 5
    }

    /// The segments of the structure record (`fts5StructureDecode`), on one statement and
    /// nothing else prepared (the small-index test runs it for every table).
    static func segments(of table: String, on connection: Connection) throws -> [Segment] {
        let read = try connection.prepare(sql: "SELECT block FROM main.\(Connection.quote(identifier: table + "_data")) WHERE id = 10")
        guard try read.step() else { throw Damaged(problem: "the structure record is missing") }
        let record = read.blob(at: 0)
        var offset = 4
        if record.count >= 8, record[4] == 0xFF, record[5] == 0, record[6] == 0, record[7] == 1 { offset = 8 }
        let version2 = offset == 8
        let levels = FTS5Record.varint32(record, &offset)
        var remaining = Int64(FTS5Record.varint32(record, &offset))
        _ = FTS5Record.varint(record, &offset)
        var segments: [Segment] = []
        for _ in 0..<levels {
            var level: [Segment] = []
            defer { segments += level.reversed().enumerated().map { Segment(id: $1.id, firstPage: $1.firstPage, lastPage: $1.lastPage, rank: segments.count + $0) } }
            guard offset < record.count else { throw Damaged(problem: "the structure record is cut short") }
            let merge = FTS5Record.varint32(record, &offset)
            let total = FTS5Record.varint32(record, &offset)
            guard total >= merge else { throw Damaged(problem: "the structure record is inconsistent") }
            remaining -= Int64(total)
            for _ in 0..<total {
                guard offset < record.count else { throw Damaged(problem: "the structure record is cut short") }
                let id = Int64(FTS5Record.varint32(record, &offset))
                let first = Int64(FTS5Record.varint32(record, &offset))
                let last = Int64(FTS5Record.varint32(record, &offset))
                if version2 { for _ in 0..<5 { _ = FTS5Record.varint(record, &offset) } }
                guard last >= first else { throw Damaged(problem: "segment \(id) ends before it begins") }
                level.append(Segment(id: id, firstPage: first, lastPage: last, rank: 0))
            }
        }
        guard remaining == 0 else { throw Damaged(problem: "the structure record counts other segments than it lists") }
        return segments
    }

    /// Checks one segment; throws `Damaged` with what is wrong.
    func check(_ segment: Segment) throws {
        guard segment.firstPage != 0 else { return }
        var previousLeaf = segment.firstPage - 1
        var previousDoclistLeaf = segment.lastPage
        let entries = try connection.prepare(sql: """
            SELECT term, (pgno >> 1), (pgno & 1) FROM main.\(Connection.quote(identifier: table + "_idx")) WHERE segid = ?1 ORDER BY segid, term
            """)
        try entries.bind(.integer(segment.id), at: 1)
        while try entries.step() {
            let key = entries.blob(at: 0)
            let leafPage = entries.int64(at: 1)
            let hasDoclistIndex = entries.int64(at: 2) != 0
            if leafPage < segment.firstPage { continue }
            let leaf = try leafBlock(segment.id, leafPage)
            if !leaf.hasTerms {
                guard key.isEmpty, secureDelete, leaf.bytes.count == 4, leaf.size == 4 else {
                    throw Damaged(problem: "segment \(segment.id) leaf \(leafPage): named by %_idx but holds no term")
                }
            } else {
                var offset = leaf.firstTermOffset
                guard leaf.firstRowidOffset < offset, offset < leaf.size else {
                    throw Damaged(problem: "segment \(segment.id) leaf \(leafPage): its first term or rowid is out of place")
                }
                let length = Int(FTS5Record.varint32(leaf.bytes, &offset))
                if FTS5Record.compare(leaf.bytes, from: offset, length: length, with: key) < 0 {
                    throw Damaged(problem: "segment \(segment.id) leaf \(leafPage): its first term sorts before the %_idx key that leads to it")
                }
                try checkPageIndex(leaf, segment: segment.id, page: leafPage)
            }
            try checkEmpty(segment, from: previousLeaf + 1, noRowidFrom: previousDoclistLeaf + 1, to: leafPage - 1)
            if hasDoclistIndex {
                previousDoclistLeaf = try checkDoclistIndex(segment.id, leaf: leafPage)
            } else {
                previousDoclistLeaf = segment.lastPage
            }
            previousLeaf = leafPage
        }
    }

    // MARK: - Leaves

    /// A leaf: the first rowid's offset, the page index's offset (`szLeaf`), the bytes.
    struct Leaf {
        let bytes: [UInt8]
        var firstRowidOffset: Int { Int(FTS5Record.u16(bytes, 0)) }
        var size: Int { Int(FTS5Record.u16(bytes, 2)) }
        var hasTerms: Bool { bytes.count > size }
        var firstTermOffset: Int {
            var offset = size
            return Int(FTS5Record.varint32(bytes, &offset))
        }
    }

    private func block(_ id: Int64, what: @autoclosure () -> String) throws -> [UInt8] {
        try read.reset()
        try read.bind(.integer(id), at: 1)
        guard try read.step() else { throw Damaged(problem: "\(what()) is missing") }
        return read.blob(at: 0)
    }

    private func page(_ segment: Int64, _ page: Int64) throws -> Leaf {
        Leaf(bytes: try block((segment << 37) + page, what: "segment \(segment) leaf \(page)"))
    }

    /// What the checks of term-less leaves and of doclist indexes need of a leaf, read in
    /// place (no copy of the page): its header, size and the rowid its header points at.
    struct LeafHeader {
        let firstRowidOffset: Int
        let size: Int
        let hasTerms: Bool
        let rowidAtHeader: Int64
    }

    /// Read through a forward cursor over the segment's leaves: the pages these checks ask
    /// for come mostly in order (a doclist index's leaves one after another), and a step
    /// to the next row costs less than a lookup.
    private func header(_ segment: Int64, _ page: Int64) throws -> LeafHeader {
        try cursor.withPage(segment, page) { bytes in
            let first = Int(FTS5Record.u16(bytes, 0))
            let size = Int(FTS5Record.u16(bytes, 2))
            var offset = first
            let rowid = Int64(bitPattern: FTS5Record.varint(bytes, &offset))
            return LeafHeader(firstRowidOffset: first, size: size, hasTerms: bytes.count > size, rowidAtHeader: rowid)
        }
    }

    /// `fts5LeafRead`: a leaf whose header fits it.
    private func leafBlock(_ segment: Int64, _ number: Int64) throws -> Leaf {
        let leaf = try page(segment, number)
        guard leaf.bytes.count >= 4, leaf.size <= leaf.bytes.count else {
            throw Damaged(problem: "segment \(segment) leaf \(number): its header does not fit the page")
        }
        return leaf
    }

    /// `fts5IntegrityCheckPgidx`: the terms the page index points at, in strictly
    /// increasing order, each inside the page. Each term also begins with the byte of an
    /// index the table declares ('0' the main one, '1', … its prefix indexes): FTS5's
    /// checksum would count any other, which the content side never makes.
    private func checkPageIndex(_ leaf: Leaf, segment: Int64, page: Int64) throws {
        let bytes = leaf.bytes
        var index = leaf.size
        var termOffset = 0
        // The current and the previous term, in buffers kept across terms (no allocation
        // per term).
        var current: [UInt8] = []
        var previous: [UInt8] = []
        current.reserveCapacity(64)
        previous.reserveCapacity(64)
        while index < bytes.count {
            let increment = Int(FTS5Record.varint32(bytes, &index))
            termOffset += increment
            var offset = termOffset
            guard offset < leaf.size else { throw Damaged(problem: "segment \(segment) leaf \(page): its page index points past the page") }
            if termOffset == increment {
                let length = Int(FTS5Record.varint32(bytes, &offset))
                guard offset + length <= leaf.size else { throw Damaged(problem: "segment \(segment) leaf \(page): a term runs past the page") }
                current.removeAll(keepingCapacity: true)
                current.append(contentsOf: bytes[offset..<(offset + length)])
            } else {
                let keep = Int(FTS5Record.varint32(bytes, &offset))
                let length = Int(FTS5Record.varint32(bytes, &offset))
                guard keep <= current.count, offset + length <= leaf.size else {
                    throw Damaged(problem: "segment \(segment) leaf \(page): a term runs past the page")
                }
                current.removeSubrange(keep...)
                current.append(contentsOf: bytes[offset..<(offset + length)])
                guard previous.lexicographicallyPrecedes(current) else {
                    throw Damaged(problem: "segment \(segment) leaf \(page): its terms are out of order")
                }
            }
            guard let first = current.first, first >= 0x30, Int(first) - 0x30 < indexes else {
                throw Damaged(problem: "segment \(segment) leaf \(page): a term of an index the table does not declare")
            }
            swap(&current, &previous)
            current.removeAll(keepingCapacity: true)
            current.append(contentsOf: previous)
        }
    }

    /// `fts5IndexIntegrityCheckEmpty`: the leaves between two that %_idx names hold no
    /// term, and from `noRowidFrom` on no rowid either.
    private func checkEmpty(_ segment: Segment, from first: Int64, noRowidFrom: Int64, to last: Int64) throws {
        guard first <= last else { return }
        for number in first...last {
            let leaf = try header(segment.id, number)
            if leaf.hasTerms { throw Damaged(problem: "segment \(segment.id) leaf \(number): holds a term %_idx does not lead to") }
            if number >= noRowidFrom, leaf.firstRowidOffset != 0 {
                throw Damaged(problem: "segment \(segment.id) leaf \(number): holds a rowid no doclist index accounts for")
            }
        }
    }

    // MARK: - Doclist indexes

    /// One level of a doclist index (`Fts5DlidxLvl`).
    private struct Level {
        var bytes: [UInt8]
        var offset = 0
        var leafPage: Int64 = 0
        var rowid: Int64 = 0
        var atEnd = false

        init(bytes: [UInt8]) { self.bytes = bytes }

        /// `fts5DlidxLvlNext`.
        mutating func next() -> Bool {
            if offset == 0 {
                offset = 1
                leafPage = Int64(FTS5Record.varint32(bytes, &offset))
                rowid = Int64(bitPattern: FTS5Record.varint(bytes, &offset))
            } else {
                var index = offset
                while index < bytes.count, bytes[index] == 0 { index += 1 }
                if index < bytes.count {
                    leafPage += Int64(index - offset) + 1
                    rowid &+= Int64(bitPattern: FTS5Record.varint(bytes, &index))
                    offset = index
                } else {
                    atEnd = true
                }
            }
            return atEnd
        }
    }

    private func doclistBlock(_ segment: Int64, height: Int64, page: Int64) throws -> [UInt8] {
        try block((segment << 37) + (1 << 36) + (height << 31) + page, what: "segment \(segment) doclist index of leaf \(page)")
    }

    /// The doclist index of the term that starts on `leaf`, walked as FTS5 walks it
    /// (`fts5DlidxIterInit`, `fts5DlidxIterNextR`): each entry's leaf begins with the rowid
    /// the entry records, and the leaves between hold none. Returns the last leaf looked
    /// at, as FTS5's check carries it on.
    private func checkDoclistIndex(_ segment: Int64, leaf: Int64) throws -> Int64 {
        var levels: [Level] = []
        while true {
            let level = Level(bytes: try doclistBlock(segment, height: Int64(levels.count), page: leaf))
            levels.append(level)
            if (level.bytes.first ?? 0) & 1 == 0 { break }
            if levels.count > 32 { throw Damaged(problem: "segment \(segment) doclist index of leaf \(leaf): too many levels") }
        }
        for index in levels.indices { _ = levels[index].next() }
        var previous = leaf
        var page: Int64 = 0
        while !levels[0].atEnd {
            page = previous + 1
            while page < levels[0].leafPage {
                if try header(segment, page).firstRowidOffset != 0 {
                    throw Damaged(problem: "segment \(segment) leaf \(page): holds a rowid its doclist index skips")
                }
                page += 1
            }
            previous = levels[0].leafPage
            let target = try header(segment, previous)
            let rowidOffset = target.firstRowidOffset
            if rowidOffset >= target.size {
                throw Damaged(problem: "segment \(segment) leaf \(previous): its first rowid is out of place")
            } else if !secureDelete || rowidOffset > 0 {
                let rowid = target.rowidAtHeader
                if rowid < levels[0].rowid || (!secureDelete && rowid != levels[0].rowid) {
                    throw Damaged(problem: "segment \(segment) leaf \(previous): does not begin with the rowid its doclist index records")
                }
            }
            try advance(&levels, 0, segment: segment)
        }
        return page
    }

    /// `fts5DlidxIterNextR`.
    private func advance(_ levels: inout [Level], _ index: Int, segment: Int64) throws {
        guard levels[index].next(), index + 1 < levels.count else { return }
        try advance(&levels, index + 1, segment: segment)
        if !levels[index + 1].atEnd {
            levels[index] = Level(bytes: try doclistBlock(segment, height: Int64(index), page: levels[index + 1].leafPage))
            _ = levels[index].next()
        }
    }
}

/// A forward scan of one segment's leaves that serves pages in ascending order, and starts
/// again (one lookup) when asked for a page behind it or in another segment.
private final class PageCursor {
    private let statement: Statement
    private var segment: Int64 = -1
    private var page: Int64 = -1
    private var open = false

    init(_ statement: Statement) { self.statement = statement }

    func withPage<T>(_ segment: Int64, _ wanted: Int64, _ body: (UnsafeRawBufferPointer) throws -> T) throws -> T {
        if !open || segment != self.segment || wanted < page {
            try statement.reset()
            try statement.bind(.integer((segment << 37) + wanted), at: 1)
            try statement.bind(.integer((segment << 37) + (1 << 31) - 1), at: 2)
            self.segment = segment
            page = wanted - 1
            open = true
        }
        while page < wanted {
            guard try statement.step() else {
                open = false
                throw FTS5IndexStructure.Damaged(problem: "segment \(segment) leaf \(wanted) is missing")
            }
            page = statement.int64(at: 0) - (segment << 37)
        }
        guard page == wanted else { throw FTS5IndexStructure.Damaged(problem: "segment \(segment) leaf \(wanted) is missing") }
        let handle = statement.sqliteStatement
        return try body(UnsafeRawBufferPointer(start: sqlite3_column_blob(handle, 1), count: Int(sqlite3_column_bytes(handle, 1))))
    }
}

/// FTS5's record encodings: SQLite varints, big-endian 16-bit integers, and reads past
/// the end that give zeros (FTS5 pads every record it reads with zero bytes).
enum FTS5Record {
    @inline(__always)
    static func byte<Bytes: RandomAccessCollection>(_ bytes: Bytes, _ index: Int) -> UInt8 where Bytes.Element == UInt8, Bytes.Index == Int {
        index >= bytes.startIndex && index < bytes.endIndex ? bytes[index] : 0
    }

    static func u16<Bytes: RandomAccessCollection>(_ bytes: Bytes, _ index: Int) -> UInt16 where Bytes.Element == UInt8, Bytes.Index == Int {
        UInt16(byte(bytes, index)) << 8 | UInt16(byte(bytes, index + 1))
    }

    /// An SQLite varint (`sqlite3Fts5GetVarint`): up to eight bytes of seven bits, a
    /// ninth of eight.
    @inline(__always)
    static func varint<Bytes: RandomAccessCollection>(_ bytes: Bytes, _ offset: inout Int) -> UInt64 where Bytes.Element == UInt8, Bytes.Index == Int {
        var value: UInt64 = 0
        for _ in 0..<8 {
            let next = byte(bytes, offset)
            offset += 1
            value = value << 7 | UInt64(next & 0x7F)
            if next & 0x80 == 0 { return value }
        }
        let last = byte(bytes, offset)
        offset += 1
        return value << 8 | UInt64(last)
    }

    @inline(__always)
    static func varint32<Bytes: RandomAccessCollection>(_ bytes: Bytes, _ offset: inout Int) -> UInt32 where Bytes.Element == UInt8, Bytes.Index == Int {
        UInt32(truncatingIfNeeded: varint(bytes, &offset))
    }

    /// `fts5Memcmp` of the shorter length, then the lengths.
    static func compare(_ bytes: [UInt8], from offset: Int, length: Int, with key: [UInt8]) -> Int {
        for index in 0..<min(length, key.count) {
            let left = byte(bytes, offset + index)
            if left != key[index] { return left < key[index] ? -1 : 1 }
        }
        return length - key.count
    }
}

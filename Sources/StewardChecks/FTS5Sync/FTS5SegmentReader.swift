import CSQLite
import SQLiteKit

/// The index side of the parallel FTS5 check for `detail=full` tables: every entry of a
/// range of leaves of one segment, read from `%_data` in FTS5's leaf format (fts5_index.c:
/// a 4-byte header with the first rowid's offset and the page index's offset, terms
/// prefix-compressed after the first of each page, doclists of rowids — the first of a
/// doclist and the first of a page absolute, the others deltas — each with its position
/// list's size and delete flag, position lists that may run on over the next pages).
///
/// `fts5vocab` reads the same entries, but through a row per entry and the term copied
/// into each (12.6 s of the 1 GiB bench database, against 6.5 s for FTS5's whole check):
/// reading the leaves hashes each term once and each position in a few instructions.
///
/// A range starts at the first term that begins on its first page and ends before the
/// first term that begins on a page at or after its end: the doclist that runs into the
/// next range is read by the range it began in, so ranges divide a segment with no entry
/// read twice. Damage it cannot follow is thrown as `FTS5IndexStructure.Damaged`.
final class FTS5SegmentReader {
    /// One doclist entry, as the visitor gets it.
    struct Entry {
        let term: UInt64
        /// The index the term belongs to: 0 the main one, 1, 2, … the prefix indexes (its
        /// first byte less '0'); outside 0…255 for a byte below '0'.
        let index: Int
        let rowid: Int64
        /// The delete flag: the entry replaces older segments' entries of this term and rowid.
        let deletes: Bool
    }

    private let statement: Statement

    init(connection: Connection, table: String) throws {
        statement = try connection.prepare(sql: "SELECT id, block FROM main.\(Connection.quote(identifier: table + "_data")) WHERE id >= ?1 AND id <= ?2")
    }

    // MARK: - Pages

    private var segment: FTS5IndexStructure.Segment = .init(id: 0, firstPage: 0, lastPage: 0, rank: 0)
    private var pageNumber: Int64 = 0
    private var page: [UInt8] = []
    private var size = 0
    private var termOffsets: [Int] = []
    private var nextTerm = 0

    private func damaged(_ what: String) -> FTS5IndexStructure.Damaged {
        FTS5IndexStructure.Damaged(problem: "segment \(segment.id) leaf \(pageNumber): \(what)")
    }

    /// Whether the current page was entered at its start (a doclist or position list ran
    /// on into it), not at its first term (the page a range starts on).
    private var enteredAtStart = false
    /// Where the first rowid this reader read on the current page begins.
    private var rowidSeen: Int?
    /// Whether pages are being read (not skipped on the way to a range's first term).
    private var tracking = false

    /// Loads the next leaf of the segment; false past its last. The page left is held to
    /// its header first.
    private func nextPage() throws -> Bool {
        if tracking { try finishPage(reachedEnd: true) }
        guard pageNumber < segment.lastPage else {
            tracking = false
            return false
        }
        pageNumber += 1
        enteredAtStart = true
        rowidSeen = nil
        guard try statement.step() else { throw damaged("missing") }
        guard statement.int64(at: 0) == (segment.id << 37) + pageNumber else { throw damaged("missing") }
        page = statement.blob(at: 1)
        size = Int(FTS5Record.u16(page, 2))
        guard page.count >= 4, size <= page.count, size >= 4 else { throw damaged("its header does not fit the page") }
        termOffsets.removeAll(keepingCapacity: true)
        var index = size
        var offset = 0
        while index < page.count {
            offset += Int(FTS5Record.varint32(page, &index))
            guard offset >= 4, offset < size else { throw damaged("its page index points outside the page") }
            termOffsets.append(offset)
        }
        nextTerm = 0
        return true
    }

    private var firstRowidOffset: Int { Int(FTS5Record.u16(page, 0)) }

    /// The page header's first-rowid offset against the rowids read. FTS5 sets it when a
    /// doclist runs on into a page (`bFirstRowidInPage`, cleared by a term): it points at
    /// the first rowid before the page's first term, or is 0 when none comes before it, and
    /// FTS5 follows it (its check finds it wrong). A page this reader entered at a range's
    /// first term is the previous range's to hold before that term.
    private func finishPage(reachedEnd: Bool) throws {
        let header = firstRowidOffset
        let firstTerm = termOffsets.first ?? size
        if header != 0 && (header < 4 || header >= firstTerm) {
            throw damaged("its first-rowid offset points outside the rowids before its first term")
        }
        guard enteredAtStart else { return }
        let before = rowidSeen.flatMap { $0 < firstTerm ? $0 : nil }
        guard header == (before ?? 0) else { throw damaged("its first-rowid offset is not where its first rowid is") }
    }

    /// Reads a rowid at `offset` of the current page.
    @inline(__always)
    private func readRowid(_ offset: inout Int) -> Int64 {
        if rowidSeen == nil { rowidSeen = offset }
        return Int64(bitPattern: FTS5Record.varint(page, &offset))
    }

    /// Whether a doclist runs on into the current page: its first rowid is at offset 4,
    /// before any term (`fts5WriteAppendRowid` writes it first on a new page).
    private var continuesDoclist: Bool {
        firstRowidOffset == 4 && (termOffsets.first ?? size) > 4
    }

    // MARK: - Reading

    /// Reads the entries of `segment` that the range of leaves `pages` owns, calling
    /// `visit` for each doclist entry and `position` for each of its positions (column,
    /// offset).
    func read(
        _ segment: FTS5IndexStructure.Segment, pages: ClosedRange<Int64>,
        visit: (Entry) -> Void, position: (Int64, Int64) -> Void
    ) throws {
        self.segment = segment
        try statement.reset()
        try statement.bind(.integer((segment.id << 37) + pages.lowerBound), at: 1)
        try statement.bind(.integer((segment.id << 37) + segment.lastPage), at: 2)
        pageNumber = pages.lowerBound - 1
        tracking = false
        // The first page of the range with a term on it.
        repeat {
            guard pageNumber < pages.upperBound, try nextPage() else { return }
        } while termOffsets.isEmpty
        tracking = true
        enteredAtStart = false
        var offset = termOffsets[0]
        var term: [UInt8] = []
        var poslist: [UInt8] = []
        while true {
            // A term begins at `offset`, the page index's entry `nextTerm`.
            if nextTerm == 0 {
                let length = Int(FTS5Record.varint32(page, &offset))
                guard offset + length <= size else { throw damaged("a term runs past the page") }
                term = Array(page[offset..<(offset + length)])
                offset += length
            } else {
                let keep = Int(FTS5Record.varint32(page, &offset))
                let length = Int(FTS5Record.varint32(page, &offset))
                guard keep <= term.count, offset + length <= size else { throw damaged("a term runs past the page") }
                term.removeSubrange(keep...)
                term.append(contentsOf: page[offset..<(offset + length)])
                offset += length
            }
            nextTerm += 1
            let index = Int(term.first ?? 0) - 0x30
            let termHash = FTS5EntryDigest.term(term.withUnsafeBytes { FTS5EntryDigest.hash(UnsafeRawBufferPointer(rebasing: $0.dropFirst())) }, index: index)
            // The doclist: its first rowid is absolute, on the next page when the term
            // filled this one (`fts5WriteAppendTerm` flushes a full page).
            if offset >= size {
                guard try nextPage(), continuesDoclist else { throw damaged("a term without a doclist") }
                offset = 4
            }
            var rowid = readRowid(&offset)
            doclist: while true {
                guard offset < size else { throw damaged("a doclist entry runs past the page") }
                let header = FTS5Record.varint32(page, &offset)
                let length = Int(header >> 1)
                visit(Entry(term: termHash, index: index, rowid: rowid, deletes: header & 1 == 1))
                // The position list, perhaps on over the next pages (each continued at
                // offset 4).
                if offset + length <= size {
                    Self.positions(page, from: offset, count: length, position)
                    offset += length
                } else {
                    poslist.removeAll(keepingCapacity: true)
                    var remaining = length
                    while remaining > 0 {
                        let available = size - offset
                        if available <= 0 {
                            guard try nextPage() else { throw damaged("a position list runs past the segment") }
                            offset = 4
                            continue
                        }
                        let take = min(available, remaining)
                        poslist.append(contentsOf: page[offset..<(offset + take)])
                        offset += take
                        remaining -= take
                    }
                    Self.positions(poslist, from: 0, count: poslist.count, position)
                }
                // What follows: the next term on this page, the next rowid, or the next page.
                if nextTerm < termOffsets.count, offset == termOffsets[nextTerm] { break doclist }
                if offset < size {
                    guard nextTerm >= termOffsets.count || offset < termOffsets[nextTerm] else { throw damaged("a doclist runs into a term") }
                    let absolute = rowidSeen == nil && enteredAtStart
                    let value = readRowid(&offset)
                    // The first rowid of a page is absolute (a position list may have
                    // carried the doclist onto this page); the others are deltas.
                    rowid = absolute ? value : rowid &+ value
                    continue
                }
                // The page ends: the doclist goes on when the next page begins with a rowid
                // (absolute, the first of its page); otherwise a term begins it.
                guard try nextPage() else { return }
                if continuesDoclist {
                    offset = 4
                    rowid = readRowid(&offset)
                    continue
                }
                while termOffsets.isEmpty {
                    if firstRowidOffset != 0 { throw damaged("a rowid outside any doclist") }
                    guard try nextPage() else { return }
                }
                offset = termOffsets[0]
                break doclist
            }
            // The next term: it belongs to the next range when its page is past this one's.
            if pageNumber > pages.upperBound {
                try finishPage(reachedEnd: false)
                return
            }
        }
    }

    /// `sqlite3Fts5PoslistNext64` over a position list: 1 starts a column (its number
    /// follows), any other value v moves the offset by v - 2 (0 repeats it).
    @inline(__always)
    static func positions<Bytes: RandomAccessCollection>(_ bytes: Bytes, from start: Int, count: Int, _ position: (Int64, Int64) -> Void)
        where Bytes.Element == UInt8, Bytes.Index == Int
    {
        var index = start
        let end = start + count
        var column: Int64 = 0
        var offset: Int64 = 0
        while index < end {
            var value = FTS5Record.varint32(bytes, &index)
            if value == 1 {
                column = Int64(FTS5Record.varint32(bytes, &index))
                offset = 0
                value = FTS5Record.varint32(bytes, &index)
                if value < 2 { return }
                offset = Int64((value - 2) & 0x7FFF_FFFF)
            } else if value == 0 {
                // FTS5 reads a 0 as the same offset again.
            } else {
                offset = (offset + Int64(value - 2)) & 0x7FFF_FFFF
            }
            position(column, offset)
        }
    }
}

import CSQLite
import Foundation
import SQLiteKit

/// The content side of the parallel FTS5 check: the entries the table's own tokenizer
/// makes of its text, as FTS5's rank-1 integrity-check counts them
/// (`fts5StorageIntegrityCallback`, fts5_storage.c): every token of a `detail=full`
/// table at its position, each term once per column (`detail=column`) or once per row
/// (`detail=none`); the token counts of each row against `%_docsize`, and the columns'
/// totals. One digester per connection and thread: the tokenizer it creates through
/// `fts5_api` is its own.
final class FTS5ContentDigester {
    /// What one range of rows gave.
    struct Part {
        var digest = FTS5EntryDigest()
        /// Tokens per column, summed over the rows (FTS5's "averages" record holds them).
        var totals: [Int64]
        /// Rows read.
        var rows: Int64 = 0
        /// The first row whose `%_docsize` record is missing or differs (never its text).
        var docsizeProblem: String?
    }

    private let connection: Connection
    private let layout: FTS5TableLayout
    private let tokenizer: FTS5Tokenizer
    /// The column names' hashes (the index side reads columns by name).
    private let columnHashes: [UInt64]

    init(connection: Connection, layout: FTS5TableLayout) throws {
        self.connection = connection
        self.layout = layout
        self.tokenizer = try FTS5Tokenizer(on: connection, words: layout.tokenizer)
        self.columnHashes = layout.columns.map { FTS5EntryDigest.hash($0) }
    }

    /// The rows whose rowid is in `rowids` (every row when nil).
    func digest(rowids: ClosedRange<Int64>?) throws -> Part {
        let content = "main." + Connection.quote(identifier: layout.contentTable)
        let rowid = "T." + Connection.quote(identifier: layout.contentRowID)
        let read = layout.indexed.indices.filter { layout.indexed[$0] }
        var sql = "SELECT \(rowid)"
        for column in read { sql += ", T." + Connection.quote(identifier: layout.contentColumns[column]) }
        if layout.columnSize {
            sql += ", D.sz FROM \(content) AS T LEFT JOIN main.\(Connection.quote(identifier: layout.table + "_docsize")) AS D ON D.id = \(rowid)"
        } else {
            sql += " FROM \(content) AS T"
        }
        if rowids != nil { sql += " WHERE \(rowid) >= ?1 AND \(rowid) <= ?2" }
        let statement = try connection.prepare(sql: sql)
        if let rowids {
            try statement.bind(.integer(rowids.lowerBound), at: 1)
            try statement.bind(.integer(rowids.upperBound), at: 2)
        }
        var part = Part(totals: Array(repeating: 0, count: layout.columns.count))
        let sink = TokenSink(detail: layout.detail, prefixes: layout.prefixes)
        let handle = statement.sqliteStatement
        var sizes = [Int64](repeating: 0, count: layout.columns.count)
        while try statement.step() {
            let row = sqlite3_column_int64(handle, 0)
            sink.begin(row: row)
            for (place, column) in read.enumerated() {
                let index = Int32(place + 1)
                let bytes = Int(sqlite3_column_bytes(handle, index))
                sink.begin(column: columnHashes[column])
                if bytes > 0, let text = sqlite3_column_text(handle, index) {
                    try tokenizer.tokenize(UnsafeRawPointer(text), count: bytes, into: sink)
                }
                sizes[column] = sink.size
                part.totals[column] += sink.size
            }
            part.rows += 1
            if layout.columnSize, part.docsizeProblem == nil {
                let index = Int32(read.count + 1)
                if sqlite3_column_type(handle, index) == SQLITE_NULL {
                    part.docsizeProblem = "rowid \(row) has no %_docsize record"
                } else if !Self.docsize(handle, index, matches: sizes, indexed: layout.indexed) {
                    part.docsizeProblem = "the %_docsize record of rowid \(row) does not hold its token counts"
                }
            }
        }
        part.digest = sink.digest
        return part
    }

    /// Whether a `%_docsize` record decodes to one varint per column, no more and no
    /// fewer bytes, and holds `sizes` for the indexed columns (`fts5StorageDecodeSizeArray`).
    private static func docsize(_ handle: OpaquePointer, _ index: Int32, matches sizes: [Int64], indexed: [Bool]) -> Bool {
        let count = Int(sqlite3_column_bytes(handle, index))
        guard let blob = sqlite3_column_blob(handle, index) else { return count == 0 && sizes.isEmpty }
        let bytes = UnsafeRawBufferPointer(start: blob, count: count)
        var offset = 0
        for column in sizes.indices {
            guard offset < count else { return false }
            let size = FTS5Record.varint32(bytes, &offset)
            if indexed[column], Int64(size) != sizes[column] { return false }
        }
        return offset == count
    }
}

/// Where the tokenizer's callback puts what it is given: FTS5's position counting
/// (a colocated token takes the position of the one before it), the term sets of
/// `detail=column` and `detail=none`, and the digest.
final class TokenSink {
    let detail: FTS5TableLayout.Detail
    var digest = FTS5EntryDigest()
    /// Tokens in the current column (`szCol`).
    var size: Int64 = 0
    private var row: Int64 = 0
    private var column: UInt64 = 0
    private var seen = Set<UInt64>()

    /// The prefix indexes' lengths in characters (detail=full only).
    let prefixes: [Int]

    init(detail: FTS5TableLayout.Detail, prefixes: [Int] = []) {
        self.detail = detail
        self.prefixes = prefixes
    }

    /// `sqlite3Fts5IndexCharlenToBytelen`: the bytes of the first `characters` UTF-8
    /// characters of `bytes`, 0 when it has fewer.
    @inline(__always)
    static func prefixLength(_ bytes: UnsafeRawBufferPointer, characters: Int) -> Int {
        var length = 0
        for character in 0..<characters {
            if length >= bytes.count { return 0 }
            let lead = bytes[length]
            length += 1
            if lead >= 0xC0 {
                if length >= bytes.count { return 0 }
                while bytes[length] & 0xC0 == 0x80 {
                    length += 1
                    if length >= bytes.count {
                        if character + 1 == characters { break }
                        return 0
                    }
                }
            }
        }
        return length
    }

    func begin(row: Int64) {
        self.row = row
        if detail == .none { seen.removeAll(keepingCapacity: true) }
    }

    func begin(column: UInt64) {
        self.column = column
        size = 0
        if detail == .column { seen.removeAll(keepingCapacity: true) }
    }

    /// FTS5_MAX_TOKEN_SIZE: longer tokens are cut to it.
    static let maximumTokenSize = 32768

    @inline(__always)
    func token(_ bytes: UnsafeRawBufferPointer, colocated: Bool) {
        if !colocated || size == 0 { size += 1 }
        let term = FTS5EntryDigest.hash(bytes)
        switch detail {
        case .full:
            digest.add(rowid: row, column: column, offset: size - 1, term: term)
            for (index, characters) in prefixes.enumerated() {
                let length = Self.prefixLength(bytes, characters: characters)
                guard length > 0 else { continue }
                let prefix = FTS5EntryDigest.hash(UnsafeRawBufferPointer(rebasing: bytes[0..<length]))
                digest.add(rowid: row, column: column, offset: size - 1, term: FTS5EntryDigest.term(prefix, index: index + 1))
            }
        case .column:
            if seen.insert(term).inserted { digest.add(rowid: row, column: column, offset: 0, term: term) }
        case .none:
            if seen.insert(term).inserted { digest.add(rowid: row, column: 0, offset: 0, term: term) }
        }
    }
}

/// A tokenizer of the connection's FTS5, found by name through `fts5_api`
/// (https://sqlite.org/fts5.html, "Custom Tokenizers") and created with the table's
/// arguments; deleted with this object.
final class FTS5Tokenizer {
    private let methods: fts5_tokenizer
    private let instance: OpaquePointer

    /// Thrown when the tokenizer cannot be found or created on this connection.
    struct Unavailable: Error {
        let reason: String
    }

    init(on connection: Connection, words: [String]) throws {
        guard let name = words.first else { throw Unavailable(reason: "no tokenizer named") }
        let api = try Self.api(of: connection)
        var context: UnsafeMutableRawPointer?
        var methods = fts5_tokenizer()
        guard let find = api.pointee.xFindTokenizer, find(api, name, &context, &methods) == SQLITE_OK,
              let create = methods.xCreate else {
            throw Unavailable(reason: "the tokenizer \(name) is not registered on the check's connections")
        }
        let arguments = words.dropFirst().map { strdup($0) }
        defer { arguments.forEach { free($0) } }
        var pointers = arguments.map { UnsafePointer<CChar>($0) }
        var instance: OpaquePointer?
        let rc = pointers.withUnsafeMutableBufferPointer { buffer in
            create(context, buffer.baseAddress, Int32(buffer.count), &instance)
        }
        guard rc == SQLITE_OK, let instance else {
            throw Unavailable(reason: "the tokenizer \(name) refused the table's arguments (SQLite error \(rc))")
        }
        self.methods = methods
        self.instance = instance
    }

    deinit {
        methods.xDelete?(instance)
    }

    /// FTS5's API object: `SELECT fts5(?1)` with a pointer bound to ?1.
    /// > To get a pointer to the fts5_api object, an application executes "SELECT fts5(?1)"
    /// > with a pointer bound to ?1 by sqlite3_bind_pointer() with the type "fts5_api_ptr".
    static func api(of connection: Connection) throws -> UnsafeMutablePointer<fts5_api> {
        let statement = try connection.prepare(sql: "SELECT fts5(?1)")
        var api: UnsafeMutablePointer<fts5_api>?
        try withUnsafeMutablePointer(to: &api) { pointer in
            guard sqlite3_bind_pointer(statement.sqliteStatement, 1, pointer, fts5PointerType, nil) == SQLITE_OK else {
                throw Unavailable(reason: "FTS5's API could not be reached")
            }
            _ = try statement.step()
        }
        guard let api else { throw Unavailable(reason: "FTS5's API could not be reached") }
        return api
    }

    func tokenize(_ text: UnsafeRawPointer, count: Int, into sink: TokenSink) throws {
        guard let tokenize = methods.xTokenize else { throw Unavailable(reason: "the tokenizer cannot tokenize") }
        let rc = tokenize(instance, Unmanaged.passUnretained(sink).toOpaque(), FTS5_TOKENIZE_DOCUMENT,
                          text.assumingMemoryBound(to: CChar.self), Int32(count), tokenCallback)
        guard rc == SQLITE_OK else { throw SQLiteError(extendedCode: .init(rawValue: rc)) }
    }
}

/// The pointer type `fts5()` expects, as a C string that lives as long as the process.
nonisolated(unsafe) private let fts5PointerType: UnsafePointer<CChar> = UnsafePointer(strdup("fts5_api_ptr")!)

private func tokenCallback(
    _ context: UnsafeMutableRawPointer?, _ flags: Int32, _ token: UnsafePointer<CChar>?, _ count: Int32, _ start: Int32, _ end: Int32
) -> Int32 {
    guard let context else { return SQLITE_ERROR }
    let length = min(Int(max(count, 0)), TokenSink.maximumTokenSize)
    // Not retained: the sink outlives every call of the tokenizer it is handed to.
    Unmanaged<TokenSink>.fromOpaque(context)._withUnsafeGuaranteedRef {
        $0.token(UnsafeRawBufferPointer(start: token.map(UnsafeRawPointer.init), count: token == nil ? 0 : length),
                 colocated: flags & FTS5_TOKEN_COLOCATED != 0)
    }
    return SQLITE_OK
}

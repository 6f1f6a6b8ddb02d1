/// The 100-byte header at the start of every SQLite database file
/// (https://www.sqlite.org/fileformat2.html#the_database_header).
public struct DatabaseHeader: Sendable, Equatable, Codable {
    public static let size = 100
    static let magic: [UInt8] = Array("SQLite format 3".utf8) + [0]

    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        case tooShort(Int)
        case badMagic
        case badPageSize(Int)
        case badFileFormat(write: UInt8, read: UInt8)
        case badPayloadFractions
        case badTextEncoding(UInt32)

        public var description: String {
            switch self {
            case .tooShort(let count): return "the file is \(count) byte\(count == 1 ? "" : "s"), shorter than a database header"
            case .badMagic: return "the header string is not 'SQLite format 3'"
            case .badPageSize(let size): return "the page size \(size) is not a power of two between 512 and 65536"
            case .badFileFormat(let write, let read):
                return "the file format versions (\(write), \(read)) are not 1 (rollback journal) or 2 (WAL)"
            case .badPayloadFractions: return "the payload fractions are not 64, 32, 32"
            case .badTextEncoding(let value): return "the text encoding \(value) is not 1, 2 or 3"
            }
        }
    }

    public let pageSize: Int
    /// Bytes 18 and 19: 1 means rollback journal, 2 means WAL.
    public let writeVersion: UInt8
    public let readVersion: UInt8
    public let fileChangeCounter: UInt32
    /// The in-header database size in pages (valid when `isPageCountValid`).
    public let pageCount: UInt32
    public let freelistCount: UInt32
    public let schemaCookie: UInt32
    public let schemaFormat: UInt32
    /// 1 = UTF-8, 2 = UTF-16le, 3 = UTF-16be.
    public let textEncoding: UInt32
    public let userVersion: Int32
    public let applicationID: Int32
    /// The largest root b-tree page: non-zero means auto-vacuum or incremental vacuum.
    public let largestRootPage: UInt32
    public let incrementalVacuum: UInt32
    public let versionValidFor: UInt32
    public let sqliteVersionNumber: UInt32

    /// Parses a header. Throws a `Problem` when the bytes are not a SQLite database header.
    /// - Throws: `DatabaseHeader.Problem`: what makes the bytes not a SQLite header (too short,
    ///   wrong magic, page size, file format, payload fractions or text encoding).
    public init(bytes: some Collection<UInt8>) throws {
        let header = Array(bytes.prefix(Self.size))
        guard header.count == Self.size else { throw Problem.tooShort(header.count) }
        guard Array(header[0..<16]) == Self.magic else { throw Problem.badMagic }
        func u16(_ at: Int) -> UInt32 { UInt32(header[at]) << 8 | UInt32(header[at + 1]) }
        func u32(_ at: Int) -> UInt32 {
            UInt32(header[at]) << 24 | UInt32(header[at + 1]) << 16 | UInt32(header[at + 2]) << 8 | UInt32(header[at + 3])
        }
        let rawPageSize = Int(u16(16))
        let pageSize = rawPageSize == 1 ? 65536 : rawPageSize
        guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else {
            throw Problem.badPageSize(rawPageSize)
        }
        guard (1...2).contains(header[18]), (1...2).contains(header[19]) else {
            throw Problem.badFileFormat(write: header[18], read: header[19])
        }
        guard header[21] == 64, header[22] == 32, header[23] == 32 else { throw Problem.badPayloadFractions }
        let encoding = u32(56)
        // 0 is allowed in an empty-schema database that has not stored any text yet.
        guard encoding <= 3 else { throw Problem.badTextEncoding(encoding) }

        self.pageSize = pageSize
        self.writeVersion = header[18]
        self.readVersion = header[19]
        self.fileChangeCounter = u32(24)
        self.pageCount = u32(28)
        self.freelistCount = u32(36)
        self.schemaCookie = u32(40)
        self.schemaFormat = u32(44)
        self.textEncoding = encoding
        self.userVersion = Int32(bitPattern: u32(60))
        self.applicationID = Int32(bitPattern: u32(68))
        self.largestRootPage = u32(52)
        self.incrementalVacuum = u32(64)
        self.versionValidFor = u32(92)
        self.sqliteVersionNumber = u32(96)
    }

    /// Whether the header says the database is in WAL mode.
    public var isWAL: Bool { writeVersion == 2 || readVersion == 2 }

    /// Whether `pageCount` can be trusted (the header was written by SQLite 3.7.0 or later
    /// and not changed since by an older one).
    public var isPageCountValid: Bool { pageCount > 0 && fileChangeCounter == versionValidFor }

    public var textEncodingName: String {
        switch textEncoding {
        case 1: return "UTF-8"
        case 2: return "UTF-16le"
        case 3: return "UTF-16be"
        default: return "unset"
        }
    }

    public var autoVacuumName: String {
        if largestRootPage == 0 { return "none" }
        return incrementalVacuum != 0 ? "incremental" : "full"
    }

    public var journalName: String { isWAL ? "wal" : "rollback" }
}

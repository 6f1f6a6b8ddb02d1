/// The shapes that every report uses for the same concept (steward(1), JSON OUTPUT):
/// a database is an object with `path` in every command's JSON, a bundle too, so that a
/// script reads `.database.path` or `.bundle.path` whatever the command. A report may
/// carry more about either (verify's database, backup's bundle) beside `path`.
/// schema/steward.schema.json names them `databaseReference` and `bundleReference`.
public struct DatabaseReference: Codable, Sendable, Equatable {
    /// As given on the command line, or where the database was published (restore).
    public let path: String
    /// SHA-256 of the file as published (restore); missing elsewhere.
    public let sha256: String?

    public init(path: String, sha256: String? = nil) {
        self.path = path
        self.sha256 = sha256
    }
}

/// A bundle a report read: its path as given (`-` for standard input) and its size.
public struct BundleReference: Codable, Sendable, Equatable {
    public let path: String
    public let sizeBytes: Int64

    public init(path: String, sizeBytes: Int64) {
        self.path = path
        self.sizeBytes = sizeBytes
    }
}

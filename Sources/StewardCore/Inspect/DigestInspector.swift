import Foundation
import SQLiteKit
import BundleFormat
import StewardBase

/// `steward inspect --digest PATH`: the content digests (`ContentDigests`) of a database,
/// computed read-only, or those a bundle's manifest recorded at backup (after the bundle
/// is verified). `restore` and `restore --check-only` recompute a bundle's and compare.
public struct DigestInspector {
    public init() {}

    /// - Throws: `StewardError`: `.notFound`, `.badInput` (no database, a bundle that does
    ///   not verify), `.busy`, `.noKey`, `.interrupted`.
    /// `extensions` are loaded into the connection that reads a database (they do not
    /// change a digest: which tables count is read from `sqlite_schema` alone).
    public func inspect(
        path: String, keys: BundleKeys = BundleKeys(), extensions: [String] = [], cancellation: Cancellation = Cancellation()
    ) throws -> DigestReport {
        if BundleInspector.isBundle(path: path) {
            let bundle = try BundleInspector().inspect(path: path, keys: keys, cancellation: cancellation)
            guard bundle.verification.passed else {
                throw StewardError(.badInput, bundle.verification.problem ?? "the bundle \(path) did not verify")
            }
            return DigestReport(bundle: bundle.bundle, contentDigests: bundle.manifest.contentDigests)
        }
        let probe = try DatabaseFile(path: path)
        if probe.size == 0 { throw DatabaseFile.emptyFile(path) }
        let header = try probe.header()
        let mode = try DatabaseFile.readOnlyMode(path: path, header: header)
        return try SQLiteErrorMapping(path: path, role: .database, cancellation: cancellation).run {
            // Only this thread uses the connection; the digests read every value through it.
            let connection = try DatabaseFile.open(path: path, immutable: mode.immutable, oneThread: true)
            try connection.harden(loadingExtensions: extensions)
            connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
            return DigestReport(database: DatabaseReference(path: path), contentDigests: try ContentDigests.compute(connection, cancellation: cancellation))
        }
    }
}

/// The JSON of `inspect --digest`. Names, row counts and digests; never row data.
public struct DigestReport: Codable, Sendable {
    public var command = "inspect"
    /// `database` (computed now) or `bundle` (recorded in its manifest at backup).
    public let kind: InspectReport.Kind
    /// The database inspected, or the bundle: one of the two.
    public let database: DatabaseReference?
    public let bundle: BundleReference?
    /// Missing for a bundle made before Steward recorded digests.
    public let contentDigests: ContentDigests?

    init(database: DatabaseReference, contentDigests: ContentDigests?) {
        kind = .database
        self.database = database
        bundle = nil
        self.contentDigests = contentDigests
    }

    init(bundle: BundleReference, contentDigests: ContentDigests?) {
        kind = .bundle
        database = nil
        self.bundle = bundle
        self.contentDigests = contentDigests
    }

    /// The database's path or the bundle's.
    public var path: String { database?.path ?? bundle?.path ?? "" }
}

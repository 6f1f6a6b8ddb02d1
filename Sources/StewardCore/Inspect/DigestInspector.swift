import Foundation
import SQLiteKit

/// `steward inspect --digest PATH`: the content digests (`ContentDigests`) of a database,
/// computed read-only, or those a bundle's manifest recorded at backup (after the bundle
/// is verified). `restore` and `restore --check-only` recompute a bundle's and compare.
public struct DigestInspector {
    public init() {}

    public func inspect(path: String, keys: BundleKeys = BundleKeys(), cancellation: Cancellation = Cancellation()) throws -> DigestReport {
        if BundleInspector.isBundle(path: path) {
            let bundle = try BundleInspector().inspect(path: path, keys: keys, cancellation: cancellation)
            guard bundle.verification.passed else {
                throw StewardError(.badInput, bundle.verification.problem ?? "the bundle \(path) did not verify")
            }
            return DigestReport(path: path, kind: "bundle", contentDigests: bundle.manifest.contentDigests)
        }
        let probe = try DatabaseFile(path: path)
        if probe.size == 0 { throw DatabaseFile.emptyFile(path) }
        let header = try probe.header()
        let mode = try DatabaseFile.readOnlyMode(path: path, header: header)
        do {
            let connection = try Inspector.open(path: path, immutable: mode.immutable)
            connection.setProgressHandler(instructions: 100_000) { !cancellation.isCancelled }
            return DigestReport(path: path, kind: "database", contentDigests: try ContentDigests.compute(connection, cancellation: cancellation))
        } catch let error as SQLiteError {
            if error.isInterrupt || cancellation.isCancelled {
                throw StewardError.interrupted(by: cancellation)
            }
            throw DatabaseFile.explain(error, path: path)
        }
    }
}

/// The JSON of `inspect --digest`. Names, row counts and digests; never row data.
public struct DigestReport: Codable, Sendable {
    public var command = "inspect"
    public let path: String
    /// `database` (computed now) or `bundle` (recorded in its manifest at backup).
    public let kind: String
    /// Missing for a bundle made before Steward recorded digests.
    public let contentDigests: ContentDigests?
}

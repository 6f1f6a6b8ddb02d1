import Foundation
import StewardCore

/// One database's line of a fleet run's NDJSON: the object a single run prints, with
/// `kind`, `path` (the database as listed), `status`, `outcome` and `exitCode` added at
/// its top level.
struct FleetEnvelope<Report: Encodable>: Encodable {
    let report: Report
    let path: String
    let status: String
    let outcome: String
    let exitCode: Int32
    /// Extra top-level members (`backup` for `migrate --backup-dir`).
    var bundle: FleetMigration.Bundle?
    /// The drift check's finding (`migrate`).
    var schema: SchemaDriftCheck.Comparison?

    private enum Keys: String, CodingKey {
        case kind, path, status, outcome, exitCode, backup, schema
    }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode("database", forKey: .kind)
        try container.encode(path, forKey: .path)
        try container.encode(status, forKey: .status)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(exitCode, forKey: .exitCode)
        try container.encodeIfPresent(bundle, forKey: .backup)
        try container.encodeIfPresent(schema, forKey: .schema)
    }

    /// One line of JSON.
    func line() throws -> String {
        try FleetEnvelope.compact(self)
    }

    static func compact<Value: Encodable>(_ value: Value) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return ReportOutput.escapingControlCharacters(String(decoding: try encoder.encode(value), as: UTF8.self))
    }
}

/// The NDJSON line of a database whose run failed with an error rather than a report:
/// the failure object a single run prints, with `kind`, `path`, `database` (both the path
/// as listed) and `outcome`.
struct FleetFailureLine: Encodable {
    let kind = "database"
    let command: String
    let path: String
    let database: String
    let status = "error"
    let outcome = "failed"
    let error: ReportOutput.Failure.Detail
    let exitCode: Int32
}

import StewardCore

/// The JSON of one database's migration, in a single run and on a fleet run's line alike:
/// the report, its `outcome`, and when they apply the rollback `bundle` taken first
/// (`--backup-dir`) and the drift check's `schema`.
struct MigrateOutput: Encodable {
    let report: MigrateReport
    var bundle: FleetMigration.Bundle?
    var schema: SchemaDriftCheck.Comparison?

    init(report: MigrateReport, bundle: FleetMigration.Bundle? = nil, schema: SchemaDriftCheck.Comparison? = nil) {
        self.report = MigrateWording.worded(report)
        self.bundle = bundle
        self.schema = schema
    }

    private enum Keys: String, CodingKey { case outcome, bundle, schema }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(report.outcome, forKey: .outcome)
        try container.encodeIfPresent(bundle, forKey: .bundle)
        try container.encodeIfPresent(schema, forKey: .schema)
    }
}

import StewardCore

/// migrate's report names the option that chose the layout: the core says the caller
/// chose it, the command line which option did.
enum MigrateWording {
    /// `report` with a chosen layout's reason worded with its option, for the text and the
    /// JSON alike.
    static func worded(_ report: MigrateReport) -> MigrateReport {
        guard report.dialectReason.chosen else { return report }
        var report = report
        report.dialectReason.text = "--dialect \(report.dialect.rawValue)"
        return report
    }

    /// `run` with its report worded so.
    static func worded(_ run: Migrator.Report) -> Migrator.Report {
        var run = run
        run.migration = worded(run.migration)
        return run
    }

    /// `--status` when no migration is pending but a run would write the records
    /// (`MigrateReport.recordsPending`): not "up to date".
    static let recordsPending = "no migration to apply; a run records what is applied (user_version or the runner's ledger)"
}

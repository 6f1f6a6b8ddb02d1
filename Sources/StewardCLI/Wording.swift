import BundleFormat
import StewardBase
import StewardCore

// The words the command line adds to the core's reports and errors. The core says what
// would help (`StewardError.Remedy`, `CheckResult.MissingInput`, a layout chosen by the
// caller); only here are those worded with the option that does it, since the core also
// serves callers that have no command line (CoreWordingTests holds the core to that).
// ManifestWording is the words backup and inspect share for one bundle.

/// The options that carry out a core `StewardError.Remedy`: the core says what would
/// help, the command line says which option does it.
enum RemedyWording {
    /// Added after the core's message.
    static func suffix(for remedy: StewardError.Remedy) -> String {
        switch remedy {
        case .createMissingDatabase:
            return " (use --create to make a new one)"
        case .createFromEmptyFile:
            return "; use --create to make it a new database"
        case .allowChangedMigrations:
            return "; restore the file as it was, or pass --allow-changed to accept it"
        case .allowOutOfOrder(let count):
            return "; pass --allow-out-of-order to apply \(count == 1 ? "it" : "them") anyway"
        case .withoutBaseline:
            return "; run without --baseline"
        case .nulSeparatedList:
            return "; use --null for NUL-separated names"
        case .giveKey:
            return "; give --identity FILE, or --passphrase-file/--passphrase-env for a passphrase"
        case .chooseDialect:
            return "; use --dialect for another runner's 64-bit versions"
        case .nameDialect(let candidates):
            let options = candidates.map { "--dialect \($0)" }
            let listed = options.count == 1 ? options[0] : options.dropLast().joined(separator: ", ") + " or " + (options.last ?? "")
            return ", or pass \(listed)"
        case .allowDrift:
            return " (--allow-drift migrates anyway)"
        case .loadExtension:
            return " (an extension's module needs --load-extension)"
        case .givePlaceholder(let name):
            return "; give its value with --placeholder '\(name)=VALUE'"
        case .directoryApart:
            return "; the directory is --out"
        case .takeMigrationsBack:
            return "; use --down to take migrations back"
        case .restoreRollbackBundle:
            return "; to go back, restore the bundle that migrate --backup-dir wrote before the upgrade with 'steward restore --replace'"
        }
    }

    /// The message a user reads, on stderr and in `--json`.
    static func message(of error: StewardError) -> String {
        error.message + (error.remedy.map(suffix(for:)) ?? "")
    }
}

/// Verify's skipped checks name the option that would have run them: the core says which
/// input was missing, the command line which option gives it.
enum VerifyWording {
    static func summary(for input: CheckResult.MissingInput) -> String {
        switch input {
        case .database: "no --db given"
        case .migrations: "no --migrations given"
        case .expectedVersion: "no --expect-version or --migrations given"
        case .contract: "no --contract given"
        case .assertions: "no --assert given"
        }
    }

    /// `report` with each check skipped for a missing input, or failed for want of an
    /// option, worded with its option, for the text, the JSON and the report file alike.
    static func worded(_ report: VerifyReport) -> VerifyReport {
        var report = report
        report.checks = report.checks.map { check in
            if let input = check.missingInput { return check.summarized(summary(for: input)) }
            if let remedy = check.remedy { return check.summarized(check.summary + RemedyWording.suffix(for: remedy)) }
            return check
        }
        return report
    }
}

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

/// The words `backup` and `inspect` both give a bundle manifest's source and checks, so
/// that the two reports of one bundle read alike; each command adds its own label and
/// what follows.
enum ManifestWording {
    /// `user_version 3, application_id 0, 7 pages of 4096 bytes, journal mode wal`
    static func source(_ source: BundleManifest.Source) -> String {
        "user_version \(source.userVersion), application_id \(source.applicationID), "
            + "\(Counted.phrase(source.pageCount, "page")) of \(source.pageSize) bytes, journal mode \(ReportOutput.escaped(source.journalMode))"
    }

    /// `integrity_check ok, 0 foreign key violations, user_version 3`
    static func checks(_ checks: BundleManifest.Checks) -> String {
        "integrity_check \(ReportOutput.escaped(checks.integrityCheck)), \(Counted.phrase(checks.foreignKeyViolations, "foreign key violation")), "
            + "user_version \(checks.userVersion)"
    }
}

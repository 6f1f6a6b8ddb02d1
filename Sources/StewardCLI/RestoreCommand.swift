import ArgumentKit
import Foundation
import StewardBase
import StewardCore

/// `steward restore`: unpack a bundle into a fresh directory, prove the database works,
/// and only then publish it.
struct RestoreCommand: FleetCommand, LiveProgressCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Unpack a bundle into a fresh directory and prove the database works.",
        discussion: """
            Reads the bundle as untrusted input: only tar and zstd, only regular files, the manifest \
            first, then only the entries it lists, each once and no longer than listed. Extracts into \
            a staging directory beside <dir>, computing every SHA-256 on the way. Checks the database \
            header and that the payload is exactly page size x page count (header and manifest), \
            switches a WAL database to rollback journal, then opens it defensively: integrity_check \
            (read-write, query-only: CHECK constraints count), foreign_key_check, user_version, \
            application_id and page count against the manifest, every table read, FTS5's \
            integrity-check (rank 1, inside BEGIN...ROLLBACK, on a connection that takes no lock) for \
            every FTS5 table; then, once all of these but FTS5's passed, a read-write probe on the restored file (a rolled-back transaction; its SHA-256 proven unchanged), and the per-table content digests recomputed and \
            compared with the manifest's. Only when \
            every check passes is the staging directory renamed to <dir>. On any failure or signal \
            nothing is left. An encrypted bundle (age, from Steward or the age tool) is opened with \
            --identity or a passphrase and decrypted on the way through, each 64 KiB chunk \
            authenticated before it is used. With - as the bundle, it is read from standard input \
            (spooled into a private directory under TMPDIR first), with the same checks, staging and publish. --check-only runs all of it and publishes nothing (a restore \
            drill; no --into needed). With --check-only, several bundles (arguments, or --bundles-from) \
            are drilled as a fleet run: --jobs at a time, --shard, --fail-fast, one line per bundle as it \
            finishes (NDJSON with --json, kind bundle, the bundle as bundle.path) and a summary; several bundles \
            without --check-only are a usage error. A bundle made with backup --as-is is published only with \
            --accept-recorded-failures, and only when every failure found is one its manifest recorded. \
            --replace PATH rolls a database back in place: once every check passed, the database at PATH \
            is replaced atomically while no other connection holds a lock on it (waiting at most \
            --timeout seconds, then 75, nothing changed); its -wal is checkpointed and a hot -journal \
            rolled back first, and the replaced database is kept under a printed name. An idle \
            connection in rollback-journal mode holds no lock and cannot be seen. Exit status 1 when a check fails, 65 for a bad bundle \
            (a damaged header or chunk included), 77 when no key given opens an encrypted bundle.
            """,
        arguments: [Arg.bundles.definition],
        options: [
            Opt.into, Opt.replace, Opt.keepReplaced, Opt.discardReplaced, CommonOptions.timeout, Opt.acceptRecordedFailures,
            Opt.checkOnly, Opt.loadExtension, Opt.skipFTSCheck,
        ] + FullTextCheckOptions.options + KeyOptions.forDecryption + CommonOptions.output + Handover.options + drillKeys.options)

    enum Arg {
        static let bundles = RepeatedArgument(
            "bundle", help: "The bundle (.tar.zst, or .tar.zst.age when encrypted) to restore; - reads it from standard input. With --check-only, several bundles may be given: one drill each.",
            isOptional: true)
    }

    enum Opt {
        static let into = Option<String>("into", value: "dir", help: "The directory to create; it must not exist, or be empty. Required unless --check-only or --replace.")
        static let replace = Option<String>("replace", value: "path", help: "Replace the database at <path> with the restored one, atomically, once every check passed; --timeout bounds the wait for other connections' locks on it.")
        static let keepReplaced = Option<String>("keep-replaced", value: "dir", help: "With --replace: keep the replaced database in <dir> (same file system; default: beside <path>).")
        static let discardReplaced = Flag("discard-replaced", help: "With --replace: do not keep the replaced database.")
        static let acceptRecordedFailures = Flag("accept-recorded-failures", help: "Publish a bundle made with backup --as-is when every failure found is one its manifest recorded.")
        static let checkOnly = Flag("check-only", help: "A restore drill: every check a restore runs, then the staging directory is removed and nothing is published.")
        static let loadExtension = CommonOptions.loadExtension(help: "Load this SQLite extension into every connection to the restored database, for schemas that use it; the schema is then trusted only for innocuous functions (may be repeated).")
        static let skipFTSCheck = Flag("skip-fts-check", help: "Do not run the full-text integrity-check (FTS5's, FTS3's and FTS4's); the report records that it was skipped.")
    }

    let invocation: Invocation<Restorer>

    init(_ values: ParsedValues) throws(CommandLineError) {
        let bundles = values[Arg.bundles]
        let fleet = try Self.drillFleet(values, bundles: bundles)
        let bundle = bundles.first ?? ""
        if fleet == nil && bundle.isEmpty {
            throw values.error("Missing expected argument '<bundle>'")
        }
        if bundle == Restorer.standardInput && Terminal.isInputInteractive {
            throw values.error("refusing to read a bundle from a terminal: pipe or redirect it into standard input (restore -)")
        }
        let checkOnly = values[Opt.checkOnly]
        let into = values[Opt.into] ?? ""
        let replace = values[Opt.replace]
        if replace != nil {
            if values[Opt.into] != nil { throw values.error("--replace puts the database back at <path>; --into cannot be used with it") }
            if checkOnly { throw values.error("--check-only publishes nothing; --replace cannot be used with it") }
            if values[Opt.discardReplaced] && values[Opt.keepReplaced] != nil {
                throw values.error("--keep-replaced and --discard-replaced cannot be used together")
            }
        } else if values[Opt.keepReplaced] != nil || values[Opt.discardReplaced] || values.isPresent(CommonOptions.timeout) {
            throw values.error("--keep-replaced, --discard-replaced and --timeout go with --replace")
        }
        if values[Opt.into] == nil && !checkOnly && replace == nil { _ = try values.required(Opt.into) }
        var options = Restorer.Options(bundlePath: bundle, intoDirectory: into)
        options.checkOnly = checkOnly
        options.replacePath = replace
        options.keepReplacedDirectory = values[Opt.keepReplaced]
        options.discardsReplaced = values[Opt.discardReplaced]
        options.timeout = try values.required(CommonOptions.timeout)
        options.acceptsRecordedFailures = values[Opt.acceptRecordedFailures]
        options.checksFTS = !values[Opt.skipFTSCheck]
        options.extensions = values[Opt.loadExtension]
        if !options.checksFTS && (values.isPresent(FullTextCheckOptions.check) || values.isPresent(FullTextCheckOptions.workers)) {
            throw values.error("'--skip-fts-check' runs no FTS5 check; '--fts-check' and '--fts-workers' cannot be used with it")
        }
        (options.ftsCheck, options.ftsWorkers) = try FullTextCheckOptions.parse(values, jobs: fleet?.jobs)
        options.keys = try KeyOptions.parse(values, encrypting: false)
        // `fleet`: a drill over several bundles.
        invocation = Invocation(options: options, fleet: fleet, output: OutputOptions(values),
                                handover: try Handover(values, inputs: Self.inputs(of: options)))
    }

    /// A drill passes when every check passed; a restore, when it published.
    static func exitStatus(of report: RestoreReport) -> Int32 {
        let passed = report.checkOnly == true ? report.passed : report.published
        return passed ? ExitCode.success : ExitCode.checkFailed
    }

    /// The report, then on stderr why nothing was published.
    func deliver(_ report: RestoreReport, status: Int32, on terminal: Terminal) throws {
        try printReport(report, status: status, on: terminal)
        guard status != ExitCode.success else { return }
        if report.checkOnly == true {
            terminal.diagnose("Error: the restore drill failed: \(report.failedChecks.joined(separator: ", ")) failed; nothing was published")
            return
        }
        terminal.diagnose("Error: refusing to publish \(ReportOutput.escaped(report.replacement == nil && options.replacePath != nil ? options.replacePath ?? "" : report.into)): \(report.failedChecks.joined(separator: ", ")) failed; nothing was left behind")
        if let recorded = report.manifest.recordedFailures {
            terminal.diagnose(options.acceptsRecordedFailures
                ? "The bundle was made with --as-is, but not every failure found is one its manifest recorded (\(ReportOutput.escaped(recorded.summary)))"
                : "The bundle was made with --as-is; its manifest records: \(ReportOutput.escaped(recorded.summary)). "
                    + "--accept-recorded-failures publishes it when every failure found is one of these")
        }
    }

    static func liveLine(for event: Restorer.Event) -> String? {
        switch event {
        case .extracting(let bytes, let total, let rate):
            let percent = total > 0 ? Int(bytes * 100 / total) : 100
            return "extracting and hashing: \(percent)% of \(ReportOutput.bytes(total).split(separator: " (").first ?? ""), "
                + BackupCommand.rateText(rate)
        case .checking:
            return "checking the database ..."
        case .checked(let check):
            return "checking the database: \(ReportOutput.escaped(check.name.rawValue)) \(check.status.rawValue)"
        case .published:
            return nil
        }
    }

    /// What the run reads or publishes into: no handover file may be one of them.
    static func inputs(of options: Restorer.Options) -> [ReportFile.Input] {
        var inputs: [ReportFile.Input] = []
        if options.bundlePath != Restorer.standardInput { inputs.append(.init("the bundle \(options.bundlePath)", path: options.bundlePath)) }
        if !options.intoDirectory.isEmpty { inputs.append(.init("the directory \(options.intoDirectory)", path: options.intoDirectory, kind: .directory)) }
        if let path = options.replacePath { inputs.append(.init("the database \(path)", path: path, kind: .database)) }
        inputs += options.keys.identityFiles.map { .init("the identity file \($0)", path: $0, kind: .key) }
        return inputs
    }

    static func subject(of options: Restorer.Options) -> String { options.bundlePath }

    /// The bundle's source, its files' SHA-256, and the checks.
    static func handoverSummary(_ report: RestoreReport) -> [String] {
        let source = report.manifest.source
        var lines = ["- Source: `\(Markdown.code(source.fileName))`, user_version \(source.userVersion), \(Counted.phrase(source.pageCount, "page")) of \(source.pageSize) bytes",
                     "- Published: \(report.published ? "yes" : "no")\(report.checkOnly == true ? " (a drill)" : "")"]
        for file in report.files {
            lines.append("- `\(Markdown.code(file.path))`: \(ReportOutput.bytes(file.size)), SHA-256 `\(file.sha256)`\(file.matches ? "" : " (the manifest says `\(file.expectedSHA256)`)")")
        }
        lines.append("")
        return lines + Markdown.checks(report.checks)
    }

    static func render(_ report: RestoreReport) -> String {
        var lines: [String] = []
        let manifest = report.manifest
        let source = manifest.source
        lines.append("Bundle      \(ReportOutput.escaped(report.bundle.path))  \(ReportOutput.bytes(report.bundle.sizeBytes))")
        if let encryption = report.encryption {
            lines.append("Encrypted   age, to \(encryption.describedRecipients); every chunk authenticated")
        }
        lines.append("            made \(ReportOutput.escaped(manifest.createdAt)) by Steward \(ReportOutput.escaped(manifest.stewardVersion)) "
                     + "(SQLite \(ReportOutput.escaped(manifest.sqliteVersion))) from \(ReportOutput.escaped(source.fileName)): "
                     + "user_version \(source.userVersion), journal mode \(ReportOutput.escaped(source.journalMode))")
        lines.append("            checked at backup: \(BackupCommand.checksRun(manifest.checks))")
        if let recorded = manifest.recordedFailures {
            lines.append("As is       made with --as-is; failures recorded at backup: \(ReportOutput.escaped(recorded.summary))")
        }
        for file in report.files {
            lines.append("Payload     \(ReportOutput.escaped(file.path))  \(ReportOutput.bytes(file.size))")
            lines.append("            sha256 \(ReportOutput.escaped(file.sha256)) (matches the manifest)")
        }
        if report.walConverted {
            lines.append("WAL         the header said WAL: switched to rollback journal in staging")
            lines.append("            sha256 now \(report.database.sha256 ?? "")")
        }
        lines.append("")
        lines.append("Checks")
        for check in report.checks {
            let status = check.status == .fail ? "FAIL" : check.status == .skipped ? "skip" : check.status == .accepted ? "known" : check.status.rawValue
            lines.append("  \(status.padding(toLength: 6, withPad: " ", startingAt: 0))\(check.name.rawValue.padding(toLength: 18, withPad: " ", startingAt: 0))"
                         + "\(ReportOutput.escaped(check.summary))  \(ReportOutput.seconds(check.durationSeconds))")
            for detail in check.details.prefix(10) where check.status == .fail {
                lines.append("          - \(ReportOutput.escaped(detail))")
            }
        }
        if !report.tables.isEmpty {
            lines.append("")
            lines.append("Tables (\(report.tables.count))")
            lines.append(ReportOutput.table(report.tables.map { table in
                let count = table.rowCount.map { "\($0) row" + ($0 == 1 ? "" : "s") } ?? "cannot read: \(table.error ?? "")"
                return [table.name, table.type, count]
            }))
        }
        lines.append("")
        if !report.staleStagingRemoved.isEmpty {
            lines.append("Removed     staging directories of killed runs: \(report.staleStagingRemoved.map(ReportOutput.escaped).joined(separator: ", "))")
        }
        if !report.staleTemporariesRemoved.isEmpty {
            lines.append("Removed     stale temporaries of killed runs under TMPDIR: \(report.staleTemporariesRemoved.map(ReportOutput.escaped).joined(separator: ", "))")
        }
        if report.checkOnly == true {
            lines.append(report.passed
                ? "Checked     every check passed; check only: the staging directory was removed, nothing was published"
                : "Result      CHECK FAILED: \(report.failedChecks.joined(separator: ", ")) failed; nothing was published")
        } else if report.published, let replacement = report.replacement {
            lines.append("Replaced    \(ReportOutput.escaped(replacement.path)) (it was in \(ReportOutput.escaped(replacement.journalModeBefore)) mode; "
                         + "waited \(ReportOutput.seconds(replacement.lockWaitSeconds)) for locks)")
            for side in replacement.sideFilesResolved {
                lines.append("            resolved \(ReportOutput.escaped(side))")
            }
            lines.append(replacement.replacedKeptAs.map { "Kept        the replaced database as \(ReportOutput.escaped($0))" }
                         ?? "Kept        nothing: the replaced database was discarded (--discard-replaced)")
        } else if report.published {
            lines.append("Restored    \(ReportOutput.escaped(report.database.path))")
            lines.append("            extracted in \(ReportOutput.seconds(report.extractSeconds)), checked in \(ReportOutput.seconds(report.checkSeconds)), "
                         + "total \(ReportOutput.seconds(report.totalSeconds))")
        } else {
            lines.append("Result      NOT RESTORED: \(report.failedChecks.joined(separator: ", ")) failed; nothing was written to \(ReportOutput.escaped(report.into.isEmpty ? report.database.path : report.into))")
        }
        return lines.joined(separator: "\n")
    }
}

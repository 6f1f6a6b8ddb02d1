import ArgumentKit
import BundleFormat
import Foundation
import StewardBase
import StewardCore

/// `steward backup`: a consistent online snapshot into a verified tar+zstd bundle.
struct BackupCommand: FleetCommand, LiveProgressCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Take a consistent online snapshot into a verified tar+zstd bundle.",
        discussion: """
            Pins one point in time with a read transaction, copies the database into a temporary file in \
            the output directory (a rollback-journal database as it is, in the kernel, with its compression \
            starting behind the copy; a WAL database with SQLite's online backup API, then switched to \
            rollback-journal mode), and releases it. The copy is checked (integrity_check on a read-write, query-only \
            connection so that CHECK constraints count, foreign_key_check, user_version, and what restore \
            checks: every view, trigger and virtual table prepares, every table reads, and the full-text \
            integrity-check of FTS5, FTS4 and FTS3 tables passes: about 7 s per GiB of indexed database, \
            measured on a 256 MiB one), then written \
            with its manifest and SHA-256 list into a tar+zstd bundle, \
            which appears under its final name only when complete and synced. A bundle is never \
            replaced; on any failure or signal, every temporary file is removed. With --recipient, \
            --recipients-file or a passphrase, the whole bundle is encrypted in the age format \
            (age-encryption.org/v1) and named .tar.zst.age; `age -d` opens it. The manifest records a SHA-256 \
            of each table's rows and of the schema (see inspect --digest). --as-is bundles a database that \
            fails integrity, full-text or foreign-key checks, with the failures recorded. With --out -, the bundle \
            (plain or encrypted) is written to standard output once the snapshot has passed its checks, \
            the temporaries live under TMPDIR, and the report goes to standard error; a reader that \
            goes away is exit status 74.
            """,
        options: [
            Opt.db, Opt.out, Opt.name, Opt.level, CommonOptions.timeout, Opt.pagesPerStep, Opt.asIs, Opt.loadExtension, Opt.checkFTS,
        ] + FullTextCheckOptions.options + KeyOptions.forEncryption + CommonOptions.output + Handover.options + FleetOptions.options)

    enum Opt {
        static let db = FleetOptions.database(help: "The database to back up; repeat it for several (see --dbs-from).")
        static let out = Option<String>("out", value: "dir", help: "The existing directory to write the bundle into, or - for standard output (not a terminal; not with --json or --name; one database only).", required: true)
        static let name = Option<String>("name", value: "file", help: "The bundle's file name (default: <db>-v<user_version>-<UTC time>.tar.zst).")
        static let level = Option<Int>("level", value: "n", help: "The zstd compression level, 1 (fast) to 19 (small).",
                                       default: BackupMaker.defaultCompressionLevel, in: 1...19)
        static let pagesPerStep = Option<Int>("pages-per-step", value: "n", help: "Pages copied per step of the online backup (a WAL database).",
                                              default: Int(BackupMaker.defaultPagesPerStep), in: 1...1_000_000)
        static let asIs = Flag("as-is", help: "Bundle a database that fails integrity, full-text or foreign-key checks, for analysis: the failures (counts and table names) are recorded in the manifest and the name ends in -as-is.tar.zst.")
        static let loadExtension = CommonOptions.loadExtension(help: "Load this SQLite extension into every connection to the database and its snapshot, for schemas that use it; the schema is then trusted only for innocuous functions (may be repeated).")
        static let checkFTS = Flag("check-fts", help: "Accepted for scripts written for earlier versions, and changes nothing: the full-text integrity-check (FTS5's rank 1, FTS3's and FTS4's own) always runs, as restore runs it.")
    }

    let invocation: Invocation<BackupMaker>

    init(_ values: ParsedValues) throws(CommandLineError) {
        let fleet = try FleetOptions.parse(values, databases: Opt.db)
        var options = BackupMaker.Options(
            databasePath: fleet == nil ? try FleetOptions.singleDatabase(values, Opt.db) : "", outputDirectory: try values.required(Opt.out))
        if fleet != nil && values.isPresent(Opt.name) {
            throw values.error("'--name' names one bundle; with many databases each bundle is named <db>-<path hash>-v<user_version>-<UTC time>.tar.zst")
        }
        if options.outputDirectory == "-" {
            options.toStandardOutput = true
            if fleet != nil { throw values.error("--out - writes one bundle to standard output; with many databases give a directory") }
            if values[CommonOptions.json] { throw values.error("--out - writes the bundle to standard output, so --json cannot go there too") }
            if values[Opt.name] != nil { throw values.error("--out - has no file to name; --name cannot be used with it") }
            if Terminal.isOutputInteractive {
                throw values.error("refusing to write a bundle to a terminal: redirect or pipe standard output (--out -)")
            }
        }
        options.keys = try KeyOptions.parse(values, encrypting: true)
        if let name = values[Opt.name] {
            if let problem = BackupMaker.problem(withBundleName: name, encrypted: options.keys.encrypts) {
                throw values.error(
                    "The value '\(name)' is invalid for '--name <file>': \(problem.message)\(problem.remedy.map(RemedyWording.suffix(for:)) ?? "")")
            }
            options.bundleName = name
        }
        options.compressionLevel = try values.required(Opt.level)
        options.timeout = try values.required(CommonOptions.timeout)
        options.pagesPerStep = Int32(try values.required(Opt.pagesPerStep))
        options.extensions = values[Opt.loadExtension]
        (options.ftsCheck, options.ftsWorkers) = try FullTextCheckOptions.parse(values, jobs: fleet?.jobs)
        if let fleet, fleet.jobs > 1 { options.threads = 1 }
        if values[Opt.asIs] {
            options.asIs = .integrityAndForeignKeys
            if let name = options.bundleName, !name.contains(BackupMaker.asIsMarker) {
                throw values.error("The value '\(name)' is invalid for '--name <file>': a bundle made with --as-is carries '\(BackupMaker.asIsMarker)' in its name")
            }
        }
        invocation = Invocation(options: options, fleet: fleet, output: OutputOptions(values),
                                handover: try Handover(values, inputs: Self.inputs(of: options)))
    }

    func run(on terminal: Terminal) throws -> Int32 {
        if fleet == nil && options.toStandardOutput { SignalTrap.ignoreBrokenPipes() }
        return try runOperation(on: terminal)
    }

    func deliver(_ report: BackupReport, status: Int32, on terminal: Terminal) throws {
        guard options.toStandardOutput else { return try printReport(report, status: status, on: terminal) }
        // Standard output carries the bundle.
        if !output.quiet { terminal.diagnose(Self.render(report)) }
    }

    /// One database of a fleet run; bundles carry the path's tag, since fleets share file names.
    static func options(_ options: BackupMaker.Options, for path: String) throws -> BackupMaker.Options {
        var options = options
        options.databasePath = path
        options.nameTag = try PathTag.of(path)
        return options
    }

    static func outcome(of report: BackupReport) -> String {
        "backed-up"
    }

    static func fleetDetail(_ report: BackupReport) -> String {
        "user_version \(report.manifest.source.userVersion), \(report.bundle.path)"
    }

    static func liveLine(for event: BackupMaker.Event) -> String? {
        switch event {
        case .copying(let pages, let total, let rate):
            let percent = total > 0 ? pages * 100 / total : 100
            return "copying \(pages) of \(Counted.phrase(total, "page")) (\(percent)%), \(rateText(rate))"
        case .copied:
            return "copied; source released"
        case .checking:
            return "checking, hashing and compressing the copy ..."
        case .bundling(let bytes, let total, let rate):
            let percent = total > 0 ? Int(bytes * 100 / total) : 100
            return "checking, hashing and compressing the copy: \(percent)% of "
                + "\(ReportOutput.bytes(total).split(separator: " (").first ?? "") compressed, \(rateText(rate))"
        case .published:
            return ""
        }
    }

    static func rateText(_ bytesPerSecond: Double) -> String {
        String(format: "%.1f MiB/s", bytesPerSecond / 1_048_576)
    }


    /// Which checks ran on a bundle's snapshot, from its manifest, in one line.
    static func checksRun(_ checks: BundleManifest.Checks) -> String {
        guard let names = checks.checksRun else {
            return "not recorded (a bundle made before Steward recorded them; its integrity_check may not have covered CHECK constraints)"
        }
        // The manifest keeps the bundle format's names; the text names each check as the
        // reports do.
        let ran = names.map { (CheckName(manifestName: $0), $0) }
        var parts = ran.map { check, recorded -> String in
            switch check {
            case .integrity: return "\(CheckName.integrity.rawValue) (CHECK constraints included)"
            case .ftsSync:
                let count = checks.fts5Tables?.count ?? 0
                let fts4 = checks.fts4Tables?.count ?? 0
                var tables: [String] = []
                // An old bundle records FTS5 tables only: its count is said even when 0.
                if count > 0 || fts4 == 0 { tables.append("\(count) FTS5 table\(count == 1 ? "" : "s")") }
                if fts4 > 0 { tables.append("\(fts4) FTS3/FTS4 table\(fts4 == 1 ? "" : "s")") }
                return "\(CheckName.ftsSync.rawValue) (\(tables.joined(separator: ", ")))"
            case let check?: return check.rawValue
            case nil: return ReportOutput.escaped(recorded)
            }
        }
        if !ran.contains(where: { $0.0 == .ftsSync }) { parts.append("no full-text integrity-check") }
        return parts.joined(separator: ", ")
    }

    /// What the run reads or writes into: no handover file may be one of them.
    static func inputs(of options: BackupMaker.Options) -> [ReportFile.Input] {
        var inputs: [ReportFile.Input] = []
        if !options.databasePath.isEmpty { inputs.append(.init("the database \(options.databasePath)", path: options.databasePath, kind: .database)) }
        if !options.toStandardOutput { inputs.append(.init("the output directory \(options.outputDirectory)", path: options.outputDirectory, kind: .directory)) }
        inputs += options.keys.recipientsFiles.map { .init("the recipients file \($0)", path: $0) }
        return inputs
    }

    static func subject(of options: BackupMaker.Options) -> String { options.databasePath }

    /// The source, the bundle and its SHA-256, and the checks.
    static func handoverSummary(_ report: BackupReport) -> [String] {
        let source = report.manifest.source
        var lines = ["- Source: `\(Markdown.code(source.fileName))`, user_version \(source.userVersion), \(Counted.phrase(source.pageCount, "page")) of \(source.pageSize) bytes",
                     "- Bundle: `\(Markdown.code(report.bundle.path))`, \(ReportOutput.bytes(report.bundle.sizeBytes)), SHA-256 `\(report.bundle.sha256)`"]
        for file in report.manifest.files {
            lines.append("- `\(Markdown.code(file.path))` in the bundle: \(ReportOutput.bytes(file.size)), SHA-256 `\(file.sha256)`")
        }
        lines.append("")
        return lines + Markdown.checks(report.checks)
    }

    static func render(_ report: BackupReport) -> String {
        let manifest = report.manifest
        let (snapshot, checks) = (manifest.snapshot, manifest.checks)
        var lines = [
            "Bundle      \(ReportOutput.escaped(report.bundle.path))",
            "            \(ReportOutput.bytes(report.bundle.sizeBytes)), sha256 \(report.bundle.sha256)",
        ]
        if let encryption = report.encryption {
            lines.append("Encrypted   age (\(encryption.format)), to \(encryption.describedRecipients); the manifest is inside")
        }
        lines.append("Source      \(ReportOutput.escaped(report.database.path)): \(ManifestWording.source(manifest.source))")
        lines.append("Snapshot    \(ReportOutput.seconds(snapshot.durationSeconds)) at \(ReportOutput.escaped(manifest.createdAt)); source held \(ReportOutput.seconds(snapshot.sourceHeldSeconds)), "
                     + "\(snapshot.restarts) restart\(snapshot.restarts == 1 ? "" : "s"), \(snapshot.steps) step\(snapshot.steps == 1 ? "" : "s") "
                     + "of up to \(Counted.phrase(snapshot.pagesPerStep, "page")), waited \(ReportOutput.seconds(snapshot.lockWaitSeconds)) for locks")
        lines.append("Checks      \(ManifestWording.checks(checks)) as in the source, journal mode \(checks.journalMode) "
                     + "(header \(checks.writeVersion), \(checks.readVersion)) in \(ReportOutput.seconds(checks.durationSeconds))")
        lines.append("            ran: \(checksRun(checks))")
        if let recorded = manifest.recordedFailures {
            lines.append("As is       bundled with its failures recorded in the manifest: \(ReportOutput.escaped(recorded.summary))")
        }
        for file in manifest.files {
            lines.append("Payload     \(ReportOutput.escaped(file.path))  \(ReportOutput.bytes(file.size))")
            lines.append("            sha256 \(file.sha256)")
        }
        lines.append("Bundling    \(ReportOutput.seconds(report.bundle.durationSeconds)) (checks, hash, zstd level \(report.bundle.compressionLevel) "
                     + "with \(report.bundle.threads) thread\(report.bundle.threads == 1 ? "" : "s"), "
                     + (report.bundle.path == "-" ? "written to standard output)" : "sync, rename)"))
        if !report.staleTemporariesRemoved.isEmpty {
            lines.append("Removed     stale temporaries of killed runs: \(report.staleTemporariesRemoved.map(ReportOutput.escaped).joined(separator: ", "))")
        }
        lines.append("Time        \(ReportOutput.seconds(report.totalSeconds))")
        return lines.joined(separator: "\n")
    }
}

import ArgumentKit
import StewardCore
import StewardBase

/// `steward inspect PATH`: what is inside a database file.
struct InspectCommand: OperationCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Show what is inside a SQLite database file or a Steward bundle.",
        discussion: """
            Reports the SQLite library and its FTS5 support, the database as a reader sees it \
            (user_version and the like, with a live -wal applied), the main file's header on disk, \
            which of -wal, -shm and -journal exist beside the file, tables with row counts, \
            indexes, triggers, views, and FTS5 tables with their options and sync triggers, and a \
            quick_check whose findings are a warning (exit status 0 still: verify proves). The \
            file is opened read-only and nothing is created beside it; an empty file is refused \
            (65). Row data is never printed. For a bundle (a file that \
            starts with zstd's magic bytes, whatever its name): the manifest, the entries, and \
            every SHA-256 verified by streaming through the bundle without extracting it; exit \
            status 65 when the bundle is damaged, altered or not a valid bundle. An encrypted bundle \
            (an age file) shows only its recipients' types unless --identity or a passphrase opens \
            it; 77 when those given do not.
            """,
        arguments: [Arg.path.definition],
        options: [Opt.digest, Opt.loadExtension] + KeyOptions.forDecryption + [CommonOptions.json])

    enum Arg {
        static let path = Argument("path", help: "The database file or bundle to inspect.")
    }

    enum Opt {
        static let loadExtension = CommonOptions.loadExtension(help: "Load this SQLite extension into the connection to the database, for schemas that use its modules or collations; the schema is then trusted only for innocuous functions (may be repeated; not used for a bundle).")
        static let digest = Flag("digest", help: "Print the content digests instead: per table a SHA-256 of its rows, and one of the schema; computed for a database, as recorded in the manifest for a bundle.")
    }

    let invocation: Invocation<Inspection>

    init(_ values: ParsedValues) throws(CommandLineError) {
        guard let path = values[Arg.path] else {
            throw values.error("Missing expected argument '<path>'")
        }
        var options = Inspection.Options(path: path)
        options.keys = try KeyOptions.parse(values, encrypting: false)
        options.digest = values[Opt.digest]
        options.extensions = values[Opt.loadExtension]
        invocation = Invocation(options: options, output: OutputOptions(values, quiet: false))
    }

    var trapsSignals: Bool { Inspection.isCancellable(options) }

    /// A bundle that does not verify is bad input (65); everything else shown is 0.
    static func exitStatus(of report: Inspection.Report) -> Int32 {
        guard case .bundle(let bundle) = report, !bundle.verification.passed else { return ExitCode.success }
        return ExitCode.dataError
    }

    /// A bundle that did not verify: its report with the error beside it (65).
    func deliver(_ report: Inspection.Report, status: Int32, on terminal: Terminal) throws {
        guard case .bundle(let bundle) = report, !bundle.verification.passed else {
            return try printReport(report, status: status, on: terminal)
        }
        let problem = bundle.verification.problem ?? "the bundle did not verify"
        let failing = ReportOutput.Failing(
            report: bundle, failure: .init(error: .init(kind: StewardError.Kind.badInput.rawValue, message: problem)))
        terminal.print(output.json ? try ReportOutput.json(failing, command: "inspect", exitCode: status) : Self.render(report))
        terminal.diagnose("Error: \(ReportOutput.escaped(problem))")
    }

    static func render(_ report: Inspection.Report) -> String {
        switch report {
        case .database(let report): Self.render(report)
        case .bundle(let report): Self.render(report)
        case .encryptedBundle(let report): Self.render(report)
        case .digests(let report): Self.render(report)
        }
    }

    static func render(_ report: DigestReport) -> String {
        var lines = ["\(report.kind == .bundle ? "Bundle " : "Database") \(ReportOutput.escaped(report.path))"]
        guard let digests = report.contentDigests else {
            lines.append("Digests  not recorded: the bundle was made before Steward recorded content digests")
            return lines.joined(separator: "\n")
        }
        lines.append("Digests  \(ReportOutput.escaped(digests.algorithm))\(report.kind == .bundle ? ", as recorded at backup" : "")")
        lines.append("Schema   \(digests.schema)")
        lines.append(ReportOutput.table(digests.tables.map { [ReportOutput.escaped($0.name), "\($0.rows) row\($0.rows == 1 ? "" : "s")", $0.sha256] }))
        return lines.joined(separator: "\n")
    }

    static func render(_ report: EncryptedBundleReport) -> String {
        [
            "Bundle     \(ReportOutput.escaped(report.bundle.path))",
            "Size       \(ReportOutput.bytes(report.bundle.sizeBytes))",
            "Encrypted  age (\(report.encryption.format)), to \(report.encryption.describedRecipients)",
            "           the manifest and the payload are inside the encryption; give --identity FILE, or",
            "           --passphrase-file or --passphrase-env for a passphrase, to see and verify them",
        ].joined(separator: "\n")
    }

    static func render(_ report: BundleInspectReport) -> String {
        var lines: [String] = []
        let manifest = report.manifest
        let snapshot = manifest.snapshot
        let checks = manifest.checks
        lines.append("Bundle     \(ReportOutput.escaped(report.bundle.path))")
        lines.append("Size       \(ReportOutput.bytes(report.bundle.sizeBytes))")
        if let encryption = report.encryption {
            lines.append("Encrypted  age (\(encryption.format)), to \(encryption.describedRecipients); decrypted and authenticated")
        }
        lines.append("Format     \(ReportOutput.escaped(manifest.format)) version \(manifest.formatVersion), made \(ReportOutput.escaped(manifest.createdAt)) "
                     + "by Steward \(ReportOutput.escaped(manifest.stewardVersion)), SQLite \(ReportOutput.escaped(manifest.sqliteVersion))")
        lines.append("Source     \(ReportOutput.escaped(manifest.source.fileName)): \(ManifestWording.source(manifest.source))")
        lines.append("Snapshot   \(ReportOutput.seconds(snapshot.durationSeconds)), source held \(ReportOutput.seconds(snapshot.sourceHeldSeconds)), "
                     + "\(snapshot.restarts) restart\(snapshot.restarts == 1 ? "" : "s")")
        lines.append("Checks     \(ManifestWording.checks(checks)), journal mode \(ReportOutput.escaped(checks.journalMode)) at backup")
        lines.append("           ran: \(BackupCommand.checksRun(checks))")
        if !report.entries.isEmpty {
            lines.append("")
            lines.append("Entries (\(report.entries.count))")
            lines.append(ReportOutput.table(report.entries.map { [$0.name, ReportOutput.bytes($0.size)] }))
        }
        lines.append("")
        lines.append("Files")
        for file in manifest.files {
            let verified = report.verification.files.first { $0.path == file.path }
            let state: String
            if let verified {
                state = verified.matches ? "sha256 verified" : "SHA-256 MISMATCH: read \(ReportOutput.escaped(verified.sha256))"
            } else {
                state = "not verified"
            }
            lines.append("  \(ReportOutput.escaped(file.path))  \(ReportOutput.bytes(file.size))")
            lines.append("    sha256 \(ReportOutput.escaped(file.sha256))  \(state)")
        }
        lines.append("")
        if report.verification.passed {
            lines.append("Verified   every SHA-256 matches the manifest (\(ReportOutput.seconds(report.verification.durationSeconds)); nothing extracted)")
        } else {
            lines.append("Verified   NO: \(ReportOutput.escaped(report.verification.problem ?? "unknown problem"))")
        }
        return lines.joined(separator: "\n")
    }

    static func render(_ report: InspectReport) -> String {
        var lines: [String] = []
        let fts = report.sqlite.fts5Available ? "FTS5 available" : "FTS5 NOT available"
        lines.append("Database   \(ReportOutput.escaped(report.database.path))")
        lines.append("SQLite     \(report.sqlite.version) (\(fts))")
        lines.append("Size       \(ReportOutput.bytes(report.file.sizeBytes))")
        let beside = [("-wal", report.file.walExists), ("-shm", report.file.shmExists),
                      ("-journal", report.file.journalExists)].filter(\.1).map(\.0)
        lines.append("Beside it  \(beside.isEmpty ? "no -wal, -shm or -journal" : beside.joined(separator: ", "))")

        let database = report.database
        lines.append("Reads as   page size \(database.pageSize), \(Counted.phrase(database.pageCount, "page")), \(database.freelistCount) free, \(database.textEncoding), auto-vacuum \(database.autoVacuum)")
        lines.append("           user_version \(database.userVersion), application_id \(database.applicationID), schema version \(database.schemaVersion), journal mode \(report.journalMode ?? "unknown")")
        let header = report.fileHeader
        lines.append("File header (the main file on disk, without the -wal applied)")
        lines.append("           page size \(header.pageSize), \(Counted.phrase(header.pageCount, "page")), \(header.freelistCount) free, \(header.textEncoding), auto-vacuum \(header.autoVacuum)")
        lines.append("           journal \(header.journalMode) (bytes 18-19 = \(header.writeVersion), \(header.readVersion)), schema format \(header.schemaFormat), written by SQLite \(header.writtenBySQLite)")
        lines.append("           user_version \(header.userVersion), application_id \(header.applicationID)")
        if report.file.openedAs == .immutable {
            lines.append("Opened     immutable (the main file alone, without locks; nothing created beside it)")
        }
        if let quick = report.quickCheck {
            lines.append("Quick check \(quick.passed ? "ok" : "found problems: the file is damaged")")
            lines.append(contentsOf: quick.problems.prefix(20).map { "           \(ReportOutput.escaped($0))" })
        }

        let tables = report.tables.filter { $0.type != .shadow }
        lines.append("")
        lines.append("Tables (\(tables.count))")
        if tables.isEmpty { lines.append("  none") } else { lines.append(ReportOutput.table(tables.map { table in
            let count: String
            if let rows = table.rowCount {
                count = "\(rows) row" + (rows == 1 ? "" : "s")
            } else if let error = table.error {
                count = "cannot count: \(error)"
            } else {
                count = table.type.rawValue
            }
            return [table.name, count]
        })) }
        let shadows = report.tables.filter { $0.type == .shadow }
        if !shadows.isEmpty {
            lines.append("  (\(shadows.count) FTS shadow tables: \(shadows.map { ReportOutput.escaped($0.name) }.joined(separator: ", ")))")
        }

        let indexes = report.indexes.filter { $0.origin != .primaryKey }
        if !indexes.isEmpty {
            lines.append("")
            lines.append("Indexes (\(indexes.count))")
            lines.append(ReportOutput.table(indexes.map { index in
                [index.name, "on \(index.table)(\(index.columns.joined(separator: ", ")))", index.isUnique ? "unique" : ""]
            }))
        }

        if !report.triggers.isEmpty {
            lines.append("")
            lines.append("Triggers (\(report.triggers.count))")
            lines.append(ReportOutput.table(report.triggers.map { [$0.name, "\($0.timing) \($0.event) on \($0.table)"] }))
        }

        if !report.views.isEmpty {
            lines.append("")
            lines.append("Views (\(report.views.count))")
            lines.append(contentsOf: report.views.map { "  \(ReportOutput.escaped($0))" })
        }

        if !report.ftsTables.isEmpty {
            lines.append("")
            lines.append("FTS5 tables (\(report.ftsTables.count))")
            for table in report.ftsTables {
                lines.append("  \(ReportOutput.escaped(table.name))")
                lines.append("    columns        \(table.columns.map(ReportOutput.escaped).joined(separator: ", "))")
                switch table.contentMode {
                case "external":
                    lines.append("    content        \(ReportOutput.escaped(table.content ?? "")) (external), content_rowid \(ReportOutput.escaped(table.contentRowID ?? "rowid"))")
                case "contentless":
                    lines.append("    content        none (contentless)")
                default:
                    lines.append("    content        stored in the FTS table")
                }
                lines.append("    tokenize       \(ReportOutput.escaped(table.tokenize))")
                let others = table.options.filter { !["content", "content_rowid", "tokenize"].contains($0.key) }
                if !others.isEmpty {
                    lines.append("    options        " + others.sorted { $0.key < $1.key }.map { "\(ReportOutput.escaped($0.key))=\(ReportOutput.escaped($0.value))" }.joined(separator: ", "))
                }
                if let sync = table.syncTriggers {
                    let parts = [("insert", sync.insert), ("delete", sync.delete), ("update", sync.update)].map { event, name in
                        "\(event) \(name.map(ReportOutput.escaped) ?? "MISSING")"
                    }
                    lines.append("    sync triggers  \(parts.joined(separator: ", "))")
                }
            }
        }

        if !report.warnings.isEmpty {
            lines.append("")
            lines.append("Warnings")
            lines.append(contentsOf: report.warnings.map { "  - \(ReportOutput.escaped($0))" })
        }
        return lines.joined(separator: "\n")
    }
}

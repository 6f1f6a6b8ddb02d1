import Foundation
import SQLiteKit
import Testing
import TestSupport

enum JSONValidator {
    static let isInstalled = (try? systemTool(["python3", "-c", "import jsonschema"]))?.status == 0
    static let schema = Fixtures.repositoryRoot.appendingPathComponent("schema/steward.schema.json").path

    /// Validates every output in one run of the real validator (Debian's python3-jsonschema,
    /// draft 2020-12): an NDJSON output line by line. Returns one message per invalid
    /// object, `label: message at path`; empty when all are valid.
    static func problems(_ outputs: [(label: String, json: String)], in directory: TemporaryDirectory) throws -> [String] {
        var files: [String] = []
        for (index, output) in outputs.enumerated() {
            let file = directory.file("output-\(index).json")
            try Data(output.json.utf8).write(to: URL(fileURLWithPath: file))
            files.append(file)
        }
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            validator = jsonschema.Draft202012Validator(schema)
            labels = sys.argv[2].split("\\n")
            for label, name in zip(labels, sys.argv[3:]):
                text = open(name).read()
                lines = [line for line in text.split("\\n") if line.strip()]
                objects = [json.loads(text)] if text.lstrip().startswith("{\\n") else [json.loads(line) for line in lines]
                if not objects:
                    print(label + ": no JSON at all")
                for number, value in enumerate(objects):
                    errors = list(validator.iter_errors(value))
                    if errors:
                        best = jsonschema.exceptions.best_match(errors)
                        path = "/".join(str(part) for part in best.absolute_path)
                        print("%s (object %d): %s at /%s" % (label, number + 1, best.message[:400], path))
            """
        let labels = outputs.map { $0.label.replacingOccurrences(of: "\n", with: " ") }.joined(separator: "\n")
        let (status, output) = try systemTool(["python3", "-c", script, schema, labels] + files)
        guard status == 0 else { return ["the validator failed: \(output)"] }
        return output.split(separator: "\n").map(String.init)
    }
}

/// Every command's `--json` output, in every outcome, and every line of a run over many
/// databases, validates against schema/steward.schema.json with a real validator: the
/// envelope and each command's report, with `additionalProperties: false` at every level.
@Suite(.enabled(if: JSONValidator.isInstalled, "python3 with the jsonschema module (python3-jsonschema) is not installed"))
struct JSONEnvelopeTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(database: "documents.sqlite", making: [])
        try JSONSchemaFixture.writeMigrations(into: migrations)
    }

    /// The outputs of one test, each with the exit status and `status` it must have.
    final class Outputs {
        var items: [(label: String, json: String)] = []
        let directory: TemporaryDirectory

        init(_ directory: TemporaryDirectory) {
            self.directory = directory
        }

        /// Runs steward, checks the exit status and the envelope's `status` and
        /// `exitCode`, and keeps stdout for the validator.
        @discardableResult
        func run(
            _ label: String, _ arguments: [String], status: Int32, outcome: String,
            environment: [String: String] = [:]
        ) throws -> [String: Any] {
            let run = try StewardProcess.run(arguments, environment: environment)
            #expect(run.status == status, "\(label): \(run.allOutput)")
            items.append((label, run.stdout))
            let object = try #require(try? run.json(), "\(label): \(run.stdout)")
            #expect(object["status"] as? String == outcome, "\(label)")
            #expect(object["exitCode"] as? Int == Int(status), "\(label)")
            #expect(object["schemaVersion"] as? Int == 1, "\(label)")
            if outcome == "error" { #expect(object["error"] != nil, "\(label): an error carries error") }
            return object
        }

        /// A run over many databases: NDJSON, every line checked by the validator.
        func lines(_ label: String, _ arguments: [String], status: Int32) throws -> [[String: Any]] {
            let run = try StewardProcess.run(arguments)
            #expect(run.status == status, "\(label): \(run.allOutput)")
            items.append((label, run.stdout))
            return try run.stdout.split(separator: "\n").map { line in
                try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(label): \(line)")
            }
        }

        func expectValid() throws {
            let problems = try JSONValidator.problems(items, in: directory)
            #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
        }
    }

    static func path(_ object: [String: Any]?, _ key: String) -> String? {
        (object?[key] as? [String: Any])?["path"] as? String
    }

    @Test func migrateInEveryOutcome() throws {
        let outputs = Outputs(directory)
        let created = try outputs.run("migrate --create", ["migrate", "--db", database, "--migrations", migrations, "--create", "--to", "1", "--json"], status: 0, outcome: "ok")
        #expect(created["outcome"] as? String == "created")
        #expect(Self.path(created, "database") == database)
        let pending = try outputs.run("migrate --status", ["migrate", "--db", database, "--migrations", migrations, "--status", "--json"], status: 0, outcome: "ok")
        #expect(pending["outcome"] as? String == "pending")
        let dryRun = try outputs.run("migrate --dry-run", ["migrate", "--db", database, "--migrations", migrations, "--dry-run", "--json"], status: 0, outcome: "ok")
        #expect(dryRun["outcome"] as? String == "would-migrate")
        let backups = directory.file("backups")
        try FileManager.default.createDirectory(atPath: backups, withIntermediateDirectories: false)
        let migrated = try outputs.run("migrate --backup-dir", ["migrate", "--db", database, "--migrations", migrations, "--backup-dir", backups, "--json"], status: 0, outcome: "ok")
        #expect(migrated["outcome"] as? String == "migrated")
        #expect(Self.path(migrated, "bundle") != nil, "the rollback bundle is `bundle`, an object with path")
        let current = try outputs.run("migrate, current", ["migrate", "--db", database, "--migrations", migrations, "--json"], status: 0, outcome: "ok")
        #expect(current["outcome"] as? String == "current")
        try outputs.run("migrate --status, current", ["migrate", "--db", database, "--migrations", migrations, "--status", "--json"], status: 0, outcome: "ok")

        // Drift: refused (65), then allowed and reported.
        let drifted = directory.file("drifted.sqlite")
        try outputs.run("migrate --create drifted", ["migrate", "--db", drifted, "--migrations", migrations, "--create", "--to", "1", "--json"], status: 0, outcome: "ok")
        try Connection(path: drifted).execute(sql: "CREATE TABLE by_hand(x)")
        let refused = try outputs.run("migrate, drift refused", ["migrate", "--db", drifted, "--migrations", migrations, "--json"], status: 65, outcome: "error")
        #expect((refused["error"] as? [String: Any])?["kind"] as? String == "bad-input")
        let allowed = try outputs.run("migrate --allow-drift", ["migrate", "--db", drifted, "--migrations", migrations, "--allow-drift", "--json"], status: 0, outcome: "ok")
        #expect((allowed["schema"] as? [String: Any])?["status"] as? String == "drift")

        // A migration that fails, and a database that is not there.
        let broken = directory.file("broken-migrations")
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: false)
        try Data("CREATE TABLE oops(;\n".utf8).write(to: URL(fileURLWithPath: broken + "/0001_oops.sql"))
        try outputs.run("migrate, failing SQL", ["migrate", "--db", directory.file("new.sqlite"), "--migrations", broken, "--create", "--json"], status: 65, outcome: "error")
        try outputs.run("migrate, not found", ["migrate", "--db", directory.file("absent.sqlite"), "--migrations", migrations, "--json"], status: 66, outcome: "error")

        // Many databases: one line per database (migrated, current, failed) and the summary.
        let old = directory.file("old.sqlite")
        try outputs.run("migrate --create old", ["migrate", "--db", old, "--migrations", migrations, "--create", "--to", "1", "--json"], status: 0, outcome: "ok")
        let lines = try outputs.lines("migrate, many databases", [
            "migrate", "--db", old, "--db", database, "--db", directory.file("absent.sqlite"), "--migrations", migrations,
            "--backup-dir", backups, "--jobs", "2", "--json",
        ], status: 66)
        let byPath = Dictionary(lines.compactMap { line in Self.path(line, "database").map { ($0, line) } }, uniquingKeysWith: { first, _ in first })
        #expect(byPath[old]?["outcome"] as? String == "migrated")
        #expect(byPath[old]?["kind"] as? String == "database")
        #expect(Self.path(byPath[old], "bundle") != nil)
        #expect(byPath[database]?["outcome"] as? String == "current")
        #expect(byPath[directory.file("absent.sqlite")]?["status"] as? String == "error")
        let summary = try #require(lines.last)
        #expect(summary["kind"] as? String == "summary")
        #expect(summary["command"] as? String == "migrate")
        #expect(summary["status"] as? String == "failed")
        #expect(summary["schemaVersion"] as? Int == 1)
        _ = try outputs.lines("migrate --status --shard", ["migrate", "--db", old, "--db", database, "--migrations", migrations, "--status", "--shard", "1/2", "--json"], status: 0)
        try outputs.expectValid()
    }

    @Test func verifyAndBackupInEveryOutcome() throws {
        let outputs = Outputs(directory)
        _ = try Fixtures.makeExampleDatabase(at: database)
        try outputs.run("verify, pass", ["verify", "--db", database, "--json"], status: 0, outcome: "ok")
        try outputs.run("verify, fail", ["verify", "--db", database, "--expect-version", "999", "--json"], status: 1, outcome: "failed")
        try outputs.run("verify, error", ["verify", "--db", directory.file("absent.sqlite"), "--json"], status: 66, outcome: "error")
        let orphans = directory.file("orphans.sqlite")
        do {
            let connection = try Connection(path: orphans)
            try connection.execute(sql: """
                CREATE TABLE parent(id INTEGER PRIMARY KEY);
                CREATE TABLE child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id));
                INSERT INTO child VALUES (1, 42);
                """)
        }
        let verifyLines = try outputs.lines("verify, many databases", ["verify", "--db", database, "--db", orphans, "--db", directory.file("absent.sqlite"), "--json"], status: 1)
        #expect(verifyLines.filter { $0["kind"] as? String == "database" }.count == 3)
        #expect(verifyLines.contains { $0["outcome"] as? String == "passed" && $0["status"] as? String == "ok" })
        #expect(verifyLines.contains { $0["outcome"] as? String == "failed" && $0["status"] as? String == "failed" })

        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        let backup = try outputs.run("backup", ["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--json"], status: 0, outcome: "ok")
        #expect(Self.path(backup, "database") == database)
        try outputs.run("backup, refused", ["backup", "--db", orphans, "--out", out, "--json"], status: 1, outcome: "failed")
        try outputs.run("backup --as-is", ["backup", "--db", orphans, "--out", out, "--as-is", "--json"], status: 0, outcome: "ok")
        try outputs.run("backup, encrypted", ["backup", "--db", database, "--out", out, "--name", "e.tar.zst.age", "--passphrase-env", "PASSPHRASE", "--json"],
                        status: 0, outcome: "ok", environment: ["PASSPHRASE": "correct horse", "STEWARD_TEST_HOOK_SCRYPT_WORK_FACTOR": "12"])
        try outputs.run("backup, no directory", ["backup", "--db", database, "--out", directory.file("no-such-dir"), "--json"], status: 73, outcome: "error")
        let fleet = directory.file("fleet")
        try FileManager.default.createDirectory(atPath: fleet, withIntermediateDirectories: false)
        _ = try outputs.lines("backup, many databases", ["backup", "--db", database, "--db", orphans, "--out", fleet, "--json"], status: 1)
        try outputs.expectValid()
    }

    @Test func restoreInEveryOutcome() throws {
        let outputs = Outputs(directory)
        _ = try Fixtures.makeExampleDatabase(at: database)
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        try outputs.run("backup", ["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--json"], status: 0, outcome: "ok")
        let bundle = out + "/b.tar.zst"
        let restored = try outputs.run("restore", ["restore", bundle, "--into", directory.file("restored"), "--json"], status: 0, outcome: "ok")
        #expect(Self.path(restored, "bundle") == bundle)
        #expect(Self.path(restored, "database") == directory.file("restored") + "/data/documents.sqlite")
        try outputs.run("restore --check-only", ["restore", bundle, "--check-only", "--json"], status: 0, outcome: "ok")
        let replaced = directory.file("replaced.sqlite")
        try FileManager.default.copyItem(atPath: database, toPath: replaced)
        let replace = try outputs.run("restore --replace", ["restore", bundle, "--replace", replaced, "--json"], status: 0, outcome: "ok")
        #expect(Self.path(replace, "database") == replaced)

        let orphans = directory.file("orphans.sqlite")
        try Connection(path: orphans).execute(sql: """
            CREATE TABLE parent(id INTEGER PRIMARY KEY);
            CREATE TABLE child(id INTEGER PRIMARY KEY, parent INTEGER REFERENCES parent(id));
            INSERT INTO child VALUES (1, 42);
            """)
        try outputs.run("backup --as-is", ["backup", "--db", orphans, "--out", out, "--name", "orphans-as-is.tar.zst", "--as-is", "--json"], status: 0, outcome: "ok")
        let asIs = out + "/orphans-as-is.tar.zst"
        try outputs.run("restore, refused", ["restore", asIs, "--into", directory.file("r1"), "--json"], status: 1, outcome: "failed")
        try outputs.run("restore --accept-recorded-failures", ["restore", asIs, "--into", directory.file("r2"), "--accept-recorded-failures", "--json"], status: 0, outcome: "ok")
        try outputs.run("restore, not found", ["restore", directory.file("absent.tar.zst"), "--into", directory.file("r3"), "--json"], status: 66, outcome: "error")

        let environment = ["PASSPHRASE": "correct horse", "STEWARD_TEST_HOOK_SCRYPT_WORK_FACTOR": "12"]
        try outputs.run("backup, encrypted", ["backup", "--db", database, "--out", out, "--name", "e.tar.zst.age", "--passphrase-env", "PASSPHRASE", "--json"],
                        status: 0, outcome: "ok", environment: environment)
        try outputs.run("restore, encrypted", ["restore", out + "/e.tar.zst.age", "--into", directory.file("r4"), "--passphrase-env", "PASSPHRASE", "--json"],
                        status: 0, outcome: "ok", environment: environment)
        try outputs.run("restore, encrypted without a key", ["restore", out + "/e.tar.zst.age", "--into", directory.file("r5"), "--json"], status: 77, outcome: "error")
        try outputs.expectValid()
    }

    @Test func inspectInEveryOutcome() throws {
        let outputs = Outputs(directory)
        _ = try Fixtures.makeExampleDatabase(at: database)
        let inspected = try outputs.run("inspect", ["inspect", database, "--json"], status: 0, outcome: "ok")
        #expect(Self.path(inspected, "database") == database)
        #expect(inspected["path"] == nil, "the path is the database's, not the report's")
        try outputs.run("inspect --digest", ["inspect", database, "--digest", "--json"], status: 0, outcome: "ok")
        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        try outputs.run("backup", ["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--json"], status: 0, outcome: "ok")
        let bundle = out + "/b.tar.zst"
        let inspectedBundle = try outputs.run("inspect bundle", ["inspect", bundle, "--json"], status: 0, outcome: "ok")
        #expect(Self.path(inspectedBundle, "bundle") == bundle)
        try outputs.run("inspect --digest bundle", ["inspect", bundle, "--digest", "--json"], status: 0, outcome: "ok")

        var altered = try BundleParts(reading: bundle)
        altered.payload[altered.payload.count / 2] ^= 0x01
        let damaged = directory.file("damaged.tar.zst")
        try altered.bundle(to: damaged)
        let failed = try outputs.run("inspect, damaged bundle", ["inspect", damaged, "--json"], status: 65, outcome: "error")
        #expect((failed["error"] as? [String: Any])?["kind"] as? String == "bad-input")
        #expect((failed["verification"] as? [String: Any])?["passed"] as? Bool == false)

        let environment = ["PASSPHRASE": "correct horse", "STEWARD_TEST_HOOK_SCRYPT_WORK_FACTOR": "12"]
        try outputs.run("backup, encrypted", ["backup", "--db", database, "--out", out, "--name", "e.tar.zst.age", "--passphrase-env", "PASSPHRASE", "--json"],
                        status: 0, outcome: "ok", environment: environment)
        try outputs.run("inspect, encrypted without a key", ["inspect", out + "/e.tar.zst.age", "--json"], status: 0, outcome: "ok")
        try outputs.run("inspect, encrypted with its key", ["inspect", out + "/e.tar.zst.age", "--passphrase-env", "PASSPHRASE", "--json"],
                        status: 0, outcome: "ok", environment: environment)
        try outputs.run("inspect, not found", ["inspect", directory.file("absent.sqlite"), "--json"], status: 66, outcome: "error")
        try outputs.expectValid()
    }

    @Test func reportVersionAndUsageErrors() throws {
        let outputs = Outputs(directory)
        try outputs.run("migrate --create", ["migrate", "--db", database, "--migrations", migrations, "--create", "--to", "1", "--json"], status: 0, outcome: "ok")
        let second = directory.file("second.sqlite")
        try FileManager.default.copyItem(atPath: database, toPath: second)
        let fleet = try StewardProcess.run(["migrate", "--db", database, "--db", second, "--db", directory.file("absent.sqlite"), "--migrations", migrations, "--json"])
        #expect(fleet.status == 66, "\(fleet.allOutput)")
        let lines = directory.file("fleet.ndjson")
        try fleet.stdout.write(toFile: lines, atomically: true, encoding: .utf8)
        let report = try outputs.run("report", ["report", lines, "--json"], status: 66, outcome: "failed")
        #expect(report["databases"] as? Int == 3)
        let failures = try #require(report["failures"] as? [[String: Any]])
        #expect(Self.path(failures.first, "database") == directory.file("absent.sqlite"))
        let passing = directory.file("passing.ndjson")
        try fleet.stdout.split(separator: "\n").filter { !$0.contains("absent.sqlite") && !$0.contains("\"summary\"") }
            .joined(separator: "\n").write(toFile: passing, atomically: true, encoding: .utf8)
        try outputs.run("report, all passed", ["report", passing, "--json"], status: 0, outcome: "ok")
        let garbage = directory.file("garbage.ndjson")
        try "{\"kind\": \"other\"}\n".write(toFile: garbage, atomically: true, encoding: .utf8)
        try outputs.run("report, not fleet lines", ["report", garbage, "--json"], status: 65, outcome: "error")

        for arguments in [["--version", "--json"], ["--json", "--version"]] {
            let version = try outputs.run("steward \(arguments.joined(separator: " "))", arguments, status: 0, outcome: "ok")
            #expect(version["command"] as? String == "version")
            #expect((version["versionText"] as? String)?.hasPrefix(version["stewardVersion"] as? String ?? "?") == true)
        }
        for arguments in [
            ["verify", "--frobnicate", "--json"], ["migrate", "--json"], ["backup", "--json"], ["restore", "--json"],
            ["inspect", "--json"], ["report", "--json"], ["frobnicate", "--json"], ["--json"],
            ["migrate", "--help", "--json"], ["completions", "--json", "-h"], ["--help", "--json"],
        ] {
            let usage = try outputs.run("steward \(arguments.joined(separator: " "))", arguments, status: 64, outcome: "error")
            #expect((usage["error"] as? [String: Any])?["kind"] as? String == "usage", "\(arguments)")
        }
        try outputs.expectValid()
    }

    /// The schema is strict: a real output with one field renamed, at the top level or
    /// deeper, or with a field added, no longer validates.
    @Test func aRenamedFieldFailsValidation() throws {
        _ = try Fixtures.makeExampleDatabase(at: database)
        let run = try StewardProcess.run(["inspect", database, "--json"])
        try #require(run.status == 0, "\(run.allOutput)")
        let migrate = try StewardProcess.run(["migrate", "--db", directory.file("new.sqlite"), "--migrations", migrations, "--create", "--json"])
        try #require(migrate.status == 0, "\(migrate.allOutput)")
        let fleet = try StewardProcess.run(["verify", "--db", database, "--db", directory.file("absent.sqlite"), "--jobs", "1", "--json"])
        let fleetLines = fleet.stdout.split(separator: "\n").map(String.init)
        try #require(fleetLines.count == 3, "\(fleet.allOutput)")

        func object(_ text: String) throws -> [String: Any] {
            try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        }
        func text(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        func renamed(_ text: String, _ path: [String], to name: String) throws -> [String: Any] {
            func rename(_ object: [String: Any], _ path: ArraySlice<String>) -> [String: Any] {
                var object = object
                guard let key = path.first else { return object }
                if path.count == 1 {
                    object[name] = object.removeValue(forKey: key)
                } else if let inner = object[key] as? [String: Any] {
                    object[key] = rename(inner, path.dropFirst())
                }
                return object
            }
            let original = try object(text)
            let changed = rename(original, path[...])
            #expect(NSDictionary(dictionary: changed) != NSDictionary(dictionary: original), "\(path) is in the output")
            return changed
        }

        var valid: [(label: String, json: String)] = [("inspect", run.stdout), ("migrate", migrate.stdout)]
        valid += fleetLines.enumerated().map { ("verify line \($0.offset + 1)", $0.element) }
        #expect(try JSONValidator.problems(valid, in: directory).isEmpty, "the outputs themselves are valid")

        var broken: [(label: String, json: String)] = []
        for (path, name) in [(["exitCode"], "exit_code"), (["schemaVersion"], "version"), (["database", "path"], "file"),
                             (["database", "pageSize"], "page_size"), (["sqlite", "fts5Available"], "fts5")] {
            broken.append(("inspect: \(path) renamed \(name)", try text(try renamed(run.stdout, path, to: name))))
        }
        broken.append(("migrate: outcome renamed result", try text(try renamed(migrate.stdout, ["outcome"], to: "result"))))
        broken.append(("migrate: database.path renamed name", try text(try renamed(migrate.stdout, ["database", "path"], to: "name"))))
        broken.append(("verify line: kind renamed type", try text(try renamed(fleetLines[0], ["kind"], to: "type"))))
        broken.append(("failure line: error.kind renamed code", try text(try renamed(fleetLines[1], ["error", "kind"], to: "code"))))
        broken.append(("summary line: notStarted renamed pending", try text(try renamed(fleetLines[2], ["notStarted"], to: "pending"))))
        var added = try object(run.stdout)
        added["extra"] = true
        broken.append(("inspect: a field added", try text(added)))
        var string = try object(migrate.stdout)
        string["database"] = directory.file("new.sqlite")
        broken.append(("migrate: database as a string, as before", try text(string)))

        let problems = try JSONValidator.problems(broken, in: directory)
        for label in broken.map(\.label) {
            #expect(problems.contains { $0.hasPrefix(label + " (object") }, "\(label) must fail validation; got: \(problems)")
        }
    }
}

import Foundation
import Testing
import TestSupport

enum JSONValidator {
    static let isInstalled = (try? systemTool(["python3", "-c", "import jsonschema"]))?.status == 0
}

/// Every command's `--json` output, whatever the outcome, validates against
/// schema/steward.schema.json with a real validator (Debian's python3-jsonschema).
@Suite(.enabled(if: JSONValidator.isInstalled, "python3 with the jsonschema module (python3-jsonschema) is not installed"))
struct JSONEnvelopeTests {
    static let schema = Fixtures.repositoryRoot.appendingPathComponent("schema/steward.schema.json").path

    let directory: TemporaryDirectory
    var database: String { directory.file("documents.sqlite") }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The validator's verdict on `json`: nil when valid, else its message.
    func problem(with json: String) throws -> String? {
        let file = directory.file("output-\(UUID().uuidString).json")
        try Data(json.utf8).write(to: URL(fileURLWithPath: file))
        let script = """
            import json, sys, jsonschema
            schema = json.load(open(sys.argv[1]))
            jsonschema.Draft202012Validator.check_schema(schema)
            jsonschema.validate(json.load(open(sys.argv[2])), schema, cls=jsonschema.Draft202012Validator)
            """
        let (status, output) = try systemTool(["python3", "-c", script, Self.schema, file])
        return status == 0 ? nil : output
    }

    /// Runs steward with `arguments`, expects `status`, and checks the envelope of stdout.
    @discardableResult
    func check(_ arguments: [String], status: Int32, outcome: String) throws -> [String: Any] {
        let run = try StewardProcess.run(arguments)
        #expect(run.status == status, "\(arguments): \(run.allOutput)")
        #expect(try problem(with: run.stdout) == nil, "\(arguments)")
        let object = try run.json()
        #expect(object["status"] as? String == outcome, "\(arguments)")
        #expect(object["exitCode"] as? Int == Int(status), "\(arguments)")
        #expect(object["schemaVersion"] as? Int == 1)
        return object
    }

    @Test func everyCommandAndOutcomeCarriesTheEnvelope() throws {
        let migrations = directory.file("migrations")
        try JSONSchemaFixture.writeMigrations(into: migrations)
        try check(["migrate", "--db", database, "--migrations", migrations, "--create", "--json"], status: 0, outcome: "ok")
        try check(["migrate", "--db", database, "--migrations", migrations, "--status", "--json"], status: 0, outcome: "ok")
        try check(["verify", "--db", database, "--json"], status: 0, outcome: "ok")
        try check(["verify", "--db", database, "--expect-version", "999", "--json"], status: 1, outcome: "failed")
        try check(["inspect", database, "--json"], status: 0, outcome: "ok")

        let out = directory.file("out")
        try FileManager.default.createDirectory(atPath: out, withIntermediateDirectories: false)
        try check(["backup", "--db", database, "--out", out, "--name", "b.tar.zst", "--json"], status: 0, outcome: "ok")
        let bundle = directory.file("out/b.tar.zst")
        try check(["inspect", bundle, "--json"], status: 0, outcome: "ok")
        try check(["inspect", bundle, "--digest", "--json"], status: 0, outcome: "ok")
        try check(["restore", bundle, "--check-only", "--json"], status: 0, outcome: "ok")
        try check(["restore", bundle, "--into", directory.file("restored"), "--json"], status: 0, outcome: "ok")

        // `report` reads a fleet run's lines (NDJSON, whose lines do not carry the envelope yet).
        let second = directory.file("second.sqlite")
        try FileManager.default.copyItem(atPath: database, toPath: second)
        let fleet = try StewardProcess.run(["migrate", "--db", database, "--db", second, "--migrations", migrations, "--json"])
        #expect(fleet.status == 0, "\(fleet.allOutput)")
        let lines = directory.file("fleet.ndjson")
        try fleet.stdout.write(toFile: lines, atomically: true, encoding: .utf8)
        try check(["report", lines, "--json"], status: 0, outcome: "ok")

        // Errors and usage errors carry it too, with their error object.
        let missing = try check(["inspect", directory.file("absent.sqlite"), "--json"], status: 66, outcome: "error")
        #expect((missing["error"] as? [String: Any])?["kind"] as? String == "not-found")
        try check(["backup", "--db", database, "--out", directory.file("no-such-dir"), "--json"], status: 73, outcome: "error")
        try check(["restore", directory.file("absent.tar.zst"), "--into", directory.file("r2"), "--json"], status: 66, outcome: "error")
        let usage = try check(["verify", "--frobnicate", "--json"], status: 64, outcome: "error")
        #expect((usage["error"] as? [String: Any])?["kind"] as? String == "usage")
        try check(["migrate", "--json"], status: 64, outcome: "error")
        let version = try check(["--version", "--json"], status: 0, outcome: "ok")
        #expect(version["command"] as? String == "steward")
        #expect((version["version"] as? String)?.hasPrefix(version["stewardVersion"] as? String ?? "?") == true)
    }

    @Test func aRenamedEnvelopeFieldFailsValidation() throws {
        _ = try Fixtures.makeExampleDatabase(at: database)
        let run = try StewardProcess.run(["inspect", database, "--json"])
        try #require(run.status == 0, "\(run.allOutput)")
        #expect(try problem(with: run.stdout) == nil)
        for (field, renamed) in [("exitCode", "exit_code"), ("schemaVersion", "version"), ("sqliteVersion", "sqlite_version")] {
            var object = try run.json()
            object[renamed] = object.removeValue(forKey: field)
            let text = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            #expect(try problem(with: text) != nil, "renaming \(field) to \(renamed)")
        }
    }
}

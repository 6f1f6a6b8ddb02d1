import Foundation
import StewardKit
import TestSupport
import Testing

/// A StewardKit report's checks and contract cases are the objects the command line's
/// JSON holds: each validates against schema/steward.schema.json (`$defs/check`, verify's
/// `contractCases`), whose objects allow no other property.
@Suite struct ReportSchemaTests {
    static let isInstalled = (try? systemTool(["python3", "-c", "import jsonschema"]))?.status == 0

    static let validator = """
        import json, sys, jsonschema
        schema = json.load(open(sys.argv[1]))
        verify = next(d for d in schema["$defs"].values()
                      if isinstance(d, dict) and d.get("properties", {}).get("command", {}).get("const") == "verify")
        part = {"$schema": schema.get("$schema"), "$defs": schema["$defs"], "type": "object",
                "properties": {"checks": {"type": "array", "items": {"$ref": "#/$defs/check"}},
                               "failedChecks": {"type": "array", "items": {"$ref": "#/$defs/checkName"}},
                               "contractCases": verify["properties"]["contractCases"]}}
        report = json.load(open(sys.argv[2]))
        jsonschema.Draft202012Validator(part).validate(report)
        print(len(report["checks"]), len(report["contractCases"]))
        """

    @Test(.enabled(if: isInstalled, "python3-jsonschema is not installed"))
    func checksAndCasesValidateAgainstTheCommandLinesSchema() throws {
        let directory = try TemporaryDirectory(prefix: "steward-kit-schema")
        let app = try AppConnection(path: directory.file("app.sqlite"))
        try app.createTicketDatabase()
        let contract = directory.file("app.contract.json")
        try AppContract.text.write(toFile: contract, atomically: true, encoding: .utf8)
        let steward = BorrowedConnection(sqliteConnection: app.handle)
        let schema = Fixtures.repositoryRoot.appendingPathComponent("schema/steward.schema.json").path
        let script = directory.file("validate.py")
        try Self.validator.write(toFile: script, atomically: true, encoding: .utf8)
        try app.driftIndex()
        for (name, report) in [("contract", try steward.check(contractAt: contract)), ("backup", try steward.proveBackup())] {
            let path = directory.file("\(name).json")
            try report.json().write(to: URL(fileURLWithPath: path))
            let run = try systemTool(["python3", script, schema, path])
            #expect(run.status == 0, "\(name): \(run.output)")
        }
    }
}

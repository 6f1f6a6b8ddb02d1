import Foundation
import StewardCore
import Testing
import TestSupport

/// `steward report` reads the NDJSON of fleet runs: lines with the envelope, whose database
/// is `database.path`, and the lines written before it (`path`, or `database` as a string).
@Suite struct FleetReportTests {
    @Test func readsTodaysLinesAndThoseWrittenBeforeTheEnvelope() throws {
        let directory = try TemporaryDirectory()
        let lines = [
            #"{"kind":"database","command":"migrate","status":"ok","exitCode":0,"outcome":"migrated","database":{"path":"/srv/a/app.db"},"schemaVersion":1}"#,
            #"{"kind":"database","command":"migrate","status":"error","exitCode":66,"outcome":"failed","database":{"path":"/srv/b/app.db"},"error":{"kind":"not-found","message":"no such database"}}"#,
            // Before the envelope: `path` beside the report's `database` string, and the
            // failure line's `database` as a string.
            #"{"kind":"database","command":"verify","path":"/srv/c/app.db","status":"failed","exitCode":1,"outcome":"failed","failedChecks":["integrity"]}"#,
            #"{"kind":"database","command":"backup","database":"/srv/d/app.db","status":"error","exitCode":1,"outcome":"failed","error":{"kind":"check-failed","message":"refused"}}"#,
            #"{"kind":"summary","command":"migrate","notStarted":2,"exitCode":1}"#,
        ]
        let file = directory.file("fleet.ndjson")
        try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: URL(fileURLWithPath: file))
        let report = try FleetReport.read([file])
        #expect(report.databases == 4)
        #expect(report.succeeded == 1)
        #expect(report.notStarted == 2)
        #expect(report.failures.map(\.database.path) == ["/srv/b/app.db", "/srv/c/app.db", "/srv/d/app.db"])
        #expect(report.failures.map(\.message) == ["no such database", "failed: integrity", "refused"])
        #expect(report.exitCodes == ["66": 1, "1": 2])
        #expect(report.exitCode == 1)
    }
}

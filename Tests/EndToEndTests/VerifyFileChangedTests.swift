import Foundation
import SQLiteKit
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A database file that another program cuts short while verify reads it in place for
/// FTS5's check (issue 25, item 7): an I/O error (74) with a report, never a signal.
@Suite struct VerifyFileChangedTests: WorkspaceSuite {
    let workspace: Workspace

    init() throws {
        workspace = try Workspace(database: "tickets.db", making: [])
        let connection = try Fixtures.makeExampleDatabase(at: database)
        // Enough rows for FTS5's index to take many pages, which its check reads.
        try connection.execute(sql: """
            INSERT INTO ticket (title, body)
            WITH RECURSIVE n(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM n WHERE x < 4000)
            SELECT printf('Ticket %d printer %d', x, x % 97), printf('Customer %d reports error %d in module %d', x, x % 211, x % 13) FROM n
            """)
    }

    /// Cut to one page (text) or to nothing (JSON) while FTS5's check is about to read it.
    @Test(arguments: [(4096, false), (0, true)])
    func aFileCutShortDuringFTS5sCheckIs74WithAReport(_ size: Int, _ json: Bool) throws {
        let before = try FileManager.default.attributesOfItem(atPath: database)[.size] as? Int ?? 0
        #expect(before > 100 * 4096)
        var arguments = ["verify", "--db", database, "--quiet"]
        if json { arguments.append("--json") }
        let paused = try PausedSteward(arguments, at: "verify-fts-check", marker: directory.file("paused"))
        #expect(truncate(database, off_t(size)) == 0)
        let run = paused.resume()
        #expect(run.status == 74, "\(run.allOutput)")
        #expect(run.stderr.contains("changed while verify read it"), "\(run.stderr)")
        if json {
            let object = try run.json()
            #expect(object["exitCode"] as? Int == 74)
            let error = try #require(object["error"] as? [String: Any])
            #expect(error["kind"] as? String == "io-error", "\(error)")
        }
    }
}

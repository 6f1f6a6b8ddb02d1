import CSQLite
import Foundation
import StewardKit
import TestSupport
import Testing

/// The same contract file gives the same case results through StewardKit, on the app's
/// connection, as through `steward verify`, compared as JSON: the example set and its
/// contract, on a database without a custom tokenizer.
@Suite struct SameContractResultsTests {
    @Test func libraryAndVerifyAgreeCaseByCase() throws {
        let directory = try TemporaryDirectory(prefix: "steward-kit-same")
        let migrations = Fixtures.repositoryRoot.appendingPathComponent("migrations").path
        let contract = migrations + "/ticket-search.contract.json"
        let database = directory.file("app.sqlite")
        let app = try AppConnection(path: database, registeringTokenizer: false)
        for file in ["0001_create_ticket.sql", "0002_ticket_search.sql"] {
            try app.execute(try String(contentsOfFile: migrations + "/" + file, encoding: .utf8))
        }
        try app.execute("PRAGMA user_version = 2")

        let verify = try StewardProcess.run(["verify", "--db", database, "--migrations", migrations, "--contract", contract, "--json"])
        let verified = try #require(try verify.json()["contractCases"] as? [[String: Any]], "\(verify.allOutput)")
        #expect(verified.count > 5)

        let report = try BorrowedConnection(sqliteConnection: app.handle).check(contractAt: contract)
        let object = try JSONSerialization.jsonObject(with: try report.json()) as? [String: Any]
        let library = try #require(object?["contractCases"] as? [[String: Any]])

        #expect(NSArray(array: library).isEqual(to: verified), "library: \(library)\nverify: \(verified)")
        #expect(report.check(.searchContract)?.status == .pass)
    }
}

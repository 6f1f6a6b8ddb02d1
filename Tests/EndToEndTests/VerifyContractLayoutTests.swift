import Foundation
import Testing
import TestSupport

/// `verify --contract` on a migration set in any layout `migrate` reads: the contract runs
/// on the up parts, read by the same reader, and never ends "skipped" with exit 0.
@Suite struct VerifyContractLayoutTests {
    let directory: TemporaryDirectory
    var set: String { directory.file("set") }

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// The example ticket set written in one runner's layout: each file holds its up part
    /// and, where the layout keeps both in one file, a down part that drops what the up
    /// part made (running it would leave no FTS table for the contract).
    struct Layout: Sendable, CustomTestStringConvertible {
        let name: String
        /// `--dialect`, for layouts the files alone do not reveal.
        let dialect: String?
        /// The contract's `legacy_version`: the version of the file that creates the table.
        let legacyVersion: Any & Sendable
        let files: @Sendable (_ create: String, _ search: String) -> [(String, String)]
        var testDescription: String { name }
    }

    static let layouts: [Layout] = [
        Layout(name: "dbmate", dialect: nil, legacyVersion: 20240105093000) { create, search in
            [("20240105093000_create_ticket.sql", "-- migrate:up\n\(create)\n-- migrate:down\nDROP TABLE ticket;\n"),
             ("20240212141500_ticket_search.sql", "-- migrate:up\n\(search)\n-- migrate:down\nDROP TABLE ticket_fts;\n")]
        },
        Layout(name: "goose", dialect: nil, legacyVersion: 20240105093000) { create, search in
            [("20240105093000_create_ticket.sql", "-- +goose Up\n\(create)\n-- +goose Down\nDROP TABLE ticket;\n"),
             ("20240212141500_ticket_search.sql",
              // goose would cut the trigger bodies at their ';' without the block markers.
              "-- +goose Up\n-- +goose StatementBegin\n\(search)\n-- +goose StatementEnd\n-- +goose Down\nDROP TABLE ticket_fts;\n")]
        },
        Layout(name: "golang-migrate", dialect: "golang-migrate", legacyVersion: 1) { create, search in
            [("1_create_ticket.up.sql", create), ("1_create_ticket.down.sql", "DROP TABLE ticket;\n"),
             ("2_ticket_search.up.sql", search), ("2_ticket_search.down.sql", "DROP TABLE ticket_fts;\n")]
        },
        Layout(name: "sqlx", dialect: "sqlx", legacyVersion: 20240105093000) { create, search in
            [("20240105093000_create_ticket.sql", create), ("20240212141500_ticket_search.sql", search)]
        },
        Layout(name: "diesel", dialect: nil, legacyVersion: "2024-01-05-093000".replacingOccurrences(of: "-", with: "")) { create, search in
            [("2024-01-05-093000_create_ticket/up.sql", create), ("2024-01-05-093000_create_ticket/down.sql", "DROP TABLE ticket;\n"),
             ("2024-02-12-141500_ticket_search/up.sql", search), ("2024-02-12-141500_ticket_search/down.sql", "DROP TABLE ticket_fts;\n")]
        },
        Layout(name: "flyway", dialect: nil, legacyVersion: "1.1") { create, search in
            [("V1_1__create_ticket.sql", create), ("V2__ticket_search.sql", search)]
        },
        Layout(name: "drizzle", dialect: nil, legacyVersion: 1) { create, search in
            [("0001_create_ticket.sql", create), ("0002_ticket_search.sql", search),
             ("meta/_journal.json", #"{"version":"7","dialect":"sqlite","entries":[{"idx":0,"version":"6","when":1704447000000,"tag":"0001_create_ticket","breakpoints":true},{"idx":1,"version":"6","when":1707747300000,"tag":"0002_ticket_search","breakpoints":true}]}"#)]
        },
    ]

    /// Writes the set and a copy of the shipped contract whose legacy_version is `legacy`.
    func write(_ layout: Layout, rebuild: Bool = true) throws -> String {
        let create = try Fixtures.exampleMigrationSQL("0001_create_ticket.sql")
        var search = try Fixtures.exampleMigrationSQL("0002_ticket_search.sql")
        if !rebuild {
            search = search.replacingOccurrences(of: "INSERT INTO ticket_fts(ticket_fts) VALUES ('rebuild');", with: "")
        }
        for (name, text) in layout.files(create, search) {
            try directory.write(text, to: "set/" + name)
        }
        let shipped = Fixtures.exampleMigrations.appendingPathComponent("ticket-search.contract.json")
        var contract = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: shipped)) as? [String: Any])
        contract["legacy_version"] = layout.legacyVersion
        let path = directory.file("contract.json")
        try JSONSerialization.data(withJSONObject: contract).write(to: URL(fileURLWithPath: path))
        return path
    }

    func verify(_ layout: Layout, contract: String) throws -> StewardRun {
        try StewardProcess.run(["verify", "--migrations", set, "--contract", contract, "--json"]
            + (layout.dialect.map { ["--dialect", $0] } ?? []))
    }

    func contractCheck(_ run: StewardRun) throws -> [String: Any] {
        let checks = try #require(try run.json()["checks"] as? [[String: Any]])
        return try #require(checks.first { $0["name"] as? String == "search-contract" })
    }

    @Test(arguments: layouts)
    func theContractRunsOnTheUpPartsOfEveryLayout(_ layout: Layout) throws {
        let contract = try write(layout)
        let run = try verify(layout, contract: contract)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let check = try contractCheck(run)
        #expect(check["status"] as? String == "pass", "\(check)")
        let cases = try #require(try run.json()["contractCases"] as? [[String: Any]])
        #expect(cases.count == 26, "every case of the shipped contract ran")
        #expect(cases.allSatisfy { $0["passed"] as? Bool == true })
    }

    /// The issue's CI gate: a dbmate set whose search migration forgets the rebuild leaves
    /// old databases with an incomplete index, which only a contract that runs can find.
    @Test func aDbmateSetThatForgetsTheRebuildFailsTheContract() throws {
        let layout = try #require(Self.layouts.first { $0.name == "dbmate" })
        let contract = try write(layout, rebuild: false)
        let run = try verify(layout, contract: contract)
        #expect(run.status == 1, "\(run.stdout)\(run.stderr)")
        let check = try contractCheck(run)
        #expect(check["status"] as? String == "fail")
        #expect((check["details"] as? [String])?.first?.contains("fresh and migrated databases disagree") == true, "\(check)")
    }

    /// The text a CI log shows: the cases ran, and no check was skipped for the layout.
    @Test func theTextReportNamesTheCasesThatRan() throws {
        let layout = try #require(Self.layouts.first { $0.name == "dbmate" })
        let contract = try write(layout)
        let run = try StewardProcess.run(["verify", "--migrations", set, "--contract", contract])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        #expect(run.stdout.contains("Contract   ticket-search/1, 26 cases"), "\(run.stdout)")
        #expect(run.stdout.contains("pass    search-contract 26 cases passed"), "\(run.stdout)")
        #expect(!run.stdout.contains("skipped search-contract"), "\(run.stdout)")
    }

    /// `--dialect` reads a set whose layout the files do not reveal; without it, sqlx's
    /// 14-digit versions do not fit Steward's own layout, and the run stops (65) saying so.
    @Test func aSqlxSetWithoutADatabaseNeedsItsDialectNamed() throws {
        let layout = try #require(Self.layouts.first { $0.name == "sqlx" })
        let contract = try write(layout)
        let run = try StewardProcess.run(["verify", "--migrations", set, "--contract", contract])
        #expect(run.status == 65, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("--dialect"), "\(run.stderr)")
        #expect(try StewardProcess.run(["verify", "--contract", contract, "--dialect", "sqlx"]).status == 64)
    }
}

import Foundation
import SQLiteKit
import StewardBase
import StewardChecks

extension BorrowedConnection {
    // MARK: - Everything

    /// The search contract at `path`, then the FTS5 checks: what an app's test wants to
    /// know about its search in one report.
    public func check(contractAt path: String) throws -> StewardKitReport {
        let contract = try SearchContract.load(path: path)
        return try check(contract).adding(checkFullTextSearch())
    }

    // MARK: - The search contract

    /// Runs a search contract (the file `steward verify --contract` reads) on the app's
    /// database: inside a transaction that is rolled back, the contract's table is emptied
    /// (through the app's own triggers, which keep its index), the contract's records are
    /// inserted, and each case runs its steps and its query, rolled back to a savepoint
    /// after it. Its `begin`, `commit` and `rollback` steps are savepoints of their own.
    public func check(_ contract: SearchContract) throws -> StewardKitReport {
        if let problem = contract.problem() {
            throw StewardError(.badInput, "malformed contract: \(problem)")
        }
        let start = DispatchTime.now()
        let cases: [ContractCaseResult]
        do {
            cases = try borrowed { try runCases(of: contract) }
        } catch let error as SQLiteError {
            let check = CheckResult(
                name: .searchContract, status: .fail, summary: "cannot run: \(error.shownMessage)",
                durationSeconds: Self.seconds(since: start))
            return StewardKitReport(sqliteVersion: sqliteVersion, contractVersion: contract.version, checks: [check])
        } catch let error as StewardError where error.kind == .badInput {
            let check = CheckResult(
                name: .searchContract, status: .fail, summary: "cannot run: \(error.message)",
                durationSeconds: Self.seconds(since: start))
            return StewardKitReport(sqliteVersion: sqliteVersion, contractVersion: contract.version, checks: [check])
        }
        let failed = cases.filter { !$0.passed }
        let count = "\(cases.count) case\(cases.count == 1 ? "" : "s")"
        let check = CheckResult(
            name: .searchContract, status: failed.isEmpty ? .pass : .fail,
            summary: failed.isEmpty
                ? "\(count) passed on the app's database (contract \(contract.version))"
                : "\(failed.count) of \(count) failed: \(failed.map(\.name).joined(separator: ", "))",
            durationSeconds: Self.seconds(since: start),
            details: failed.map { "\($0.name): expected \($0.expected); got \($0.fresh)" })
        return StewardKitReport(sqliteVersion: sqliteVersion, contractVersion: contract.version, contractCases: cases, checks: [check])
    }

    private func runCases(of contract: SearchContract) throws -> [ContractCaseResult] {
        for (field, name) in [("table", contract.table), ("fts_table", contract.ftsTable)] {
            let found = try connection.integer(
                sql: "SELECT count(*) FROM main.sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE", bindings: [.text(name)])
            guard found == 1 else {
                throw StewardError(.badInput, "the contract's \(field) '\(name)' is not a table of the app's database")
            }
        }
        // Rows of other tables that point at the contract's table wait for the rollback.
        try connection.execute(sql: "PRAGMA defer_foreign_keys = ON")
        let search = ContractSearch(contract: contract, transactions: .savepoint("steward_step"))
        do {
            try connection.execute(sql: "DELETE FROM main.\(Connection.quote(identifier: contract.table))")
            for record in contract.records {
                try search.insert(record, on: connection)
            }
        } catch let error as SQLiteError {
            throw StewardError(.badInput, "the contract's records cannot be inserted into '\(contract.table)': \(error.shownMessage)")
        }
        return try contract.cases.map { item in
            try connection.execute(sql: "SAVEPOINT steward_case")
            defer { _ = try? connection.execute(sql: "ROLLBACK TO steward_case; RELEASE steward_case") }
            let expected = ContractSearch.expectation(of: item)
            let outcome = try search.outcome(of: item, on: connection)
            let matches = outcome.satisfies(expected)
            return ContractCaseResult(
                name: item.name, passed: matches, agree: true, freshMatches: matches, migratedMatches: matches,
                expected: expected.description, fresh: outcome.description, migrated: outcome.description)
        }
    }

    // MARK: - FTS5

    /// FTS5's own integrity-check of every FTS5 table at rank 1 (an external-content index
    /// against its content table: drift is named by table), and the sync-trigger check of
    /// every external-content or trigger-filled full-text table: `fts-sync` and
    /// `fts-triggers`, as `steward verify` words them.
    public func checkFullTextSearch() throws -> StewardKitReport {
        var checks: [CheckResult] = []
        var start = DispatchTime.now()
        checks += try fullTextIntegrity().checks
        start = DispatchTime.now()
        let triggers = try borrowed { try FTSSyncTriggersCheck.check(try Schema(reading: connection), on: connection) }
        checks.append(CheckResult(triggers, durationSeconds: Self.seconds(since: start), versionsFrom: ""))
        return StewardKitReport(sqliteVersion: sqliteVersion, checks: checks)
    }

    static func seconds(since start: DispatchTime) -> Double {
        (Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e6).rounded() / 1000
    }
}

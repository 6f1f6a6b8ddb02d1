import Foundation
import SQLiteKit
import StewardBase

/// Runs a search contract on two scratch databases built from a migration set:
/// **fresh** (every migration, then the records) and **migrated** (the records inserted
/// at `legacy_version`, then the remaining migrations). The set is read in its runner's
/// layout by the reader `migrate` uses (`DialectSet`), and each file's up part is applied
/// as plain SQL, in its own transaction, the way that runner applies it, without
/// Steward's automatic rebuilds, so that a set that relies on them is caught.
struct ContractRunner {
    /// What a query gave (`ContractSearch`, shared with StewardKit).
    typealias Outcome = ContractSearch.Outcome
    typealias Expression = ContractSearch.Expression

    let contract: SearchContract
    let set: DialectSet
    let cancellation: Cancellation

    init(contract: SearchContract, set: DialectSet, cancellation: Cancellation) {
        self.contract = contract
        self.set = set
        self.cancellation = cancellation
    }

    /// Builds both databases and runs every case on each.
    func run() throws -> [VerifyReport.ContractCase] {
        let scripts = try MigrationScript.scripts(for: set)
        let fresh = try build(scripts: scripts, recordsAt: nil)
        let migrated = try build(scripts: scripts, recordsAt: contract.legacyVersion)
        return try contract.cases.map { item in
            let expected = Self.expectation(of: item)
            let freshOutcome = try outcome(of: item, on: fresh)
            let migratedOutcome = try outcome(of: item, on: migrated)
            let freshMatches = freshOutcome.satisfies(expected)
            let migratedMatches = migratedOutcome.satisfies(expected)
            return VerifyReport.ContractCase(
                name: item.name, passed: freshMatches && migratedMatches,
                agree: freshOutcome == migratedOutcome, freshMatches: freshMatches, migratedMatches: migratedMatches,
                expected: expected.description, fresh: freshOutcome.description, migrated: migratedOutcome.description)
        }
    }

    static func expectation(of item: SearchContract.Case) -> Outcome {
        ContractSearch.expectation(of: item)
    }

    /// The FTS5 expression for user input in a mode, or why none is run.
    static func expression(for input: String, mode: SearchContract.Mode, maximumLength: Int) -> Expression {
        ContractSearch.expression(for: input, mode: mode, maximumLength: maximumLength)
    }

    // MARK: - Building

    /// An in-memory database with the migrations applied and the records inserted, either
    /// after every migration (`recordsAt` nil) or once the version reaches `recordsAt`.
    private func build(scripts: [MigrationScript], recordsAt legacyVersion: VersionKey?) throws -> Connection {
        let connection = try Connection.inMemory()
        let rule = LedgerPlan.rule(for: set.migrations)
        var inserted = false
        // `scripts` has one script per migration of the set, in its order.
        for (index, (script, migration)) in zip(scripts, set.migrations).enumerated() {
            try connection.transaction(.immediate) {
                try script.apply(on: connection, cancellation: cancellation)
                try connection.setUserVersion(LedgerPlan.userVersion(for: Array(set.migrations[...index]), rule: rule))
            }
            if let legacyVersion, !inserted, migration.version >= legacyVersion {
                try insertRecords(on: connection, at: "legacy_version \(legacyVersion)")
                inserted = true
            }
        }
        if !inserted {
            try insertRecords(on: connection, at: "the newest version")
        }
        let ftsExists = try connection.integer(
            sql: "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE",
            bindings: [.text(contract.ftsTable)])
        guard ftsExists == 1 else {
            throw StewardError(.badInput, "the contract's fts_table '\(contract.ftsTable)' does not exist after the migrations")
        }
        return connection
    }

    private func insertRecords(on connection: Connection, at moment: String) throws {
        do {
            try connection.transaction(.immediate) {
                for record in contract.records {
                    try ContractSearch(contract: contract).insert(record, on: connection)
                }
            }
        } catch let error as SQLiteError {
            throw StewardError(
                .badInput,
                "the contract's records cannot be inserted into '\(contract.table)' at \(moment): \(error.shownMessage)")
        }
    }

    // MARK: - Cases

    /// Runs a case on a private copy of `template`, so that cases cannot affect each other.
    private func outcome(of item: SearchContract.Case, on template: Connection) throws -> Outcome {
        if cancellation.isCancelled {
            throw StewardError.interrupted(by: cancellation)
        }
        let connection = try Connection.inMemory()
        try template.backup(to: connection)
        return try ContractSearch(contract: contract).outcome(of: item, on: connection)
    }
}

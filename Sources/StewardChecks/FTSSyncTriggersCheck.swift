import SQLiteKit

/// The sync-trigger check (`fts-triggers`): every external-content full-text table (FTS5,
/// FTS4, FTS3) and every FTS5 table that triggers fill from another table has its insert,
/// delete and update triggers on its source, each at the right moment. Shared by
/// `steward verify` and StewardKit; reads the schema only.
package enum FTSSyncTriggersCheck {
    /// The check on `read`, the schema of `connection`'s `main`. `deferred`: tables (in
    /// lower case) the caller said are indexed in the background, whose missing triggers
    /// are notes, not failures.
    package static func check(_ read: Schema, on connection: Connection, deferred deferredTables: Set<String> = []) throws -> Check {
        let external = read.fts5Tables.filter { $0.contentMode == .external }
        let external4 = read.fts4Tables.filter { $0.contentMode == .external }
        // FTS5 tables with their own content that triggers fill from another table
        // depend on those triggers just as much.
        let filled = try FTS5TriggerFill.find(on: connection)
        if external.isEmpty, external4.isEmpty, filled.isEmpty {
            let all = read.fullTextTableNames
            // Says what it looked at: a pass over no table is named as such.
            return Check(.ftsTriggers, passed: true, all.isEmpty
                ? "no full-text tables (FTS3, FTS4 or FTS5)"
                : "no external-content or trigger-filled full-text tables; none of \(all.joined(separator: ", ")) needs sync triggers", [])
        }
        var details: [String] = []
        var deferred: [String] = []
        var mistimed: [String] = []
        var gaps = external.map { ($0.name, $0.contentTable ?? "its content table", read.syncTriggers(for: $0).missing) }
        for table in external4 {
            let sync = read.syncTriggers(for: table)
            gaps.append((table.name, table.contentTable ?? "its content table", sync.missing))
            mistimed += sync.mistimed
        }
        gaps += filled.map { ($0.table, $0.source, $0.missing) }
        for (table, source, missing) in gaps where !missing.isEmpty {
            let line = "\(table): no \(missing.joined(separator: ", ")) trigger on \(source) that writes to it"
            if deferredTables.contains(table.lowercased()) {
                deferred.append(line + " (deferred: indexed in the background)")
            } else {
                details.append(line)
            }
        }
        details += mistimed
        let names = (external.map(\.name) + external4.map(\.name) + filled.map { "\($0.table) (from \($0.source))" })
            .joined(separator: ", ")
        if !details.isEmpty {
            return Check(.ftsTriggers, passed: false, details.count == mistimed.count ? "sync triggers that run at the wrong moment" : "missing sync triggers",
                    details + deferred)
        }
        return deferred.isEmpty
            ? Check(.ftsTriggers, passed: true, "insert, delete and update sync triggers present for \(names)", [])
            : Check(.ftsTriggers, passed: true, "sync triggers present or deferred (as asked) for \(names)", deferred)
    }
}

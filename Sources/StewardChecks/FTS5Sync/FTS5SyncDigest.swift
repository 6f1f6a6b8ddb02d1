import Dispatch
import Foundation
import SQLiteKit
import Synchronization

/// Proves what FTS5's rank-1 `integrity-check` proves of one table — the index holds
/// exactly the entries (rowid, column, offset, term) its tokenizer makes of the content,
/// the row sizes and totals agree, and the index's structure is sound — with the work
/// divided across threads (issue 33; design notes, "A parallel FTS5 check"):
///
/// - content: the text tokenized by the table's own tokenizer (`fts5_api`), over ranges
///   of rowids, digested (`FTS5ContentDigester`), with `%_docsize` row by row;
/// - index: every entry read through `fts5vocab` over ranges of terms, digested
///   (`FTS5IndexDigester`);
/// - structure: each segment's b-tree, page indexes and doclist indexes
///   (`FTS5IndexStructure`);
/// - then the two digests, the totals record and the row counts compared.
///
/// Each worker has its own read connection (`open`), all of which must see the same
/// database as `connection`: a private file, or one held by a read transaction. Without
/// `open` (a transaction's own connection, whose changes no other connection sees) the
/// same work runs on `connection`, one task after another.
///
/// A difference is never the last word: `FTS5IntegrityCheck.check(_:rank:on:method:)`
/// runs FTS5's own statement on it, whose verdict and words stand, so this check can never
/// fail a table FTS5 passes. The differential suite holds it to the other direction.
package struct FTS5SyncDigest {
    package enum Verdict: Sendable, Equatable {
        /// Index and content agree, and the structure is sound.
        case passed
        /// What differs (a sentence with no row data).
        case differs(String)
        /// The digest cannot prove this table; FTS5's statement must (why).
        case unsupported(String)
        /// The index has fewer leaves than `minimumLeaves`: FTS5's statement checks it
        /// sooner than the digest sets up (measured: `bench/fleet.sh`, 1,000 databases of
        /// 100 KiB, 4% slower with the digest).
        case small(leaves: Int64)
    }

    package let layout: FTS5TableLayout
    private let connection: Connection
    private let workers: Int
    private let open: (@Sendable () throws -> Connection)?

    /// Below this many leaves, FTS5's statement (`small`).
    package static let minimumLeaves: Int64 = 64
    private let minimumLeaves: Int64

    package init(
        _ definition: FTS5Definition, on connection: Connection, workers: Int, open: (@Sendable () throws -> Connection)?,
        minimumLeaves: Int64 = FTS5SyncDigest.minimumLeaves
    ) {
        self.minimumLeaves = minimumLeaves
        // The declaration itself, for every `prefix` option (the definition keeps the last).
        var sql: String?
        if definition.options["prefix"] != nil, let declaration = try? connection.prepare(
            sql: "SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ?1") {
            try? declaration.bind(.text(definition.name), at: 1)
            sql = (try? declaration.step()) == true ? declaration.text(at: 0) : nil
        }
        layout = FTS5TableLayout(definition, declaration: sql)
        self.connection = connection
        self.workers = max(1, open == nil ? 1 : workers)
        self.open = open
    }

    /// Runs the check. Throws only an interrupt (cancellation); every other failure to
    /// run is `unsupported`, every damage `differs`.
    package func run() throws -> Verdict {
        if let reason = layout.unsupported { return .unsupported(reason) }
        do {
            return try compare()
        } catch let error as SQLiteError where error.isInterrupt {
            throw error
        } catch let error as SQLiteError where error.isCorrupt {
            return .differs("the index could not be read: SQLite error \(error.extendedCode)")
        } catch let damaged as FTS5IndexStructure.Damaged {
            return .differs(damaged.problem)
        } catch let unavailable as FTS5Tokenizer.Unavailable {
            return .unsupported(unavailable.reason)
        } catch let error as SQLiteError {
            return .unsupported("the digest could not run: SQLite error \(error.extendedCode)")
        }
    }

    // MARK: - The work

    private enum Task {
        case content(ClosedRange<Int64>?)
        case index(lower: [UInt8]?, upper: [UInt8]?)
        case leaves(FTS5IndexStructure.Segment, ClosedRange<Int64>)
        case segment(FTS5IndexStructure.Segment)
        /// Takes out of the index's digest the entries of a range of leaves that newer
        /// segments' delete markers shadow.
        case shadowed(FTS5IndexStructure.Segment, ClosedRange<Int64>)
    }

    /// A term (its hash) and a rowid: the key a delete marker shadows older entries by.
    fileprivate struct Key: Hashable {
        let term: UInt64
        let rowid: Int64
    }

    fileprivate struct Totals {
        var content = FTS5EntryDigest()
        var index = FTS5EntryDigest()
        var columnTotals: [Int64]
        var rows: Int64 = 0
        var problems: [String] = []
        /// Delete markers read from the leaves: the newest segment (lowest rank) of each key.
        var deletes: [Key: Int] = [:]
        /// Entries of other indexes than the main one (a table without prefix indexes has none).
        var foreignEntries: Int64 = 0
        var failure: Error?
    }

    private func compare() throws -> Verdict {
        let name = Connection.quote(identifier: layout.table)
        // A small index is FTS5's statement's: counted first, on one statement.
        let onDisk = Self.leaves(in: try FTS5IndexStructure.segments(of: layout.table, on: connection))
        if onDisk < minimumLeaves { return .small(leaves: onDisk) }
        // Inside a transaction (migrate's, StewardKit's), FTS5 may still hold rows it was
        // given in memory (its pending data), which the leaves do not show yet: a savepoint
        // makes it write them (FTS5's xSavepoint flushes), as COMMIT would, content
        // unchanged.
        if !connection.isAutocommit {
            try connection.execute(sql: "SAVEPOINT steward_fts5_check; RELEASE steward_fts5_check")
        }
        let segments = try FTS5IndexStructure.segments(of: layout.table, on: connection)
        // FTS5 itself opens the index before it is read (its %_config and structure
        // record): a table this SQLite's FTS5 refuses, such as a newer file format
        // (secure-delete's version 5 under SQLite 3.40) or a damaged configuration, is its
        // statement's to judge.
        let probe = try connection.prepare(sql: "SELECT rowid FROM main.\(name) WHERE \(name) MATCH 'zqx' LIMIT 1")
        _ = try probe.step()
        let parts = workers == 1 ? 1 : workers * 4
        var tasks: [Task] = segments.map { .segment($0) }
        let ranges = try rowidRanges(parts)
        var indexTasks: [Task] = []
        var leafRanges: [(FTS5IndexStructure.Segment, ClosedRange<Int64>)] = []
        if layout.detail == .full {
            leafRanges = Self.leafRanges(of: segments, parts: parts)
            indexTasks = leafRanges.map { .leaves($0.0, $0.1) }
        } else {
            let keys = try FTS5IndexDigester.splitTerms(of: layout.table, parts: parts, on: connection)
            let bounds: [[UInt8]?] = [nil] + keys.map { Optional($0) } + [nil]
            indexTasks = (0..<(bounds.count - 1)).map { .index(lower: bounds[$0], upper: bounds[$0 + 1]) }
        }
        for index in 0..<max(ranges.count, indexTasks.count) {
            if index < indexTasks.count { tasks.append(indexTasks[index]) }
            if index < ranges.count { tasks.append(.content(ranges[index])) }
        }
        var totals = try run(tasks, totals: Totals(columnTotals: Array(repeating: 0, count: layout.columns.count)))
        if !totals.deletes.isEmpty, let newest = totals.deletes.values.min() {
            // Entries that newer delete markers shadow were counted: take them out, reading
            // again the leaves of every segment older than the newest marker.
            let shadowing = leafRanges.filter { $0.0.rank > newest }.map { Task.shadowed($0.0, $0.1) }
            totals = try run(shadowing, totals: totals)
        }
        if let problem = totals.problems.first { return .differs(problem) }
        if totals.foreignEntries > 0 { return .differs("the index holds \(totals.foreignEntries) entries of an index the table does not declare") }
        return try compareRecords(totals)
    }

    /// The leaves of the segments (what the structure record says they span).
    private static func leaves(in segments: [FTS5IndexStructure.Segment]) -> Int64 {
        segments.reduce(Int64(0)) { $0 + ($1.firstPage > 0 ? max(0, $1.lastPage - $1.firstPage + 1) : 0) }
    }

    /// Runs `tasks` on the workers, adding what each finds to `totals`.
    private func run(_ tasks: [Task], totals start: Totals) throws -> Totals {
        guard !tasks.isEmpty else { return start }
        let state = Shared(start)
        let next = Counter()
        let columnHashes = layout.columns.map { FTS5EntryDigest.hash($0) }
        // A column number from the leaves as the content side names it (by its name's
        // hash); one the table does not have gets a word of its own, which matches nothing.
        let columnWord = { (column: Int64) -> UInt64 in
            column >= 0 && column < Int64(columnHashes.count) ? columnHashes[Int(column)] : FTS5EntryDigest.mix(UInt64(bitPattern: column))
        }
        let deletes = start.deletes
        let prefixCount = layout.prefixes.count
        let work = { (worker: Int) in
            do {
                let own = try open?() ?? connection
                var content: FTS5ContentDigester?
                var index: FTS5IndexDigester?
                var leaves: FTS5SegmentReader?
                var structure: FTS5IndexStructure?
                defer { index?.drop() }
                while let number = next.take(below: tasks.count), !state.failed {
                    switch tasks[number] {
                    case .content(let range):
                        if content == nil { content = try FTS5ContentDigester(connection: own, layout: layout) }
                        guard let part = try content?.digest(rowids: range) else { continue }
                        state.update { totals in
                            totals.content = totals.content + part.digest
                            totals.rows += part.rows
                            for column in part.totals.indices { totals.columnTotals[column] += part.totals[column] }
                            if let problem = part.docsizeProblem { totals.problems.append(problem) }
                        }
                    case .index(let lower, let upper):
                        if index == nil { index = try FTS5IndexDigester(connection: own, layout: layout) }
                        guard let digest = try index?.digest(from: lower, to: upper) else { continue }
                        state.update { $0.index = $0.index + digest }
                    case .leaves(let segment, let pages):
                        if leaves == nil { leaves = try FTS5SegmentReader(connection: own, table: layout.table) }
                        var digest = FTS5EntryDigest()
                        var found: [Key: Int] = [:]
                        var foreign: Int64 = 0
                        var term: UInt64 = 0
                        var rowid: Int64 = 0
                        try leaves?.read(segment, pages: pages, visit: { entry in
                            term = entry.term
                            rowid = entry.rowid
                            if entry.deletes { found[Key(term: entry.term, rowid: entry.rowid)] = segment.rank }
                            if entry.index < 0 || entry.index > prefixCount { foreign += 1 }
                        }, position: { column, offset in
                            digest.add(rowid: rowid, column: columnWord(column), offset: offset, term: term)
                        })
                        state.update { totals in
                            totals.index = totals.index + digest
                            totals.foreignEntries += foreign
                            for (key, rank) in found { totals.deletes[key] = min(totals.deletes[key] ?? rank, rank) }
                        }
                    case .shadowed(let segment, let pages):
                        if leaves == nil { leaves = try FTS5SegmentReader(connection: own, table: layout.table) }
                        var digest = FTS5EntryDigest()
                        var term: UInt64 = 0
                        var rowid: Int64 = 0
                        var shadowed = false
                        try leaves?.read(segment, pages: pages, visit: { entry in
                            term = entry.term
                            rowid = entry.rowid
                            shadowed = (deletes[Key(term: entry.term, rowid: entry.rowid)] ?? Int.max) < segment.rank
                        }, position: { column, offset in
                            guard shadowed else { return }
                            digest.remove(rowid: rowid, column: columnWord(column), offset: offset, term: term)
                        })
                        state.update { $0.index = $0.index + digest }
                    case .segment(let segment):
                        if structure == nil { structure = try FTS5IndexStructure(connection: own, table: layout.table, indexes: prefixCount + 1) }
                        try structure?.check(segment)
                    }
                }
            } catch {
                state.update { if $0.failure == nil { $0.failure = error } }
            }
        }
        Self.onThreads(workers, work)
        let totals = state.totals
        if let failure = totals.failure { throw failure }
        return totals
    }

    /// Each segment's leaves in ranges of about an equal share of all leaves.
    private static func leafRanges(of segments: [FTS5IndexStructure.Segment], parts: Int) -> [(FTS5IndexStructure.Segment, ClosedRange<Int64>)] {
        let pages = segments.reduce(Int64(0)) { $0 + max(0, $1.lastPage - $1.firstPage + 1) }
        let share = max(1, pages / Int64(max(parts, 1)))
        var ranges: [(FTS5IndexStructure.Segment, ClosedRange<Int64>)] = []
        for segment in segments where segment.firstPage > 0 && segment.lastPage >= segment.firstPage {
            var start = segment.firstPage
            while start <= segment.lastPage {
                let end = min(segment.lastPage, start + share - 1)
                ranges.append((segment, start...end))
                start = end + 1
            }
        }
        return ranges.sorted { $0.1.count > $1.1.count }
    }

    /// Runs `body(0)` on this thread and `body(1)` … `body(count - 1)` on threads of their
    /// own, and returns when all have. Each body uses only connections it opened itself.
    private static func onThreads(_ count: Int, _ body: @escaping (Int) -> Void) {
        let work = UncheckedWork(body)
        let group = DispatchGroup()
        for worker in 1..<max(count, 1) {
            group.enter()
            let thread = Thread {
                work.body(worker)
                group.leave()
            }
            // SQLite's parser and FTS5's tokenizers recurse; Foundation's default is small.
            thread.stackSize = 8 << 20
            thread.start()
        }
        work.body(0)
        group.wait()
    }

    /// The totals record (`%_data` id 1), the row counts and the two digests
    /// (`sqlite3Fts5StorageIntegrity`).
    private func compareRecords(_ totals: Totals) throws -> Verdict {
        let data = Connection.quote(identifier: layout.table + "_data")
        let averages = try connection.prepare(sql: "SELECT block FROM main.\(data) WHERE id = 1")
        guard try averages.step() else { return .differs("the totals record is missing") }
        let record = averages.blob(at: 0)
        var offset = 0
        var rowCount: Int64 = 0
        var stored = [Int64](repeating: 0, count: layout.columns.count)
        if !record.isEmpty {
            rowCount = Int64(bitPattern: FTS5Record.varint(record, &offset))
            for column in stored.indices where offset < record.count {
                stored[column] = Int64(bitPattern: FTS5Record.varint(record, &offset))
            }
        }
        if stored != totals.columnTotals {
            return .differs("the totals record does not hold the columns' token counts")
        }
        if layout.contentTable == layout.table + "_content",
           try connection.integer(sql: "SELECT count(*) FROM main.\(Connection.quote(identifier: layout.contentTable))") != rowCount {
            return .differs("the content table's rows differ from the totals record's count")
        }
        if layout.columnSize,
           try connection.integer(sql: "SELECT count(*) FROM main.\(Connection.quote(identifier: layout.table + "_docsize"))") != rowCount {
            return .differs("the %_docsize rows differ from the totals record's count")
        }
        if totals.content != totals.index {
            return .differs("the index holds \(totals.index.count) entries, the content makes \(totals.content.count)"
                            + (totals.content.count == totals.index.count ? " that differ" : ""))
        }
        return .passed
    }

    /// Ranges of the content's rowids, about `parts` of them, when the rowid column is the
    /// table's rowid (a range is then a seek); one range of everything otherwise.
    private func rowidRanges(_ parts: Int) throws -> [ClosedRange<Int64>?] {
        guard parts > 1, try rowidIsKey() else { return [nil] }
        let rowid = Connection.quote(identifier: layout.contentRowID)
        let bounds = try connection.prepare(sql: "SELECT min(\(rowid)), max(\(rowid)) FROM main.\(Connection.quote(identifier: layout.contentTable))")
        guard try bounds.step(), !bounds.isNull(at: 0) else { return [nil] }
        let low = bounds.int64(at: 0)
        let high = bounds.int64(at: 1)
        let span = high.subtractingReportingOverflow(low)
        guard !span.overflow, span.partialValue >= Int64(parts) else { return [low...high] }
        let step = span.partialValue / Int64(parts) + 1
        return stride(from: low, through: high, by: Int(step)).map { start in
            start...(start > high - step ? high : start + step - 1)
        }
    }

    /// Whether the content's rowid column is its rowid (or an alias of it).
    private func rowidIsKey() throws -> Bool {
        if layout.contentTable == layout.table + "_content" { return true }
        let name = layout.contentRowID.lowercased()
        let table = layout.contentTable
        let listed = try connection.prepare(sql: "SELECT type, wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1")
        try listed.bind(.text(table), at: 1)
        guard try listed.step(), listed.text(at: 0) == "table", listed.int64(at: 1) == 0 else { return false }
        if ["rowid", "oid", "_rowid_"].contains(name) { return true }
        let keys = try connection.prepare(sql: "SELECT name, upper(type) FROM pragma_table_info(?1) WHERE pk > 0")
        try keys.bind(.text(table), at: 1)
        var columns: [(String, String)] = []
        while try keys.step() { columns.append((keys.text(at: 0) ?? "", keys.text(at: 1) ?? "")) }
        return columns.count == 1 && columns[0].0.lowercased() == name && columns[0].1 == "INTEGER"
    }
}

/// The workers' shared totals.
private final class Shared: Sendable {
    private let value: Mutex<FTS5SyncDigest.Totals>

    init(_ totals: FTS5SyncDigest.Totals) { value = Mutex(totals) }

    var totals: FTS5SyncDigest.Totals { value.withLock { $0 } }
    /// Whether a worker failed: the others stop taking tasks.
    var failed: Bool { value.withLock { $0.failure != nil } }

    func update(_ change: (inout FTS5SyncDigest.Totals) -> Void) {
        value.withLock { change(&$0) }
    }
}

/// A worker's body handed to other threads: `@unchecked` because it captures the check
/// (its `open` and the caller's connection, used by the calling thread alone); what the
/// workers share is `Shared` and `Counter`, and every connection a worker uses it opened.
private final class UncheckedWork: @unchecked Sendable {
    let body: (Int) -> Void
    init(_ body: @escaping (Int) -> Void) { self.body = body }
}

/// The next task's number, taken once by one worker.
private final class Counter: Sendable {
    private let next = Mutex(0)

    func take(below limit: Int) -> Int? {
        next.withLock { next in
            guard next < limit else { return nil }
            defer { next += 1 }
            return next
        }
    }
}

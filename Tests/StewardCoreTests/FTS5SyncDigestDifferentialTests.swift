import Foundation
import SQLiteKit
@testable import StewardChecks
import Testing
import TestSupport

/// The parallel FTS5 check against FTS5's own (issue 33): on every healthy database FTS5
/// passes, the digest passes; on every drift FTS5's rank-1 check fails, the digest does not
/// pass. Random drifts over table shapes (detail=full/column/none, own and external
/// content, unicode61 options, porter, trigram, ascii, columnsize=0, UNINDEXED, small pages
/// so that terms span leaves and get doclist indexes). STEWARD_FTS5_DRIFTS sets how many
/// drifts each shape gets (default 40: a few seconds in all); the note records a longer run.
@Suite struct FTS5SyncDigestDifferentialTests {
    /// A table shape: the FTS5 declaration's arguments after the columns, and whether the
    /// text lives in an outside table.
    struct Shape: CustomStringConvertible, Sendable {
        let name: String
        let options: String
        let external: Bool
        var unindexedColumn = false
        var description: String { name }
    }

    static let shapes: [Shape] = [
        Shape(name: "external full unicode61", options: "tokenize='unicode61 remove_diacritics 2'", external: true),
        Shape(name: "external detail=column", options: "detail=column", external: true),
        Shape(name: "external detail=none", options: "detail=none", external: true),
        Shape(name: "own content porter", options: "tokenize='porter unicode61 remove_diacritics 1'", external: false),
        Shape(name: "own content trigram", options: "tokenize='trigram'", external: false),
        Shape(name: "external trigram case_sensitive detail=column", options: "tokenize='trigram case_sensitive 1', detail=column", external: true),
        Shape(name: "external unicode61 tokenchars separators", options: "tokenize=\"unicode61 tokenchars '-_' separators '.'\"", external: true),
        Shape(name: "own content ascii columnsize=0", options: "tokenize='ascii', columnsize=0", external: false),
        Shape(name: "external UNINDEXED column", options: "", external: true, unindexedColumn: true),
        Shape(name: "own content detail=none unicode61 categories", options: "tokenize=\"unicode61 categories 'L* N* Co'\", detail=none", external: false),
        Shape(name: "external prefix='2 3'", options: "prefix='2 3', tokenize='unicode61 remove_diacritics 2'", external: true),
        Shape(name: "own content prefix=1, prefix=4 porter", options: "prefix=1, prefix=4, tokenize='porter'", external: false),
    ]

    static var driftsPerShape: Int {
        ProcessInfo.processInfo.environment["STEWARD_FTS5_DRIFTS"].flatMap(Int.init) ?? 40
    }

    @Test(arguments: shapes)
    func healthyDatabasesPassAndDriftsNeverPass(_ shape: Shape) throws {
        let directory = try TemporaryDirectory()
        var random = SeededRandom(seed: FTS5EntryDigest.hash(shape.name))
        var tally = Tally()
        for database in 0..<4 {
            let healthy = directory.file("healthy-\(database).sqlite")
            try Self.makeDatabase(at: healthy, shape: shape, random: &random)
            let verdicts = try Self.judge(healthy)
            #expect(verdicts.fts5Passes, "\(shape): FTS5 fails the healthy database \(database)")
            #expect(verdicts.digest == .passed, "\(shape): the digest does not pass healthy database \(database): \(verdicts.digest)")
            #expect(verdicts.serial == verdicts.digest, "\(shape): one worker and two disagree on database \(database)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: healthy))
            for number in 0..<(Self.driftsPerShape / 4) {
                let path = directory.file("drift-\(database)-\(number).sqlite")
                try bytes.write(to: URL(fileURLWithPath: path))
                let drift = try Self.applyRandomDrift(to: path, shape: shape, random: &random)
                let verdicts = try Self.judge(path)
                tally.count(drift, fts5Fails: !verdicts.fts5Passes, digestPasses: verdicts.digest == .passed)
                if !verdicts.fts5Passes {
                    #expect(verdicts.digest != .passed, "\(shape): \(drift) fails FTS5's check and passes the digest")
                    #expect(verdicts.serial != .passed, "\(shape): \(drift) fails FTS5's check and passes the digest on one worker")
                }
                try? FileManager.default.removeItem(atPath: path)
            }
        }
        // Most drifts must be real ones (FTS5 fails them), or the suite proves little.
        #expect(tally.fts5Failed * 2 >= tally.total, "\(shape): only \(tally.fts5Failed) of \(tally.total) drifts fail FTS5's check: \(tally.kinds)")
        if ProcessInfo.processInfo.environment["STEWARD_FTS5_DRIFTS"] != nil {
            print("\(shape): \(tally.total) drifts, \(tally.fts5Failed) fail FTS5, \(tally.digestFailedWhereFTS5Passed) fail only the digest; \(tally.kinds)")
        }
    }

    /// Prefix indexes of a detail=column table are not the digest's (fts5vocab does not
    /// read them): it says so, and FTS5's statement checks it (`FTS5IntegrityCheck.check`).
    @Test func prefixIndexesWithoutPositionsGoToFTS5sStatement() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("prefix.sqlite")
        var random = SeededRandom(seed: 3)
        try Self.makeDatabase(at: path, shape: Shape(name: "prefix", options: "prefix='2 3', detail=column", external: true), random: &random)
        let connection = try Connection(path: path)
        let table = try #require(Schema(reading: connection).fts5Tables.first)
        let digest = FTS5SyncDigest(table, on: connection, workers: 2, open: nil, minimumLeaves: 0)
        guard case .unsupported(let reason) = try digest.run() else { Issue.record("a prefix table went to the digest"); return }
        #expect(reason.contains("prefix"))
        let path2 = try FTS5IntegrityCheck.check(table, rank: 1, on: connection, method: .parallel(workers: 2, open: nil))
        #expect(path2 == .statement(reason: reason))
    }

    // MARK: - Judging

    struct Verdicts {
        let fts5Passes: Bool
        let digest: FTS5SyncDigest.Verdict
        let serial: FTS5SyncDigest.Verdict
    }

    static func judge(_ path: String) throws -> Verdicts {
        let connection = try Connection(path: path)
        let table = try #require(Schema(reading: connection).fts5Tables.first)
        let rank: Int? = table.contentMode == .external ? 1 : nil
        var fts5Passes = true
        do {
            try connection.execute(sql: "BEGIN")
            try FTS5IntegrityCheck.check(table.name, rank: rank, on: connection)
        } catch {
            fts5Passes = false
        }
        connection.rollbackIfNeeded()
        let open: @Sendable () throws -> Connection = { try Connection(path: path, mode: [.readOnly]) }
        let digest = try FTS5SyncDigest(table, on: connection, workers: 2, open: open, minimumLeaves: 0).run()
        let serial = try FTS5SyncDigest(table, on: connection, workers: 1, open: nil, minimumLeaves: 0).run()
        return Verdicts(fts5Passes: fts5Passes, digest: digest, serial: serial)
    }

    struct Tally {
        var total = 0
        var fts5Failed = 0
        var digestFailedWhereFTS5Passed = 0
        var kinds: [String: Int] = [:]

        mutating func count(_ drift: String, fts5Fails: Bool, digestPasses: Bool) {
            total += 1
            if fts5Fails { fts5Failed += 1 }
            if !fts5Fails, !digestPasses { digestFailedWhereFTS5Passed += 1 }
            kinds[drift, default: 0] += 1
        }
    }

    // MARK: - Databases

    static let words = [
        "printer", "jammed", "café", "crème", "Straße", "naïve", "tray", "error", "42", "3.14", "x-ray", "snake_case",
        "a.b.c", "Über", "ÉCOLE", "日本語", "токен", "printers", "printing", "the", "and", "ticket", "queue", "mañana",
        "emoji😀", "Co\u{E000}de", "ÅNGSTRÖM", "jam", "jams", "jamming", "reports", "reported",
    ]

    static func text(_ random: inout SeededRandom, words count: Int) -> String {
        (0..<count).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: random.next() % 5 == 0 ? ", " : " ")
    }

    /// A database of one FTS5 table of `shape` (columns title, body, and note UNINDEXED
    /// when asked), 40 to 90 rows written in several transactions with deletes and updates
    /// between (several segments, delete markers), small pages (terms span leaves; common
    /// terms get doclist indexes).
    static func makeDatabase(at path: String, shape: Shape, random: inout SeededRandom) throws {
        try? FileManager.default.removeItem(atPath: path)
        let connection = try Connection(path: path)
        let columns = shape.unindexedColumn ? "title, body, note UNINDEXED" : "title, body"
        let options = shape.options.isEmpty ? "" : ", " + shape.options
        if shape.external {
            try connection.execute(sql: """
                CREATE TABLE doc(id INTEGER PRIMARY KEY, title TEXT, body TEXT, note TEXT);
                CREATE VIRTUAL TABLE ft USING fts5(\(columns), content='doc', content_rowid='id'\(options));
                CREATE TRIGGER doc_ai AFTER INSERT ON doc BEGIN
                  INSERT INTO ft(rowid, \(columns.replacingOccurrences(of: " UNINDEXED", with: ""))) VALUES (new.id, new.title, new.body\(shape.unindexedColumn ? ", new.note" : ""));
                END;
                CREATE TRIGGER doc_ad AFTER DELETE ON doc BEGIN
                  INSERT INTO ft(ft, rowid, \(columns.replacingOccurrences(of: " UNINDEXED", with: ""))) VALUES ('delete', old.id, old.title, old.body\(shape.unindexedColumn ? ", old.note" : ""));
                END;
                CREATE TRIGGER doc_au AFTER UPDATE ON doc BEGIN
                  INSERT INTO ft(ft, rowid, \(columns.replacingOccurrences(of: " UNINDEXED", with: ""))) VALUES ('delete', old.id, old.title, old.body\(shape.unindexedColumn ? ", old.note" : ""));
                  INSERT INTO ft(rowid, \(columns.replacingOccurrences(of: " UNINDEXED", with: ""))) VALUES (new.id, new.title, new.body\(shape.unindexedColumn ? ", new.note" : ""));
                END;
                """)
        } else {
            try connection.execute(sql: "CREATE VIRTUAL TABLE ft USING fts5(\(columns)\(options))")
        }
        try connection.execute(sql: "INSERT INTO ft(ft, rank) VALUES ('pgsz', \(64 + Int(random.next() % 200)))")
        let target = shape.external ? "doc" : "ft"
        let names = shape.unindexedColumn ? "title, body, note" : "title, body"
        let rows = 40 + Int(random.next() % 50)
        for batch in 0..<4 {
            try connection.execute(sql: "BEGIN")
            for _ in 0..<(rows / 4) {
                var values: [SQLiteValue] = [
                    random.next() % 9 == 0 ? .null : .text(text(&random, words: 1 + Int(random.next() % 4))),
                    random.next() % 13 == 0 ? .integer(Int64(random.next() % 1000)) : .text(text(&random, words: Int(random.next() % 40))),
                ]
                if shape.unindexedColumn { values.append(.text(text(&random, words: 3))) }
                try connection.execute(sql: "INSERT INTO \(target)(\(names)) VALUES (\(values.map { _ in "?" }.joined(separator: ", ")))", bindings: values)
            }
            if batch > 0 {
                for _ in 0..<2 {
                    try connection.execute(sql: "DELETE FROM \(target) WHERE rowid = \(try pick(from: target, on: connection, random: &random))")
                }
                try connection.execute(sql: "UPDATE \(target) SET body = ? WHERE rowid = \(try pick(from: target, on: connection, random: &random))",
                                       bindings: [.text(text(&random, words: 6))])
            }
            try connection.execute(sql: "COMMIT")
        }
        if random.next() % 3 == 0 { try connection.execute(sql: "INSERT INTO ft(ft) VALUES ('optimize')") }
    }

    // MARK: - Drifts

    /// Applies one random drift and names it (the kind, never the text).
    static func applyRandomDrift(to path: String, shape: Shape, random: inout SeededRandom) throws -> String {
        let connection = try Connection(path: path)
        let content = shape.external ? "doc" : "ft_content"
        let first = shape.external ? "title" : "c0"
        let second = shape.external ? "body" : "c1"
        // Triggers would keep the index in step: drifts change the content behind them.
        if shape.external { try connection.execute(sql: "DROP TRIGGER doc_ai; DROP TRIGGER doc_ad; DROP TRIGGER doc_au") }
        let row = try pick(from: content, on: connection, random: &random)
        switch random.next() % 15 {
        case 13:
            // A leaf's header: its first-rowid offset (bytes 0-1) changed (found on real
            // databases: FTS5 follows it, a scan of the entries need not).
            let count = try connection.integer(sql: "SELECT count(*) FROM ft_data WHERE id >= 137438953472 AND (id >> 31) & 63 = 0 AND (id >> 36) & 1 = 0")
            guard count > 0 else { return "nothing" }
            let id = try connection.integer(sql: "SELECT id FROM ft_data WHERE id >= 137438953472 AND (id >> 31) & 63 = 0 AND (id >> 36) & 1 = 0 ORDER BY id LIMIT 1 OFFSET \(random.next() % UInt64(count))")
            let value = [0, 2, 4, 5, 7, 12][Int(random.next() % 6)]
            try connection.execute(sql: "UPDATE ft_data SET block = ? || substr(block, 3) WHERE id = \(id)", bindings: [.blob([UInt8(value >> 8), UInt8(value & 0xFF)])])
            return "leaf header's first-rowid offset"
        case 14:
            // The configuration: a file format version this SQLite's FTS5 does not read
            // (secure-delete's 5 under 3.40), or another.
            try connection.execute(sql: "UPDATE ft_config SET v = \([5, 3, 99][Int(random.next() % 3)]) WHERE k = 'version'")
            return "file format version"
        case 0:
            try connection.execute(sql: "UPDATE \(content) SET \(second) = ? WHERE rowid = \(row)", bindings: [.text(text(&random, words: 5))])
            return "content row changed"
        case 1:
            try connection.execute(sql: "DELETE FROM \(content) WHERE rowid = \(row)")
            return "index entry without a row"
        case 2:
            try connection.execute(sql: "INSERT INTO \(content)(\(shape.external ? "id, " : "id, ")\(first), \(second)) VALUES (100000, ?, ?)",
                                   bindings: [.text(text(&random, words: 2)), .text(text(&random, words: 3))])
            return "row without index entries"
        case 3:
            var other = try pick(from: content, on: connection, random: &random)
            if other == row { other = try connection.integer(sql: "SELECT max(rowid) FROM \(content) WHERE rowid <> \(row)") }
            try connection.execute(sql: """
                UPDATE \(content) SET \(shape.external ? "id" : "id") = -1 WHERE rowid = \(row);
                UPDATE \(content) SET id = \(row) WHERE rowid = \(other);
                UPDATE \(content) SET id = \(other) WHERE rowid = -1;
                """)
            return "swapped rowids"
        case 4:
            var words = ""
            if case .text(let value)? = try connection.scalar(sql: "SELECT \(second) FROM \(content) WHERE rowid = \(row)") { words = value }
            var parts = words.split(separator: " ").map(String.init)
            if parts.isEmpty { parts = ["lone"] } else { parts[Int(random.next() % UInt64(parts.count))] = "changed" }
            try connection.execute(sql: "UPDATE \(content) SET \(second) = ? WHERE rowid = \(row)", bindings: [.text(parts.joined(separator: " "))])
            return "one token changed"
        case 5:
            try connection.execute(sql: "UPDATE \(content) SET \(first) = \(second), \(second) = \(first) WHERE rowid = \(row)")
            return "columns swapped in a row"
        case 6, 7:
            try damageBlock(in: "ft_data", on: connection, random: &random)
            return "damaged index page"
        case 8:
            try damageIdx(on: connection, random: &random)
            return "damaged %_idx"
        case 9:
            if shape.options.contains("columnsize=0") {
                try damageBlock(in: "ft_data", on: connection, random: &random)
                return "damaged index page"
            }
            if random.next() % 2 == 0 {
                try connection.execute(sql: "DELETE FROM ft_docsize WHERE id = \(row)")
                return "docsize row missing"
            }
            try damageBlock(in: "ft_docsize", on: connection, random: &random)
            return "damaged docsize record"
        case 10:
            try damageBlock(in: "ft_data", on: connection, random: &random, rowid: 1)
            return "damaged totals record"
        case 11:
            // An index entry with no content row behind it: FTS5 writes it, the content
            // table never gets it.
            if shape.external {
                try connection.execute(sql: "INSERT INTO ft(rowid, title, body) VALUES (200000, ?, ?)",
                                       bindings: [.text(text(&random, words: 2)), .text(text(&random, words: 2))])
            } else {
                try connection.execute(sql: "DELETE FROM ft_content WHERE id = \(row)")
            }
            return "index entry written without content"
        default:
            // A 'delete' with other text than the row's: entries removed that are not there,
            // and the row's own left behind.
            let values = shape.unindexedColumn ? ", title, body, note) VALUES ('delete', \(row), ?, ?, 'n')" : ", title, body) VALUES ('delete', \(row), ?, ?)"
            if shape.external {
                try connection.execute(sql: "INSERT INTO ft(ft, rowid" + values, bindings: [.text(text(&random, words: 2)), .text(text(&random, words: 3))])
                return "delete with other text"
            }
            try damageBlock(in: "ft_data", on: connection, random: &random)
            return "damaged index page"
        }
    }

    /// Changes one to three bytes of a random row's blob of `table` (or of the row `rowid`).
    static func damageBlock(in table: String, on connection: Connection, random: inout SeededRandom, rowid: Int64? = nil) throws {
        let column = table == "ft_docsize" ? "sz" : "block"
        let count = try connection.integer(sql: "SELECT count(*) FROM \(table) WHERE length(\(column)) > 0")
        guard count > 0 else { return }
        let chosen = try rowid ?? connection.integer(sql: "SELECT id FROM \(table) WHERE length(\(column)) > 0 ORDER BY id LIMIT 1 OFFSET \(random.next() % UInt64(count))")
        let statement = try connection.prepare(sql: "SELECT \(column) FROM \(table) WHERE id = \(chosen)")
        guard try statement.step() else { return }
        var bytes = statement.blob(at: 0)
        guard !bytes.isEmpty else { return }
        for _ in 0...(random.next() % 3) {
            let index = Int(random.next() % UInt64(bytes.count))
            bytes[index] ^= UInt8(1 + random.next() % 255)
        }
        try connection.execute(sql: "UPDATE \(table) SET \(column) = ? WHERE id = \(chosen)", bindings: [.blob(bytes)])
    }

    static func damageIdx(on connection: Connection, random: inout SeededRandom) throws {
        // %_idx is WITHOUT ROWID, keyed by (segid, term).
        let count = try connection.integer(sql: "SELECT count(*) FROM ft_idx")
        guard count > 0 else { return }
        let key = "(segid, term) = (SELECT segid, term FROM ft_idx ORDER BY segid, term LIMIT 1 OFFSET \(random.next() % UInt64(count)))"
        switch random.next() % 3 {
        case 0: try connection.execute(sql: "DELETE FROM ft_idx WHERE \(key)")
        case 1: try connection.execute(sql: "UPDATE ft_idx SET pgno = pgno + 2 WHERE \(key)")
        default: try connection.execute(sql: "UPDATE OR IGNORE ft_idx SET term = X'307A7A7A' WHERE \(key)")
        }
    }

    /// A rowid of `table` chosen by `random` (SQLite's random() would change every run).
    static func pick(from table: String, on connection: Connection, random: inout SeededRandom) throws -> Int64 {
        let count = try connection.integer(sql: "SELECT count(*) FROM \(table)")
        guard count > 0 else { return 1 }
        return try connection.integer(sql: "SELECT rowid FROM \(table) ORDER BY rowid LIMIT 1 OFFSET \(random.next() % UInt64(count))")
    }
}

/// splitmix64: the same drifts on every run.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The digest on a transaction's own connection (migrate): rows FTS5 still holds in memory
/// (its pending data) are part of what it proves.
@Suite struct FTS5SyncDigestTransactionTests {
    @Test func rowsWrittenInTheOpenTransactionAreProved() throws {
        let connection = try Connection.inMemory()
        try connection.execute(sql: """
            CREATE TABLE doc(id INTEGER PRIMARY KEY, body TEXT);
            CREATE VIRTUAL TABLE doc_fts USING fts5(body, content='doc', content_rowid='id');
            INSERT INTO doc(body) VALUES ('printer jammed'), ('paper tray');
            INSERT INTO doc_fts(doc_fts) VALUES ('rebuild');
            BEGIN;
            INSERT INTO doc(body) VALUES ('toner low'), ('network share');
            INSERT INTO doc_fts(rowid, body) SELECT id, body FROM doc WHERE id > 2;
            """)
        let table = try #require(try Schema(reading: connection).fts5Tables.first)
        #expect(try FTS5SyncDigest(table, on: connection, workers: 1, open: nil, minimumLeaves: 0).run() == .passed)
        try connection.execute(sql: "INSERT INTO doc_fts(doc_fts) VALUES ('rebuild')")
        #expect(try FTS5SyncDigest(table, on: connection, workers: 1, open: nil, minimumLeaves: 0).run() == .passed)
        connection.rollbackIfNeeded()
    }
}

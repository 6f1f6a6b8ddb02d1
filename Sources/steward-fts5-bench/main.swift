// The FTS5 check alone, for bench/fts5-check.sh: the library code verify, restore, backup
// and migrate run, on one database, with nothing else around it (no integrity_check, no
// copy). Not installed; built by the bench.
//
// Usage: steward-fts5-bench DB [parallel|sqlite] [WORKERS]
import Foundation
import SQLiteKit
import StewardChecks

let arguments = CommandLine.arguments
guard arguments.count >= 2 else {
    FileHandle.standardError.write(Data("usage: steward-fts5-bench DB [parallel|sqlite] [WORKERS]\n".utf8))
    exit(64)
}
let path = arguments[1]
let kind = arguments.count > 2 ? FTS5CheckKind(rawValue: arguments[2]) ?? .parallel : .parallel
let workers = arguments.count > 3 ? Int(arguments[3]) ?? FTS5CheckMethod.cores : FTS5CheckMethod.cores
do {
    let connection = try Connection(path: path, mode: [.readWrite])
    try connection.harden()
    let method: FTS5CheckMethod = kind == .sqlite ? .sqlite : .parallel(workers: workers) {
        let worker = try Connection(path: path, mode: [.readOnly, .noMutex])
        try worker.harden()
        return worker
    }
    try connection.execute(sql: "BEGIN")
    _ = try connection.integer(sql: "SELECT count(*) FROM sqlite_schema")
    var failed = false
    for table in try Schema(reading: connection).fts5Tables {
        do {
            switch try FTS5IntegrityCheck.check(table, rank: table.contentMode == .external ? 1 : nil, on: connection, method: method) {
            case .digest(let workers): print("\(table.name): passed (digest(workers: \(workers)))")
            case .statement(let reason): print("\(table.name): passed (statement(reason: \(reason ?? "none")))")
            }
        } catch {
            print("\(table.name): failed (\(error))")
            failed = true
        }
    }
    connection.rollbackIfNeeded()
    exit(failed ? 1 : 0)
} catch {
    FileHandle.standardError.write(Data("steward-fts5-bench: \(error)\n".utf8))
    exit(1)
}

import SQLiteKit

/// Line numbers in an SQL file, by byte offset (the offsets SQLite and `forEachStatement`
/// give). The line feeds are found once, so that naming the line of each of many
/// statements does not rescan the file from its start.
struct SourceLines: Sendable {
    let utf8: [UInt8]
    private let lineFeeds: [Int]

    init(_ text: String) {
        let utf8 = Array(text.utf8)
        self.utf8 = utf8
        self.lineFeeds = utf8.indices.filter { utf8[$0] == 0x0A }
    }

    /// The 1-based line of a byte offset: one more than the line feeds before it.
    func line(at offset: Int) -> Int {
        var low = 0, high = lineFeeds.count
        while low < high {
            let middle = (low + high) / 2
            if lineFeeds[middle] < offset { low = middle + 1 } else { high = middle }
        }
        return low + 1
    }

    /// The byte offset of the first token at or after `offset`, past whitespace and comments.
    func firstToken(from offset: Int) -> Int {
        var scanner = SQLScanner(utf8: utf8, from: offset)
        return scanner.offsetOfNextToken()
    }

    /// The line of the first token at or after `offset`: where a statement starts.
    func lineOfFirstToken(from offset: Int) -> Int {
        line(at: firstToken(from: offset))
    }
}

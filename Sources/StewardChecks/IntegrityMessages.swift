/// What `PRAGMA integrity_check` said, as Steward shows it: one line per finding, as the
/// sqlite3 shell prints them. SQLite gives several findings of one b-tree in one row,
/// separated by newlines, under a `*** in database main ***` heading; they are split, and
/// the heading dropped.
///
/// The messages name pages, cells, offsets, tables, indexes, columns and rowids, never a
/// value: read in SQLite 3.40's btree.c (`checkAppendMsg` callers: "Page %u: …", "On tree
/// page %u cell %d: …", "Rowid %lld out of order", "Multiple uses for byte %u of page %u",
/// "%u of %u pages missing from overflow list starting at %u", "freelist leaf count too
/// big on page %u", …) and pragma.c ("NULL value in %s.%s", "non-%s value in %s.%s",
/// "CHECK constraint failed in %s" with the table's name only, "row %d missing from
/// index %s", "non-unique entry in index %s", "wrong # of entries in index %s"). A line of
/// any other shape (a later SQLite's) is not shown, in case it quotes one.
package enum IntegrityMessages {
    /// The beginnings of the messages SQLite 3.40's integrity_check and quick_check give.
    package static let knownBeginnings = [
        "Page ", "On tree page ", "On page ", "Tree ", "Rowid ", "Child page depth differs", "Multiple uses for byte ",
        "Fragmentation of ", "freelist leaf count too big on page ", "Freelist: ", "Main freelist: ", "Pointer map page ",
        "invalid page number ", "2nd reference to page ", "Failed to read ptrmap key=", "Bad ptr map entry key=",
        "max rootpage (", "incremental_vacuum enabled with a max rootpage of zero", "NULL value in ", "CHECK constraint failed in ",
        "non-unique entry in index ", "wrong # of entries in index ", "Extends off end of page", "Offset ",
        "Corruption detected in cell ", "Error reading the pager", "btreeInitPage() returns error code ",
        "Cell pointer ", "Overflow page ", "Page may not be a leaf page",
    ]

    /// One line per finding of `rows`, headings dropped, unknown shapes replaced.
    package static func lines(_ rows: [String]) -> [String] {
        rows.flatMap { $0.split(separator: "\n", omittingEmptySubsequences: true) }
            .map { String($0) }
            .filter { !($0.hasPrefix("*** in database ") && $0.hasSuffix(" ***")) }
            .map(shown)
    }

    /// `line` when it has a known shape, else a placeholder that names no value.
    package static func shown(_ line: String) -> String {
        if knownBeginnings.contains(where: line.hasPrefix) || isKnownRowMessage(line) || line.contains(" pages missing from overflow list starting at ") {
            return line
        }
        return "(a finding integrity_check worded in a way this Steward does not show, since it could quote a value)"
    }

    /// "row N missing from index X", "row N values differ from index X", "non-TYPE value
    /// in T.C", "NUMERIC value in T.C", "TEXT value in T.C": names and rowids only.
    private static func isKnownRowMessage(_ line: String) -> Bool {
        let words = line.split(separator: " ", maxSplits: 4).map(String.init)
        if words.count >= 4, words[0] == "row", Int64(words[1]) != nil,
           line.contains(" missing from index ") || line.contains(" values differ from index ") {
            return true
        }
        if words.count >= 4, words[1] == "value", words[2] == "in",
           words[0].hasPrefix("non-") || words[0] == "NUMERIC" || words[0] == "TEXT" {
            return true
        }
        return false
    }
}

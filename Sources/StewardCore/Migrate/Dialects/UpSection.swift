import Foundation

/// The up part of a file that keeps both directions in one text (goose, dbmate). Lines
/// outside the up part are blanked, not removed, so that SQLite's error offsets still give
/// the file's own line numbers.
enum UpSection {
    static func join(_ lines: [Substring], keeping keep: (Int) -> Bool) -> String {
        lines.enumerated().map { keep($0.offset) ? String($0.element) : "" }.joined(separator: "\n")
    }
}

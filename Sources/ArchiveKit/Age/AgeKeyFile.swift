import Foundation

/// age's key files, as `age -i` and `age -R` read them: one key per line, blank lines and
/// lines starting with `#` ignored, CRLF line ends tolerated. A line that is not a key
/// is an error naming its line number, never its text (it may be a secret key with a
/// typo).
public enum AgeKeyFile {
    /// The identities of an identity file (`AGE-SECRET-KEY-1…` lines, as `age-keygen`
    /// writes them); at least one.
    /// - Throws: `AgeError` for a line that is not a valid identity, or a file with none.
    public static func identities(in contents: String) throws(AgeError) -> [AgeX25519Identity] {
        try keys(in: contents, AgeX25519Identity.init, kind: "age identity (AGE-SECRET-KEY-1…)",
                 none: "identity (AGE-SECRET-KEY-1…)")
    }

    /// The recipients of a recipients file (`age1…` lines); at least one.
    /// - Throws: `AgeError` for a line that is not a valid recipient, or a file with none.
    public static func recipients(in contents: String) throws(AgeError) -> [AgeX25519Recipient] {
        try keys(in: contents, AgeX25519Recipient.init, kind: "age X25519 recipient (age1…)",
                 none: "recipient (age1…)")
    }

    /// Each key line of `contents` parsed by `parse`; at least one. A line `parse` rejects is
    /// "not an `kind`" (by number), a file without a key line holds "no `none`".
    private static func keys<Key>(in contents: String, _ parse: (String) throws(AgeError) -> Key,
                                  kind: String, none: String) throws(AgeError) -> [Key] {
        var keys: [Key] = []
        for (number, line) in keyLines(contents) {
            do {
                keys.append(try parse(line))
            } catch {
                throw .invalidKey("line \(number) is not an \(kind): \(error)")
            }
        }
        guard !keys.isEmpty else { throw .invalidKey("it holds no \(none)") }
        return keys
    }

    /// The lines that should hold a key, with their 1-based numbers.
    private static func keyLines(_ contents: String) -> [(Int, String)] {
        var lines: [(Int, String)] = []
        // By bytes: a String splits "\r\n" as one Character.
        for (index, rawLine) in contents.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            var line = rawLine[...]
            if line.last == 0x0D { line = line.dropLast() }
            if line.isEmpty || line.first == UInt8(ascii: "#") { continue }
            lines.append((index + 1, String(decoding: line, as: UTF8.self)))
        }
        return lines
    }
}

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
        var identities: [AgeX25519Identity] = []
        for (number, line) in keyLines(contents) {
            do {
                identities.append(try AgeX25519Identity(line))
            } catch {
                throw .invalidKey("line \(number) is not an age identity (AGE-SECRET-KEY-1…): \(error)")
            }
        }
        guard !identities.isEmpty else { throw .invalidKey("it holds no identity (AGE-SECRET-KEY-1…)") }
        return identities
    }

    /// The recipients of a recipients file (`age1…` lines); at least one.
    /// - Throws: `AgeError` for a line that is not a valid recipient, or a file with none.
    public static func recipients(in contents: String) throws(AgeError) -> [AgeX25519Recipient] {
        var recipients: [AgeX25519Recipient] = []
        for (number, line) in keyLines(contents) {
            do {
                recipients.append(try AgeX25519Recipient(line))
            } catch {
                throw .invalidKey("line \(number) is not an age X25519 recipient (age1…): \(error)")
            }
        }
        guard !recipients.isEmpty else { throw .invalidKey("it holds no recipient (age1…)") }
        return recipients
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

import Foundation

/// Why an archive could not be written or read. Messages name entries, never their contents.
public enum ArchiveError: Error, LocalizedError, Equatable, Sendable, CustomStringConvertible {
    /// libarchive reported an error; the message is its own (`archive_error_string`).
    case libarchive(operation: String, message: String)
    /// The output could not take the bytes (the errno of the failed write, such as ENOSPC).
    case output(errno: Int32, message: String)
    /// The input could not be read (the errno of the failed read).
    case input(errno: Int32, message: String)
    /// An entry name outside the allowed alphabet or shape.
    case invalidName(String)
    /// The same name twice in one archive.
    case duplicateName(String)
    /// More data, or less, than the entry's declared size.
    case sizeMismatch(name: String, declared: Int64, actual: Int64)
    /// Misuse of the writer: data outside an entry, an entry left open, use after finish.
    case invalidState(String)
    /// The stream is not zstd-compressed, or has more than one compression layer.
    case notZstd
    /// The stream is not a ustar or pax tar archive.
    case notTar(String)
    /// An entry that is not a regular file: a directory, link, device, sparse file.
    case notRegularFile(String)
    /// An entry larger than the reader allows, or the archive as a whole.
    case tooLarge(name: String, limit: Int64)
    /// More entries than the reader allows.
    case tooManyEntries(limit: Int)
    /// The stream ends before the archive does.
    case truncated(String)
    /// The stream is damaged (a checksum, a header or the compressed data).
    case corrupt(String)

    public var description: String {
        switch self {
        case .libarchive(let operation, let message): return "\(operation) failed: \(message)"
        case .output(_, let message): return "cannot write the archive: \(message)"
        case .input(_, let message): return "cannot read the archive: \(message)"
        case .invalidName(let name): return "the entry name '\(Self.printable(name))' is not allowed"
        case .duplicateName(let name): return "the entry '\(name)' appears twice"
        case .sizeMismatch(let name, let declared, let actual):
            return "the entry '\(name)' declares \(declared) bytes but has \(actual)"
        case .invalidState(let message): return message
        case .notZstd: return "the stream is not a single zstd-compressed stream"
        case .notTar(let format): return "the archive is not a ustar or pax tar archive (\(format))"
        case .notRegularFile(let name): return "the entry '\(Self.printable(name))' is not a regular file"
        case .tooLarge(let name, let limit): return "'\(Self.printable(name))' is larger than the limit of \(limit) bytes"
        case .tooManyEntries(let limit): return "the archive holds more than \(limit) entries"
        case .truncated(let message): return "the archive is truncated (\(message))"
        case .corrupt(let message): return "the archive is damaged (\(message))"
        }
    }

    public var errorDescription: String? { description }

    /// A name from a hostile archive, cut short and with control characters escaped, so that
    /// a message cannot be used to draw on the user's terminal.
    static func printable(_ name: String) -> String {
        var text = ""
        for scalar in name.unicodeScalars.prefix(120) {
            if scalar.value < 0x20 || scalar.value == 0x7F {
                text += String(format: "\\x%02X", scalar.value)
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return name.unicodeScalars.count > 120 ? text + "…" : text
    }
}

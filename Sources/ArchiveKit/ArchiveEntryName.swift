/// The names an archive may hold: `/`-separated components of `[A-Za-z0-9._-]`, each
/// starting with a letter, a digit or `_` (so never `.`, `..`, a hidden name or one that a
/// shell tool would read as an option), no leading or trailing `/`, no empty component.
///
/// Checked on both sides: the writer refuses to write such a name, the reader refuses an
/// archive that holds one, so that extracting never leaves the target directory.
public enum ArchiveEntryName {
    public static let maximumLength = 200

    public static func isValid(_ name: String, maximumComponents: Int = 4) -> Bool {
        let bytes = Array(name.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumLength else { return false }
        let components = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard components.count <= maximumComponents else { return false }
        return components.allSatisfy { component in
            guard let first = component.first, isLeading(first) else { return false }
            return component.allSatisfy(isAllowed)
        }
    }

    /// `text` made into one valid component: disallowed bytes become `_`, leading bytes that
    /// may not start a name are dropped, and the result is cut to `maximumLength` bytes.
    /// Returns `fallback` when no letter or digit is left.
    public static func component(from text: String, maximumLength: Int = 100, fallback: String = "database") -> String {
        var bytes = text.utf8.map { isAllowed($0) ? $0 : UInt8(ascii: "_") }
        while let first = bytes.first, !isLeading(first) { bytes.removeFirst() }
        let result = bytes.prefix(maximumLength)
        let hasLetterOrDigit = result.contains { isLeading($0) && $0 != UInt8(ascii: "_") }
        return hasLetterOrDigit ? String(decoding: result, as: UTF8.self) : fallback
    }

    /// A name from a hostile archive or manifest, fit for a message: cut short, control
    /// characters escaped, so that it cannot draw on the user's terminal.
    public static func printable(_ name: String) -> String {
        ArchiveError.printable(name)
    }

    private static func isLeading(_ byte: UInt8) -> Bool {
        isAllowed(byte) && byte != UInt8(ascii: ".") && byte != UInt8(ascii: "-")
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: stdout for the report, stderr for diagnostics and progress.
/// Tests substitute their own.
public final class Terminal: @unchecked Sendable {
    private let writeOut: (String) -> Void
    private let writeError: (String) -> Void
    /// Whether stderr is a terminal (progress bars only then).
    public let isErrorInteractive: Bool

    public init(out: @escaping (String) -> Void, error: @escaping (String) -> Void, isErrorInteractive: Bool) {
        self.writeOut = out
        self.writeError = error
        self.isErrorInteractive = isErrorInteractive
    }

    /// The process's own stdout and stderr.
    public static func standard() -> Terminal {
        Terminal(
            out: { text in FileHandle.standardOutput.write(Data(text.utf8)) },
            error: { text in FileHandle.standardError.write(Data(text.utf8)) },
            isErrorInteractive: isatty(STDERR_FILENO) == 1)
    }

    public func print(_ text: String) {
        let clean = Self.printable(text)
        writeOut(clean.hasSuffix("\n") ? clean : clean + "\n")
    }

    public func diagnose(_ text: String) {
        let clean = Self.printable(text)
        writeError(clean.hasSuffix("\n") ? clean : clean + "\n")
    }

    /// Names in reports come from the files Steward reads (tables, triggers, entries): a
    /// hostile one could hold terminal escape sequences. Control characters other than
    /// newline and tab are shown as `?`. (JSON escapes them itself.)
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            result.append(isControl(scalar) ? "?" : scalar)
        }
        return String(result)
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        return (value < 0x20 && scalar != "\n" && scalar != "\t") || value == 0x7F || (0x80...0x9F).contains(value)
    }

    /// Writes to stderr without a newline (progress lines redraw with `\r`).
    public func progress(_ text: String) {
        writeError(text)
    }
}

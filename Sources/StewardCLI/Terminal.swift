import FileNames
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes: stdout for the report, stderr for diagnostics and progress.
/// Tests substitute their own.
public final class Terminal: Sendable {
    private let writeOut: @Sendable (String) -> Void
    private let writeError: @Sendable (String) -> Void
    /// Whether stderr is a terminal (progress bars only then).
    public let isErrorInteractive: Bool

    public init(out: @escaping @Sendable (String) -> Void, error: @escaping @Sendable (String) -> Void, isErrorInteractive: Bool) {
        self.writeOut = out
        self.writeError = error
        self.isErrorInteractive = isErrorInteractive
    }

    /// Whether standard input is a terminal: a bundle is never read from one.
    public static var isInputInteractive: Bool { isatty(STDIN_FILENO) == 1 }

    /// Whether standard output is a terminal: a bundle is never written to one.
    public static var isOutputInteractive: Bool { isatty(STDOUT_FILENO) == 1 }

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

    /// The last line of defence for whole texts: every name from a file is escaped where
    /// it is put into a line (`ReportOutput.escaped`), which keeps it on that line; what
    /// is left here are the report's own newlines and tabs. Any other control character
    /// is shown as `?`, and a byte of a file name that is not UTF-8 as `\xHH`.
    static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { isControl($0) || FileName.rawByte($0) != nil }) else { return text }
        var result = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if let byte = FileName.rawByte(scalar) {
                result.append(contentsOf: String(format: "\\x%02X", byte).unicodeScalars)
            } else {
                result.append(isControl(scalar) ? "?" : scalar)
            }
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

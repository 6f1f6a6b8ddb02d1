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
        writeOut(text.hasSuffix("\n") ? text : text + "\n")
    }

    public func diagnose(_ text: String) {
        writeError(text.hasSuffix("\n") ? text : text + "\n")
    }

    /// Writes to stderr without a newline (progress lines redraw with `\r`).
    public func progress(_ text: String) {
        writeError(text)
    }
}

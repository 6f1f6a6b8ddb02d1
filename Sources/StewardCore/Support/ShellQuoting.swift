import Foundation

/// Words for a POSIX shell, for commands Steward prints for people to run.
enum ShellQuoting {
    /// `word` as is when it holds only characters no shell treats specially; otherwise in
    /// single quotes, each `'` written as `'\''`.
    static func quoted(_ word: String) -> String {
        let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
            (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || (scalar >= "0" && scalar <= "9")
                || "/._-+:,@%=".unicodeScalars.contains(scalar)
        }
        if plain { return word }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

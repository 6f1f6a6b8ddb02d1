/// A command's words after its name, read one at a time as the parser reads them: `--`
/// ends options, `-` and any word not starting with `-` is positional, `--name=value`
/// carries its value, and an option that takes a value takes the next word unless that
/// starts with `--`.
struct CommandLineWords {
    enum Word {
        case positional(String)
        /// `--name`, `-n` or `--name=value`, as written before any `=`.
        case option(name: String, inlineValue: String?)
    }

    private let words: [String]
    private var index = 0
    private var optionsEnded = false

    init(_ words: [String]) {
        self.words = words
    }

    mutating func next() -> Word? {
        while index < words.count {
            let word = words[index]
            index += 1
            if optionsEnded || word == "-" || !word.hasPrefix("-") { return .positional(word) }
            if word == "--" {
                optionsEnded = true
                continue
            }
            let parts = word.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return .option(name: String(parts[0]), inlineValue: parts.count == 2 ? String(parts[1]) : nil)
        }
        return nil
    }

    /// The next word as the value of the option just read, unless it is an option itself.
    mutating func value() -> String? {
        guard index < words.count, !words[index].hasPrefix("--") else { return nil }
        defer { index += 1 }
        return words[index]
    }
}

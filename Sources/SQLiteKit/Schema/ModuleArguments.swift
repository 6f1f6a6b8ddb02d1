
extension SQLScanner {
    /// The arguments of `CREATE VIRTUAL TABLE … USING module(…)`, each as its tokens, from
    /// `tokens`, which start after the opening parenthesis: a comma outside nested
    /// parentheses ends an argument, the parenthesis that closes the list (or the end of
    /// the tokens) the last one. An argument may be empty (`()`, a stray comma).
    static func moduleArguments(_ tokens: ArraySlice<Token>) -> [[Token]] {
        var arguments: [[Token]] = [[]]
        var depth = 0
        for token in tokens {
            if token.kind == .symbol && token.text == "(" { depth += 1 }
            if token.kind == .symbol && token.text == ")" {
                if depth == 0 { break }
                depth -= 1
            }
            if token.kind == .symbol && token.text == "," && depth == 0 {
                arguments.append([])
            } else {
                arguments[arguments.count - 1].append(token)
            }
        }
        return arguments
    }
}

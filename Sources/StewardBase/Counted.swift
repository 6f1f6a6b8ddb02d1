/// A count with its noun, as text output and check summaries say it: the singular for
/// exactly one ("1 statement", "0 statements", "3 statements"). JSON carries the number
/// alone; only the words change.
public enum Counted {
    /// `3 statements`, `1 statement`. `plural` for a noun that does not take an s.
    public static func phrase(_ count: some BinaryInteger, _ noun: String, plural: String? = nil) -> String {
        "\(count) \(self.noun(noun, plural: plural, for: count))"
    }

    /// The noun alone, for a count said apart from it (`2 of 1 table`, `1 of 3 tables`:
    /// the noun follows the total).
    public static func noun(_ noun: String, plural: String? = nil, for count: some BinaryInteger) -> String {
        count == 1 ? noun : plural ?? noun + "s"
    }
}

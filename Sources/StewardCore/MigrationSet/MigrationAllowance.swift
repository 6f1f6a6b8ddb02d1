import StewardBase

/// Something a migration may lose on purpose, written where it is reviewed: a
/// `-- steward: allow KIND NAME` comment in the migration's up part, or given by the caller
/// for a set it cannot edit (an application's own migrations).
public struct MigrationAllowance: Sendable, Hashable, Codable {
    public enum Kind: String, CaseIterable, Codable, Sendable {
        /// A table that still exists after the run may hold fewer rows.
        case rowLoss = "row-loss"
        /// An index (or trigger, or view) may disappear with the table it belongs to.
        case dropIndex = "drop-index", dropTrigger = "drop-trigger", dropView = "drop-view"
        /// A table may lose STRICT, WITHOUT ROWID or AUTOINCREMENT.
        case optionChange = "option-change"
        /// A table's `sqlite_sequence` value may go down.
        case sequenceReset = "sequence-reset"

        /// What the NAME of this kind names.
        var names: String {
            switch self {
            case .rowLoss, .optionChange, .sequenceReset: "TABLE"
            case .dropIndex: "INDEX"
            case .dropTrigger: "TRIGGER"
            case .dropView: "VIEW"
            }
        }
    }

    public let kind: Kind
    public let name: String
    /// Where it was given: `FILE:LINE` of the comment, or nil when the caller gave it.
    public let location: String?

    /// How the reports name where an allowance without a location came from: the caller
    /// (the command line's `--allow`, or a library call).
    public static let givenByCaller = "caller"

    public init(kind: Kind, name: String, location: String?) {
        self.kind = kind
        self.name = name
        self.location = location
    }

    /// Whether it allows `kind` for the object or table `name` (names compare as SQLite
    /// compares identifiers, ASCII case-insensitively).
    func allows(_ kind: Kind, _ name: String) -> Bool {
        self.kind == kind && self.name.caseInsensitiveEquals(name)
    }

    /// The kinds, as the grammar lists them in messages.
    public static let grammar = Kind.allCases.map { "\($0.rawValue) \($0.names)" }.joined(separator: ", ")

    /// Reads `KIND:NAME` (the caller's form). Returns nil with the reason when it is not one.
    public static func parse(callerValue value: String) -> Result<MigrationAllowance, AllowanceError> {
        guard let colon = value.firstIndex(of: ":") else {
            return .failure(AllowanceError("'\(value)' is not KIND:NAME (kinds: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")))"))
        }
        let kindText = String(value[..<colon])
        let name = unquoted(String(value[value.index(after: colon)...]))
        guard let kind = Kind(rawValue: kindText) else {
            return .failure(AllowanceError("unknown kind '\(kindText)' (kinds: \(Kind.allCases.map(\.rawValue).joined(separator: ", ")))"))
        }
        guard !name.isEmpty else { return .failure(AllowanceError("'\(value)' names nothing after '\(kindText):'")) }
        return .success(MigrationAllowance(kind: kind, name: name, location: nil))
    }

    /// Reads the words after `allow` in a migration's comment.
    static func parse(words: [Substring], location: String) throws -> MigrationAllowance {
        guard words.count == 2 else {
            throw StewardError(.badInput, "\(location): an allowance is '-- steward: allow KIND NAME' (\(grammar))")
        }
        guard let kind = Kind(rawValue: String(words[0])) else {
            throw StewardError(.badInput, "\(location): unknown allowance kind '\(words[0])' (kinds: \(grammar))")
        }
        let name = unquoted(String(words[1]))
        guard !name.isEmpty else {
            throw StewardError(.badInput, "\(location): the allowance '\(kind.rawValue)' names no \(kind.names.lowercased())")
        }
        return MigrationAllowance(kind: kind, name: name, location: location)
    }

    /// A name as written in SQL: `"x"`, `` `x` `` and `[x]` are `x`.
    static func unquoted(_ text: String) -> String {
        guard text.count >= 2, let first = text.first, let last = text.last else { return text }
        let pairs: [Character: Character] = ["\"": "\"", "`": "`", "[": "]", "'": "'"]
        guard pairs[first] == last else { return text }
        return String(text.dropFirst().dropLast())
    }
}

/// Why a caller's allowance cannot be read.
public struct AllowanceError: Error, Sendable {
    public let message: String
    init(_ message: String) { self.message = message }
}

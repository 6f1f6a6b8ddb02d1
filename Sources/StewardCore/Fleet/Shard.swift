/// `--shard K/N`: the K-th of N deterministic shares of a database list (K from 1).
public struct Shard: Sendable, Equatable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]),
              parts.allSatisfy({ $0.allSatisfy { ("0"..."9").contains($0) } }),
              count >= 1, count <= 1_000_000, (1...count).contains(index)
        else { return nil }
        self.index = index
        self.count = count
    }

    public var description: String { "\(index)/\(count)" }
}

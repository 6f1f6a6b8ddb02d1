import Foundation

/// One migration file: `NNNN_name.sql` or golang-migrate's `N_name.up.sql`.
public struct Migration: Sendable, Equatable {
    /// The numeric prefix: what `user_version` becomes once the migration is applied.
    public let version: Int32
    /// The file name, as shown in messages and reports.
    public let fileName: String
    public let path: String
    public let sql: String
}

/// A directory of migrations, ordered by version.
public struct MigrationSet: Sendable {
    public let directory: String
    public let migrations: [Migration]
    /// Files that are not migrations: `.down.sql` files and anything not ending in `.sql`.
    public let ignoredFiles: [String]

    /// The highest version in the set, or 0 for an empty set.
    public var newestVersion: Int32 { migrations.last?.version ?? 0 }

    /// Reads and checks a migration directory.
    ///
    /// - Throws: `.notFound` when the directory does not exist; `.badInput` naming the
    ///   file for a `.sql` file without a version prefix, a duplicate or out-of-range
    ///   version, or a file that is not UTF-8.
    public init(directory: String) throws {
        guard Paths.exists(directory) else {
            throw StewardError(.notFound, "\(directory): no such migrations directory")
        }
        guard Paths.isDirectory(directory) else {
            throw StewardError(.badInput, "\(directory) is not a directory of migrations")
        }
        let names: [String]
        do {
            names = try Paths.names(in: directory).sorted()
        } catch {
            throw StewardError(.notFound, "cannot read the migrations directory \(directory): \(error.localizedDescription)")
        }

        var migrations: [Migration] = []
        var ignored: [String] = []
        var seen: [Int32: String] = [:]
        for name in names {
            guard name.hasSuffix(".sql"), !name.hasPrefix(".") else {
                ignored.append(name)
                continue
            }
            if name.hasSuffix(".down.sql") {
                ignored.append(name)
                continue
            }
            let version = try Self.version(of: name, in: directory)
            if let other = seen[version] {
                throw StewardError(.badInput, "\(Self.display(directory, name)): version \(version) is also used by \(other)")
            }
            seen[version] = name
            let path = Paths.join(directory, name)
            guard let data = Paths.contents(of: path) else {
                throw StewardError(.notFound, "cannot read \(Self.display(directory, name))")
            }
            guard let sql = String(data: data, encoding: .utf8) else {
                throw StewardError(.badInput, "\(Self.display(directory, name)): not UTF-8 text")
            }
            migrations.append(Migration(version: version, fileName: name, path: path, sql: sql))
        }
        self.directory = directory
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.ignoredFiles = ignored
    }

    /// The version prefix of a migration file name.
    static func version(of name: String, in directory: String) throws -> Int32 {
        let digits = name.prefix { $0.isASCII && $0.isNumber }
        let rest = name.dropFirst(digits.count)
        guard !digits.isEmpty, rest.hasPrefix("_") || rest.hasPrefix(".") else {
            throw StewardError(
                .badInput,
                "\(display(directory, name)): a migration file name must start with its version, like 0001_name.sql")
        }
        let trimmed = digits.drop { $0 == "0" }
        guard let value = Int64(trimmed.isEmpty ? "0" : String(trimmed)), trimmed.count <= 10,
              (1...Int64(Int32.max)).contains(value)
        else {
            throw StewardError(
                .badInput,
                "\(display(directory, name)): version \(digits) is out of range (1 to \(Int32.max), the range of user_version)")
        }
        return Int32(value)
    }

    static func display(_ directory: String, _ name: String) -> String {
        Paths.join(directory, name)
    }

    /// The migrations after `current` up to and including `target`.
    public func pending(after current: Int32, upTo target: Int32) -> [Migration] {
        migrations.filter { $0.version > current && $0.version <= target }
    }
}

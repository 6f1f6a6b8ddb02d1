import ArchiveKit
import Foundation
import StewardBase

/// The keys of encrypted bundles, as the command line names them: X25519 recipients to
/// encrypt to (`backup`), identity files to open with (`restore`, `inspect`), and a
/// passphrase for either, read from a file or an environment variable, never from the
/// command line, where other users can read it.
public struct BundleKeys: Sendable, Equatable {
    public enum PassphraseSource: Sendable, Equatable {
        case file(String)
        case environment(String)
    }

    /// `age1…` recipients as given.
    public var recipients: [String] = []
    /// Files of `age1…` lines.
    public var recipientsFiles: [String] = []
    /// Files of `AGE-SECRET-KEY-1…` lines.
    public var identityFiles: [String] = []
    public var passphrase: PassphraseSource?
    /// The scrypt work factor for a new passphrase bundle (age's default, 18; tests use less).
    public var workFactor = AgeScrypt.defaultWorkFactor

    public init() {}

    /// Whether a backup is to be encrypted.
    public var encrypts: Bool { !recipients.isEmpty || !recipientsFiles.isEmpty || passphrase != nil }

    /// Whether anything is given that may open an encrypted bundle.
    public var canOpen: Bool { !identityFiles.isEmpty || passphrase != nil }

    /// Why `text` is not an age X25519 recipient, or nil when it is one.
    public static func problem(withRecipient text: String) -> String? {
        do {
            _ = try AgeX25519Recipient(text)
            return nil
        } catch {
            return "\(error)"
        }
    }

    // MARK: - Reading the keys

    /// The recipients of a backup: `--recipient`s, then each recipients file in order, or
    /// the passphrase alone.
    package func recipientsForEncryption() throws -> [AgeRecipient] {
        if let passphrase {
            guard recipients.isEmpty, recipientsFiles.isEmpty else {
                throw StewardError(.badInput, "a passphrase must be the only recipient of an encrypted bundle")
            }
            return [.passphrase(try Self.read(passphrase), workFactor: TestHooks.scryptWorkFactor ?? workFactor)]
        }
        var result: [AgeRecipient] = []
        for text in recipients {
            do {
                result.append(.x25519(try AgeX25519Recipient(text)))
            } catch {
                throw StewardError(.badInput, "the recipient '\(text)' is not valid: \(error)")
            }
        }
        for path in recipientsFiles {
            result += try Self.readKeyFile(path, what: "recipients file") { try AgeKeyFile.recipients(in: $0).map { .x25519($0) } }
        }
        return result
    }

    /// What may open a bundle: every identity of every identity file, and the passphrase.
    func identities() throws -> [AgeIdentity] {
        var result: [AgeIdentity] = []
        for path in identityFiles {
            result += try Self.readKeyFile(path, what: "identity file") { try AgeKeyFile.identities(in: $0).map { .x25519($0) } }
        }
        if let passphrase { result.append(.passphrase(try Self.read(passphrase))) }
        return result
    }

    /// A key file is small; a larger one is not a key file.
    static let maximumKeyFileSize = 1 << 20

    /// The keys `parse` finds in the file at `path`, the `what` of the messages (65 when
    /// they are not valid).
    private static func readKeyFile<Key>(_ path: String, what: String, parse: (String) throws -> [Key]) throws -> [Key] {
        let contents = String(decoding: try readSmallFile(path, what: what), as: UTF8.self)
        do {
            return try parse(contents)
        } catch {
            throw StewardError(.badInput, "the \(what) \(path) is not valid: \(error)")
        }
    }

    private static func readSmallFile(_ path: String, what: String) throws -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw StewardError(.notFound, "cannot read the \(what) \(path): \(SystemCall.message(errno == 0 ? ENOENT : errno))")
        }
        defer { try? handle.close() }
        do {
            let data = try handle.read(upToCount: maximumKeyFileSize + 1) ?? Data()
            guard data.count <= maximumKeyFileSize else {
                throw StewardError(.badInput, "the \(what) \(path) is larger than \(maximumKeyFileSize) bytes")
            }
            return [UInt8](data)
        } catch let error as StewardError {
            throw error
        } catch {
            throw StewardError(.notFound, "cannot read the \(what) \(path): \(error.localizedDescription)")
        }
    }

    /// The passphrase's bytes: a file's first line (its line end removed), or a
    /// variable's value. Never printed.
    static func read(_ source: PassphraseSource) throws -> [UInt8] {
        var bytes: [UInt8]
        switch source {
        case .file(let path):
            bytes = try readSmallFile(path, what: "passphrase file")
            if let newline = bytes.firstIndex(of: 0x0A) { bytes = Array(bytes[..<newline]) }
            if bytes.last == 0x0D { bytes.removeLast() }
            guard !bytes.isEmpty else { throw StewardError(.badInput, "the passphrase file \(path) holds no passphrase on its first line") }
        case .environment(let name):
            guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else {
                throw StewardError(.badInput, "the environment variable \(name) holds no passphrase")
            }
            bytes = Array(value.utf8)
        }
        return bytes
    }
}

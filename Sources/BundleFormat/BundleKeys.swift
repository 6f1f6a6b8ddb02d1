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
            let contents = try Self.readKeyFile(path, what: "recipients file")
            do {
                result += try AgeKeyFile.recipients(in: contents).map { .x25519($0) }
            } catch {
                throw StewardError(.badInput, "the recipients file \(path) is not valid: \(error)")
            }
        }
        return result
    }

    /// What may open a bundle: every identity of every identity file, and the passphrase.
    func identities() throws -> [AgeIdentity] {
        var result: [AgeIdentity] = []
        for path in identityFiles {
            let contents = try Self.readKeyFile(path, what: "identity file")
            do {
                result += try AgeKeyFile.identities(in: contents).map { .x25519($0) }
            } catch {
                throw StewardError(.badInput, "the identity file \(path) is not valid: \(error)")
            }
        }
        if let passphrase { result.append(.passphrase(try Self.read(passphrase))) }
        return result
    }

    /// A key file is small; a larger one is not a key file.
    static let maximumKeyFileSize = 1 << 20

    private static func readKeyFile(_ path: String, what: String) throws -> String {
        let bytes = try readSmallFile(path, what: what)
        return String(decoding: bytes, as: UTF8.self)
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

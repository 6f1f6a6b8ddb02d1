import CArchive
import CCrypto

/// libarchive or libcrypto could not be loaded. Neither is linked: each is loaded the first
/// time a command needs it, so that a no-op migrate, verify or inspect does not pay for
/// loading them and their dependencies at every start (issue 14). The message names the
/// library and says why (dlerror()), as "cannot load libarchive.so.13: …".
public struct SharedLibraryError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String

    public var description: String { message }

    /// Loads libarchive, once per process.
    /// - Throws: `SharedLibraryError` when it cannot be loaded.
    static func loadArchive() throws(SharedLibraryError) {
        if let failure = steward_archive_load() { throw SharedLibraryError(message: String(cString: failure)) }
    }

    /// Loads libcrypto, once per process.
    /// - Throws: `SharedLibraryError` when it cannot be loaded.
    static func loadCrypto() throws(SharedLibraryError) {
        if let failure = steward_crypto_load() { throw SharedLibraryError(message: String(cString: failure)) }
    }
}

import BundleFormat

/// `steward inspect` as one operation: a database file (`Inspector`), a bundle
/// (`BundleInspector`, verified by streaming), an encrypted bundle no key given opens
/// (its recipients only), or the content digests of either (`DigestInspector`).
public struct Inspection: StewardOperation {
    public struct Options: Sendable {
        public var path: String
        public var keys = BundleKeys()
        /// `--digest`: the content digests instead of the description.
        public var digest = false
        /// `--load-extension`: loaded into the connection to a database (not used for a
        /// bundle, whose manifest is read without SQLite).
        public var extensions: [String] = []

        public init(path: String) {
            self.path = path
        }
    }

    /// Nothing is reported while an inspection runs.
    public typealias Event = Never

    /// One of the four reports, encoded as that report alone (the JSON of each is unchanged).
    public enum Report: Encodable, Sendable {
        case database(InspectReport)
        case bundle(BundleInspectReport)
        case encryptedBundle(EncryptedBundleReport)
        case digests(DigestReport)

        public func encode(to encoder: any Encoder) throws {
            switch self {
            case .database(let report): try report.encode(to: encoder)
            case .bundle(let report): try report.encode(to: encoder)
            case .encryptedBundle(let report): try report.encode(to: encoder)
            case .digests(let report): try report.encode(to: encoder)
            }
        }
    }

    public let setup: OperationSetup<Options, Event>

    public init(setup: OperationSetup<Options, Event>) {
        self.setup = setup
    }

    /// Whether the run polls its cancellation. A plain database's inspection does not:
    /// it is left to SIGINT's default action, which ends it at once.
    public static func isCancellable(_ options: Options) -> Bool {
        options.digest || BundleInspector.isBundle(path: options.path)
    }

    public func run() throws -> Report {
        let path = options.path
        // An extension that cannot load is a bad input (65), before the file is opened.
        try ExtensionLoading.requireLoadable(options.extensions)
        if options.digest {
            return .digests(try DigestInspector().inspect(
                path: path, keys: options.keys, extensions: options.extensions, cancellation: cancellation))
        }
        guard BundleInspector.isBundle(path: path) else {
            return .database(try Inspector().inspect(path: path, extensions: options.extensions))
        }
        if BundleInspector.isEncrypted(path: path), !options.keys.canOpen {
            return .encryptedBundle(try BundleInspector().inspectEncrypted(path: path))
        }
        return .bundle(try BundleInspector().inspect(path: path, keys: options.keys, cancellation: cancellation))
    }
}

import ArchiveKit
import Foundation

/// A bundle read back with ArchiveKit's reader: its entries in order, the manifest and
/// checksum list, and the database written out to a file.
public struct BundleContents {
    public let entryNames: [String]
    public let manifest: [String: Any]
    public let checksumList: String
    /// Where the `data/…` entry was written.
    public let databasePath: String
    /// SHA-256 of the database entry as read.
    public let databaseSHA256: String

    /// Reads `bundle` and writes its database entry to `directory/<file name>`.
    public init(reading bundle: String, extractingInto directory: String) throws {
        let reader = try ArchiveReader(path: bundle)
        var names: [String] = []
        var manifest: [String: Any] = [:]
        var checksums = ""
        var databasePath = ""
        var databaseSHA256 = ""
        while let entry = try reader.nextEntry() {
            names.append(entry.name)
            switch entry.name {
            case "manifest.json":
                let bytes = try reader.readContents(maximumSize: 1 << 20).bytes
                manifest = (try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]) ?? [:]
            case "manifest-sha256.txt":
                checksums = String(decoding: try reader.readContents(maximumSize: 1 << 20).bytes, as: UTF8.self)
            default:
                databasePath = (directory as NSString).appendingPathComponent((entry.name as NSString).lastPathComponent)
                guard FileManager.default.createFile(atPath: databasePath, contents: nil),
                      let handle = FileHandle(forWritingAtPath: databasePath) else {
                    throw CocoaError(.fileWriteUnknown)
                }
                defer { try? handle.close() }
                databaseSHA256 = try reader.readData { block in handle.write(Data(block)) }.sha256
            }
        }
        self.entryNames = names
        self.manifest = manifest
        self.checksumList = checksums
        self.databasePath = databasePath
        self.databaseSHA256 = databaseSHA256
    }
}

import ArchiveKit
@testable import BundleFormat
import Foundation
import SQLiteKit
@testable import StewardBase
@testable import StewardCore
import TestSupport
import Testing

@Suite struct ManifestValidationTests {
    let parts: BundleParts

    init() throws {
        parts = try ExampleBundle().parts
    }

    func decode(_ parts: BundleParts) -> Result<BundleManifest, StewardError> {
        Result { try ManifestValidation.decode(parts.manifestBytes) { StewardError(.badInput, $0) } }
            .mapError { $0 as? StewardError ?? StewardError(.internal, "\($0)") }
    }

    func message(_ edit: (inout BundleParts) -> Void) -> String? {
        var edited = parts
        edit(&edited)
        guard case .failure(let error) = decode(edited) else { return nil }
        #expect(error.kind == .badInput)
        return error.message
    }

    @Test func theExampleManifestIsValid() throws {
        let manifest = try decode(parts).get()
        #expect(manifest.formatVersion == 1)
        #expect(manifest.files.first?.path == "data/tickets.sqlite")
    }

    @Test func unknownVersionsAndFormatsAreNamed() {
        #expect(message { $0.manifest["formatVersion"] = 2 } == "manifest.json has the unknown format version 2; this Steward reads version 1")
        #expect(message { $0.manifest["formatVersion"] = nil } == "manifest.json is malformed: formatVersion is missing")
        #expect(message { $0.manifest["format"] = "zip" } == "manifest.json is not a Steward bundle manifest (format 'zip', expected 'steward-bundle')")
        #expect(message { $0.manifest["format"] = nil }?.contains("format missing") == true)
    }

    @Test func notJSONIsMalformed() {
        let result = Result { try ManifestValidation.decode(Array("{not json".utf8)) { StewardError(.badInput, $0) } }
        guard case .failure(let error as StewardError) = result else { Issue.record("accepted"); return }
        #expect(error.message == "manifest.json is malformed: it is not a JSON object")
        let array = Result { try ManifestValidation.decode(Array("[1, 2]".utf8)) { StewardError(.badInput, $0) } }
        guard case .failure = array else { Issue.record("accepted an array"); return }
    }

    @Test func missingAndMistypedFieldsAreNamedWithoutTheirValues() {
        #expect(message { $0.manifest["source"] = nil } == "manifest.json is malformed: source is missing")
        #expect(message { $0.setSource("userVersion", "two") } == "manifest.json is malformed: source.userVersion is not an integer in range")
        let outOfRange = message { $0.setSource("userVersion", 4_000_000_000) }
        #expect(outOfRange?.hasPrefix("manifest.json is malformed: ") == true, "\(outOfRange ?? "accepted")")
        #expect(message { parts in
            var file = parts.file
            file["sha256"] = nil
            parts.file = file
        } == "manifest.json is malformed: files[0].sha256 is missing")
    }

    @Test func fileListsAreChecked() {
        #expect(message { $0.manifest["files"] = [] }?.contains("exactly one payload file, this one lists 0") == true)
        #expect(message { $0.manifest["files"] = [$0.file, $0.file] }?.contains("this one lists 2") == true)
        for path in ["../x.sqlite", "/etc/passwd", "data/../x", "tickets.sqlite", "other/x.sqlite", "data/a/b", "data/.x"] {
            #expect(message { parts in
                var file = parts.file
                file["path"] = path
                parts.file = file
            }?.contains("is not data/NAME") == true, "\(path)")
        }
        #expect(message { parts in
            var file = parts.file
            file["sha256"] = String(repeating: "A", count: 64)
            parts.file = file
        }?.contains("is not 64 lower-case hex digits") == true)
        #expect(message { parts in
            var file = parts.file
            file["size"] = -1
            parts.file = file
        }?.contains("is negative") == true)
        #expect(message { $0.setSource("pageSize", 1000) }?.contains("the page size 1000") == true)
    }
}

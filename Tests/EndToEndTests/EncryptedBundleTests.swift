import Foundation
import SQLiteKit
import Testing
import TestSupport

enum AgeTool {
    static let isInstalled = ["/usr/bin/age", "/usr/bin/age-keygen"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    /// `age` reads a passphrase only from a terminal; util-linux `script` gives it one.
    static let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")
}

/// Encrypted bundles (age) through the binary: interoperability with the `age` tool both
/// ways, proof that the bytes on disk are ciphertext, and the refusals (77 without a key
/// that opens the bundle, 65 for a damaged one), with nothing written.
@Suite(.enabled(if: AgeTool.isInstalled, "the age and age-keygen tools (Debian package age) are not installed"))
struct EncryptedBundleTests {
    static let tableName = "customer_orders_table"

    let directory: TemporaryDirectory
    /// 64 random bytes stored in a row: they must not appear in the ciphertext.
    let planted: [UInt8]
    let keyFile: String
    let recipient: String
    var database: String { directory.file("shop.sqlite") }
    var out: String { directory.file("bundles") }
    var into: String { directory.file("restored") }

    init() throws {
        directory = try TemporaryDirectory(prefix: "steward-age-e2e")
        planted = (0..<64).map { _ in UInt8.random(in: 0...255) }
        let connection = try Connection(path: directory.file("shop.sqlite"))
        try connection.execute(sql: "CREATE TABLE \(Self.tableName)(id INTEGER PRIMARY KEY, note TEXT, secret BLOB)")
        for index in 0..<200 {
            try connection.execute(sql: "INSERT INTO \(Self.tableName)(note, secret) VALUES (?, ?)",
                                   bindings: [.text("order \(index)"), .blob(index == 100 ? planted : [UInt8(index % 256)])])
        }
        try FileManager.default.createDirectory(atPath: directory.file("bundles"), withIntermediateDirectories: true)
        keyFile = directory.file("key.txt")
        let keygen = try systemTool(["age-keygen", "-o", keyFile])
        try #require(keygen.status == 0, "\(keygen.output)")
        recipient = try systemTool(["age-keygen", "-y", keyFile]).output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func backup(_ extra: [String], name: String? = nil, environment: [String: String] = [:]) throws -> (StewardRun, String) {
        var arguments = ["backup", "--db", database, "--out", out, "--quiet", "--json"] + extra
        if let name { arguments += ["--name", name] }
        let run = try StewardProcess.run(arguments, environment: environment)
        let path = (try? run.json()["bundle"] as? [String: Any])?["path"] as? String ?? ""
        return (run, path)
    }

    func bytes(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = directory.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        haystack.firstRange(of: needle) != nil
    }

    /// Nothing was created: no target directory, and no staging directory beside it.
    func expectNothingWritten(sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(!FileManager.default.fileExists(atPath: into), sourceLocation: sourceLocation)
        let leftovers = try directory.contents().filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "\(leftovers)", sourceLocation: sourceLocation)
    }

    // MARK: - Interoperability

    /// Steward encrypts; the standard tools alone open and check it:
    /// `age -d -i key.txt bundle | tar --zstd -x`, then `sha256sum -c`.
    @Test func stewardEncryptedBundleOpensWithAgeTarAndSha256sum() throws {
        let (run, bundle) = try backup(["--recipient", recipient, "--recipient", try systemTool(["sh", "-c", "age-keygen 2>/dev/null | age-keygen -y"]).output.trimmingCharacters(in: .whitespacesAndNewlines)])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(bundle.hasSuffix(".tar.zst.age"))
        let report = try run.json()
        let encryption = try #require(report["encryption"] as? [String: Any])
        #expect(encryption["recipientTypes"] as? [String] == ["X25519", "X25519"])
        let extracted = directory.file("extracted")
        try FileManager.default.createDirectory(atPath: extracted, withIntermediateDirectories: true)
        let pipeline = try systemTool(["sh", "-c", "age -d -i \"$1\" \"$2\" | tar --zstd -x -C \"$3\"", "sh", keyFile, bundle, extracted])
        #expect(pipeline.status == 0, "\(pipeline.output)")
        let check = try systemTool(["sha256sum", "-c", "manifest-sha256.txt"], in: extracted)
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("data/shop.sqlite: OK"))
    }

    /// A plain Steward bundle encrypted by `age -r` is restored by Steward, with every check.
    @Test func ageEncryptedPlainBundleRestoresWithIdentity() throws {
        let (run, plain) = try backup([], name: "shop.tar.zst")
        #expect(run.status == 0, "\(run.stderr)")
        let encrypted = directory.file("by-age.tar.zst.age")
        #expect(try systemTool(["age", "-r", recipient, "-o", encrypted, plain]).status == 0)
        let restore = try StewardProcess.run(["restore", encrypted, "--into", into, "--identity", keyFile, "--json"])
        #expect(restore.status == 0, "\(restore.stderr)")
        let report = try restore.json()
        #expect(report["published"] as? Bool == true)
        #expect((report["encryption"] as? [String: Any])?["recipientTypes"] as? [String] == ["X25519"])
        let restored = try Connection(path: into + "/data/shop.sqlite", mode: [.readOnly])
        #expect(try restored.integer(sql: "SELECT count(*) FROM \(Self.tableName)") == 200)
        // A multi-key identity file: the matching key need not be first.
        let second = directory.file("two-keys.txt")
        let keys = try systemTool(["sh", "-c", "age-keygen 2>/dev/null; cat \"$1\"", "sh", keyFile]).output
        try keys.write(toFile: second, atomically: true, encoding: .utf8)
        let inspect = try StewardProcess.run(["inspect", encrypted, "--identity", second, "--json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect((try inspect.json()["verification"] as? [String: Any])?["passed"] as? Bool == true)
    }

    /// The bytes on disk are ciphertext: no zstd magic, no table name, not the 64 bytes
    /// planted in a row; the plain bundle of the same database has all three, and so does
    /// what `age -d` gives back.
    @Test func ciphertextHidesWhatThePlainBundleShows() throws {
        let (plainRun, plain) = try backup([], name: "shop.tar.zst")
        #expect(plainRun.status == 0, "\(plainRun.stderr)")
        let (run, encrypted) = try backup(["--recipient", recipient], name: "shop.tar.zst.age")
        #expect(run.status == 0, "\(run.stderr)")
        let zstdMagic: [UInt8] = [0x28, 0xB5, 0x2F, 0xFD]
        let tableName = Array(Self.tableName.utf8)

        let plainBytes = try bytes(plain)
        #expect(Array(plainBytes.prefix(4)) == zstdMagic)
        let decompressed = directory.file("plain.tar")
        #expect(try systemTool(["zstd", "-d", "-q", "-o", decompressed, plain]).status == 0)
        let tarBytes = try bytes(decompressed)
        #expect(Self.contains(tarBytes, tableName))
        #expect(Self.contains(tarBytes, planted))

        let cipher = try bytes(encrypted)
        #expect(String(decoding: cipher.prefix(22), as: UTF8.self) == "age-encryption.org/v1\n")
        #expect(!Self.contains(cipher, zstdMagic))
        #expect(!Self.contains(cipher, tableName))
        #expect(!Self.contains(cipher, planted))
        #expect(!Self.contains(cipher, Array("manifest.json".utf8)))

        let opened = directory.file("opened.tar.zst")
        #expect(try systemTool(["age", "-d", "-i", keyFile, "-o", opened, encrypted]).status == 0)
        let openedBytes = try bytes(opened)
        #expect(Array(openedBytes.prefix(4)) == zstdMagic)
    }

    // MARK: - Passphrase

    @Test func passphraseBundleRoundTripsAndStaysAlone() throws {
        let passphraseFile = try write(Array("correct horse battery staple\n".utf8), "passphrase.txt")
        let environment = ["STEWARD_TEST_HOOK_SCRYPT_WORK_FACTOR": "12"]
        let (run, bundle) = try backup(["--passphrase-file", passphraseFile], environment: environment)
        #expect(run.status == 0, "\(run.stderr)")
        #expect((try run.json()["encryption"] as? [String: Any])?["recipientTypes"] as? [String] == ["scrypt"])
        #expect(!run.allOutput.contains("correct horse"))
        let header = String(decoding: try bytes(bundle).prefix(200), as: UTF8.self)
        #expect(header.contains("\n-> scrypt "))

        let restore = try StewardProcess.run(["restore", bundle, "--into", into, "--passphrase-env", "BUNDLE_PASSPHRASE", "--quiet"],
                                             environment: ["BUNDLE_PASSPHRASE": "correct horse battery staple"])
        #expect(restore.status == 0, "\(restore.stderr)")
        let wrong = try StewardProcess.run(["restore", bundle, "--into", directory.file("other"), "--passphrase-env", "BUNDLE_PASSPHRASE"],
                                           environment: ["BUNDLE_PASSPHRASE": "correct horse"])
        #expect(wrong.status == 77)
        #expect(wrong.stderr.contains("passphrase"))
        #expect(!FileManager.default.fileExists(atPath: directory.file("other")))

        // A passphrase is the only recipient an age file may have; never on the command line.
        let combined = try StewardProcess.run(["backup", "--db", database, "--out", out, "--passphrase-file", passphraseFile,
                                               "--recipient", recipient])
        #expect(combined.status == 64)
        #expect(try StewardProcess.run(["backup", "--db", database, "--out", out, "--passphrase", "x"]).status == 64)
    }

    /// `age -d` opens Steward's passphrase bundle, the passphrase typed on a terminal.
    @Test(.enabled(if: AgeTool.hasScript, "util-linux script is needed to type a passphrase for age"))
    func passphraseBundleOpensWithAge() throws {
        let passphraseFile = try write(Array("tr0ub4dor&3\n".utf8), "passphrase.txt")
        let (run, bundle) = try backup(["--passphrase-file", passphraseFile], name: "p.tar.zst.age",
                                       environment: ["STEWARD_TEST_HOOK_SCRYPT_WORK_FACTOR": "12"])
        #expect(run.status == 0, "\(run.stderr)")
        let opened = directory.file("p.tar.zst")
        let typed = try write(Array("tr0ub4dor&3\n".utf8), "typed")
        let age = try systemTool(["sh", "-c", "script -qec \"$1\" /dev/null < \"$2\"", "sh", "age -d -o '\(opened)' '\(bundle)'", typed])
        #expect(age.status == 0, "\(age.output)")
        #expect(try systemTool(["tar", "--zstd", "-tf", opened]).output.contains("data/shop.sqlite"))
    }

    // MARK: - Refusals

    @Test func noKeyOrWrongKeyIs77AndNothingIsWritten() throws {
        let (run, bundle) = try backup(["--recipient", recipient])
        #expect(run.status == 0, "\(run.stderr)")
        let none = try StewardProcess.run(["restore", bundle, "--into", into])
        #expect(none.status == 77)
        #expect(none.stderr.contains("encrypted"))
        #expect(none.stderr.contains("--identity"))
        try expectNothingWritten()

        let other = directory.file("other-key.txt")
        #expect(try systemTool(["age-keygen", "-o", other]).status == 0)
        let wrong = try StewardProcess.run(["restore", bundle, "--into", into, "--identity", other, "--json"])
        #expect(wrong.status == 77)
        #expect(try wrong.json()["exitCode"] as? Int == 77)
        try expectNothingWritten()
        let inspect = try StewardProcess.run(["inspect", bundle, "--identity", other])
        #expect(inspect.status == 77)
        #expect(!inspect.allOutput.contains(Self.tableName))

        let missing = try StewardProcess.run(["restore", bundle, "--into", into, "--identity", directory.file("absent.txt")])
        #expect(missing.status == 66)
        let garbage = try write(Array("not a key\n".utf8), "garbage.txt")
        let invalid = try StewardProcess.run(["restore", bundle, "--into", into, "--identity", garbage])
        #expect(invalid.status == 65)
        #expect(invalid.stderr.contains("line 1"))
        try expectNothingWritten()
    }

    /// Damage to a file `age` wrote or to one Steward wrote: a flipped byte in any chunk,
    /// a chunk moved, the stream cut, the header changed: 65, and nothing is written.
    @Test func damagedEncryptedBundlesAre65AndNothingIsWritten() throws {
        // Enough rows for several 64 KiB chunks even after compression.
        let connection = try Connection(path: database)
        try connection.execute(sql: "INSERT INTO \(Self.tableName)(note, secret) SELECT 'x', randomblob(1000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400) SELECT i FROM n)")
        let (run, bundle) = try backup(["--recipient", recipient], name: "shop.tar.zst.age")
        #expect(run.status == 0, "\(run.stderr)")
        let (plainRun, plain) = try backup([], name: "shop.tar.zst")
        #expect(plainRun.status == 0)
        let byAge = directory.file("by-age.tar.zst.age")
        #expect(try systemTool(["age", "-r", recipient, "-o", byAge, plain]).status == 0)

        for source in [bundle, byAge] {
            let file = try bytes(source)
            let marker = Array("\n--- ".utf8)
            let macLine = try #require((0..<file.count).first { Array(file[$0..<min($0 + 5, file.count)]) == marker })
            let payload = try #require(file[(macLine + 1)...].firstIndex(of: 0x0A)) + 1 + 16
            let chunk = 65_536 + 16
            try #require(file.count > payload + 2 * chunk, "the bundle needs three chunks")
            var flippedFirst = file
            flippedFirst[payload + 3] ^= 0x10
            var flippedLast = file
            flippedLast[file.count - 5] ^= 0x01
            var flippedMAC = file
            flippedMAC[macLine + 10] = flippedMAC[macLine + 10] == 0x41 ? 0x42 : 0x41
            let reordered = Array(file[..<payload]) + file[(payload + chunk)..<(payload + 2 * chunk)]
                + file[payload..<(payload + chunk)] + file[(payload + 2 * chunk)...]
            let damages: [(String, [UInt8])] = [
                ("flipped-first-chunk", flippedFirst), ("flipped-last-chunk", flippedLast), ("header-mac", flippedMAC),
                ("reordered", reordered), ("truncated-at-chunk", Array(file.prefix(payload + 2 * chunk))),
                ("truncated", Array(file.prefix(file.count - 1))), ("trailing", file + [0x0A]),
            ]
            for (name, damaged) in damages {
                let path = try write(damaged, "\(name).tar.zst.age")
                let restore = try StewardProcess.run(["restore", path, "--into", into, "--identity", keyFile])
                #expect(restore.status == 65, "\(name) from \(source): \(restore.stderr)")
                #expect(restore.stderr.contains("refusing the bundle"), "\(name): \(restore.stderr)")
                try expectNothingWritten()
                let inspect = try StewardProcess.run(["inspect", path, "--identity", keyFile])
                #expect(inspect.status == 65, "\(name) from \(source): \(inspect.stderr)")
            }
        }
    }

    /// Without a key, inspect shows what the age header reveals and nothing of the manifest.
    @Test func inspectWithoutKeyShowsOnlyTheHeader() throws {
        let (run, bundle) = try backup(["--recipient", recipient, "--recipient", recipient], name: "export.tar.zst.age")
        #expect(run.status == 0, "\(run.stderr)")
        let inspect = try StewardProcess.run(["inspect", bundle, "--json"])
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let report = try inspect.json()
        #expect(report["kind"] as? String == "encrypted-bundle")
        #expect(report["manifest"] == nil)
        #expect(report["verified"] as? Bool == false)
        let encryption = try #require(report["encryption"] as? [String: Any])
        #expect(encryption["format"] as? String == "age-encryption.org/v1")
        #expect(encryption["recipientTypes"] as? [String] == ["X25519", "X25519"])
        for secret in [Self.tableName, "shop", "user_version", "sha256", "data/"] {
            #expect(!inspect.stdout.contains(secret), "\(secret) shown without a key")
        }
        let text = try StewardProcess.run(["inspect", bundle])
        #expect(text.stdout.contains("Encrypted  age (age-encryption.org/v1), to 2 X25519 recipients"))
        #expect(!text.stdout.contains(Self.tableName))
    }

    /// `age -a` output is not read (the armor is not implemented): refused with a clear
    /// reason, not taken for a damaged database.
    @Test func armoredAgeFileIsRefusedWithAReason() throws {
        let (run, plain) = try backup([], name: "shop.tar.zst")
        #expect(run.status == 0, "\(run.stderr)")
        let armored = directory.file("armored.tar.zst.age")
        #expect(try systemTool(["age", "-a", "-r", recipient, "-o", armored, plain]).status == 0)
        for arguments in [["restore", armored, "--into", into, "--identity", keyFile], ["inspect", armored, "--identity", keyFile]] {
            let refused = try StewardProcess.run(arguments)
            #expect(refused.status == 65, "\(arguments): \(refused.stderr)")
            #expect(refused.stderr.contains("ASCII-armored"))
        }
        try expectNothingWritten()
    }

    @Test func usageErrors() throws {
        let cases: [[String]] = [
            ["backup", "--db", database, "--out", out, "--recipient", "age1notakey"],
            ["backup", "--db", database, "--out", out, "--recipient", recipient, "--name", "plain-name.tar.zst"],
            ["backup", "--db", database, "--out", out, "--passphrase-env", "STEWARD_SURELY_UNSET_VARIABLE"],
            ["backup", "--db", database, "--out", out, "--passphrase-env", "HOME", "--recipients-file", keyFile],
            ["restore", "x.tar.zst.age", "--into", into, "--passphrase-file", keyFile, "--passphrase-env", "HOME"],
            ["inspect", "x.tar.zst.age", "--recipient", recipient],
        ]
        for arguments in cases {
            let run = try StewardProcess.run(arguments)
            #expect(run.status == 64, "\(arguments): \(run.stderr)")
            #expect(run.stderr.hasPrefix("Error: "), "\(arguments)")
        }
        // A recipients file: one bad line is refused before the database is read.
        let recipients = try write(Array("# team\n\(recipient)\nage1bad\n".utf8), "recipients.txt")
        let bad = try StewardProcess.run(["backup", "--db", database, "--out", out, "--recipients-file", recipients])
        #expect(bad.status == 65)
        #expect(bad.stderr.contains("line 3"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).isEmpty)
        let good = try write(Array("# team\n\(recipient)\n".utf8), "good.txt")
        let (run, bundle) = try backup(["--recipients-file", good])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(try systemTool(["age", "-d", "-i", keyFile, "-o", directory.file("x.tar.zst"), bundle]).status == 0)
    }
}

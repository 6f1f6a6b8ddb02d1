import Foundation
import Testing
@testable import ArchiveKit
import TestSupport

enum AgeTools {
    static let hasAge = ["/usr/bin/age", "/usr/bin/age-keygen"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    /// `age` reads a passphrase only from a terminal; util-linux `script` gives it one.
    static let hasScript = FileManager.default.isExecutableFile(atPath: "/usr/bin/script")
}

/// Steward's age against the reference `age` binary (Debian package `age`), both ways.
@Suite(.enabled(if: AgeTools.hasAge, "the age and age-keygen tools (Debian package age) are not installed"))
struct AgeInteropTests {

    let directory: TemporaryDirectory
    let keyFile: String
    let identity: AgeX25519Identity

    init() throws {
        directory = try TemporaryDirectory(prefix: "steward-age")
        keyFile = directory.file("key.txt")
        let result = try systemTool(["age-keygen", "-o", keyFile])
        try #require(result.status == 0, "\(result.output)")
        identity = try #require(try AgeKeyFile.identities(in: String(contentsOfFile: keyFile, encoding: .utf8)).first)
    }

    func write(_ bytes: [UInt8], _ name: String) throws -> String {
        let path = directory.file(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    func read(_ name: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: directory.file(name))))
    }

    /// `age -d`, with the passphrase typed on a pseudo-terminal when given.
    func ageDecrypt(_ input: String, output: String, identityFile: String? = nil, passphrase: String? = nil) throws -> (status: Int32, output: String) {
        if let identityFile {
            return try systemTool(["age", "-d", "-i", identityFile, "-o", output, input])
        }
        let feed = try write(Array("\(passphrase ?? "")\n".utf8), "typed")
        return try typing(feed, "age -d -o '\(output)' '\(input)'")
    }

    /// Runs `command` (paths in single quotes, which temporary paths never contain) on a
    /// pseudo-terminal whose keyboard input is the file `typed`.
    func typing(_ typed: String, _ command: String) throws -> (status: Int32, output: String) {
        try systemTool(["sh", "-c", "script -qec \"$1\" /dev/null < \"$2\"", "sh", command, typed])
    }

    static let sizes = [0, 1, 65_536, 65_537, 3 * 65_536 + 12_345]

    @Test(arguments: sizes)
    func stewardEncryptsAgeDecrypts(_ size: Int) throws {
        let plaintext = sampleBytes(count: size, seed: 77)
        let other = try AgeX25519Identity.generate()
        let file = try write(try AgeMemory.encrypt(plaintext, to: [.x25519(other.recipient), .x25519(identity.recipient)]), "s.age")
        let result = try ageDecrypt(file, output: directory.file("s.out"), identityFile: keyFile)
        #expect(result.status == 0, "\(result.output)")
        // age creates its output on the first byte: none for an empty payload.
        let output = FileManager.default.fileExists(atPath: directory.file("s.out")) ? try read("s.out") : []
        #expect(output == plaintext)
    }

    @Test(arguments: sizes)
    func ageEncryptsStewardDecrypts(_ size: Int) throws {
        let plaintext = sampleBytes(count: size, seed: 78)
        let input = try write(plaintext, "plain")
        let result = try systemTool(["age", "-r", identity.recipient.description, "-o", directory.file("a.age"), input])
        #expect(result.status == 0, "\(result.output)")
        #expect(try AgeMemory.decrypt(try read("a.age"), with: [.x25519(identity)]) == plaintext)
    }

    /// A recipients file (`age -R`) and an identity file holding several keys, the right
    /// one last.
    @Test func recipientsFileAndIdentityFileWithSeveralKeys() throws {
        let second = directory.file("second.txt")
        #expect(try systemTool(["age-keygen", "-o", second]).status == 0)
        let recipients = try write(Array("# team\n\(identity.recipient)\n".utf8), "recipients.txt")
        let input = try write(sampleBytes(count: 100_000), "plain")
        #expect(try systemTool(["age", "-R", recipients, "-o", directory.file("r.age"), input]).status == 0)
        let contents = try String(contentsOfFile: second, encoding: .utf8) + "\n" + String(contentsOfFile: keyFile, encoding: .utf8)
        let identities = try AgeKeyFile.identities(in: contents).map { AgeIdentity.x25519($0) }
        #expect(identities.count == 2)
        #expect(try AgeMemory.decrypt(try read("r.age"), with: identities) == sampleBytes(count: 100_000))
    }

    @Test(.enabled(if: AgeTools.hasScript, "util-linux script is needed to type a passphrase for age"))
    func passphraseStewardEncryptsAgeDecrypts() throws {
        let plaintext = sampleBytes(count: 70_000, seed: 9)
        let file = try write(try AgeMemory.encrypt(plaintext, to: [.passphrase(Array("correct horse battery".utf8), workFactor: 12)]), "p.age")
        let result = try ageDecrypt(file, output: directory.file("p.out"), passphrase: "correct horse battery")
        #expect(result.status == 0, "\(result.output)")
        #expect(try read("p.out") == plaintext)
        let wrong = try ageDecrypt(file, output: directory.file("p.wrong"), passphrase: "incorrect horse")
        #expect(wrong.status != 0)
        #expect(!FileManager.default.fileExists(atPath: directory.file("p.wrong")))
    }

    @Test(.enabled(if: AgeTools.hasScript, "util-linux script is needed to type a passphrase for age"))
    func passphraseAgeEncryptsStewardDecrypts() throws {
        let plaintext = sampleBytes(count: 70_000, seed: 10)
        let input = try write(plaintext, "plain")
        let feed = try write(Array("battery staple\nbattery staple\n".utf8), "typed")
        let result = try typing(feed, "age -p -o '\(directory.file("p.age"))' '\(input)'")
        #expect(result.status == 0, "\(result.output)")
        let file = try read("p.age")
        #expect(try AgeDecryptor(input: AgeMemory.source(file)).header.recipientTypes == ["scrypt"])
        #expect(try AgeMemory.decrypt(file, with: [.passphrase(Array("battery staple".utf8))]) == plaintext)
        #expect(throws: AgeError.noIdentityMatched(stanzaTypes: ["scrypt"])) {
            try AgeMemory.decrypt(file, with: [.passphrase(Array("battery".utf8))])
        }
    }

    /// Files `age` wrote, damaged four ways: Steward refuses every one, and so does `age`
    /// for the same damage to a file Steward wrote.
    @Test func damagedFilesAreRefusedBothWays() throws {
        let plaintext = sampleBytes(count: 3 * 65_536 + 500, seed: 11)
        let input = try write(plaintext, "plain")
        #expect(try systemTool(["age", "-r", identity.recipient.description, "-o", directory.file("a.age"), input]).status == 0)
        let byAge = try read("a.age")
        let bySteward = try AgeMemory.encrypt(plaintext, to: [.x25519(identity.recipient)])
        let wrongKey = try AgeX25519Identity.generate()

        for (origin, file) in [("age", byAge), ("steward", bySteward)] {
            let payload = try AgeMemory.payloadOffset(file)
            let chunk = 65_536 + 16
            var flipped = file
            flipped[payload + chunk + 1234] ^= 0x40
            let reordered = Array(file[..<payload]) + file[(payload + chunk)..<(payload + 2 * chunk)]
                + file[payload..<(payload + chunk)] + file[(payload + 2 * chunk)...]
            let damages: [(String, [UInt8])] = [
                ("truncated", Array(file.prefix(payload + 2 * chunk))),
                ("truncated mid-chunk", Array(file.prefix(file.count - 100))),
                ("flipped", flipped),
                ("reordered", reordered),
            ]
            for (name, damaged) in damages {
                #expect(throws: AgeError.self, "\(origin), \(name)") {
                    try AgeMemory.decrypt(damaged, with: [.x25519(identity)])
                }
                let path = try write(damaged, "\(origin)-\(name).age")
                let result = try ageDecrypt(path, output: directory.file("\(origin)-\(name).out"), identityFile: keyFile)
                #expect(result.status != 0, "age accepted the \(name) file from \(origin)")
            }
            #expect(throws: AgeError.noIdentityMatched(stanzaTypes: ["X25519"]), "\(origin), wrong key") {
                try AgeMemory.decrypt(file, with: [.x25519(wrongKey)])
            }
        }
    }

    /// `age-keygen -y` and Steward derive the same recipient from a fresh key.
    @Test func recipientDerivationMatchesAgeKeygen() throws {
        let result = try systemTool(["age-keygen", "-y", keyFile])
        #expect(result.status == 0)
        #expect(result.output.trimmingCharacters(in: .whitespacesAndNewlines) == identity.recipient.description)
    }
}

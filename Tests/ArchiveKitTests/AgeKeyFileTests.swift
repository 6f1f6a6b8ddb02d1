import Foundation
import Testing
@testable import ArchiveKit

@Suite struct AgeKeyFileTests {
    @Test func identityFileWithCommentsBlankLinesAndSeveralKeys() throws {
        let contents = """
            # created: 2026-12-01T07:00:38Z
            # public key: age1hr8ykkr7hljce97hsthwrakf3t42ntqmt9rgw9e9sll0xk9wzeyqqm9yf7
            \(AgeMemory.secret)

            # a second key, with a CRLF line end
            \(AgeMemory.otherSecret)\r

            """
        let identities = try AgeKeyFile.identities(in: contents)
        #expect(identities.map(\.recipient.description) == [
            "age1hr8ykkr7hljce97hsthwrakf3t42ntqmt9rgw9e9sll0xk9wzeyqqm9yf7",
            "age1xmwwc06ly3ee5rytxm9mflaz2u56jjj36s0mypdrwsvlul66mv4q47ryef",
        ])
    }

    @Test func badLineIsNamedByNumberWithoutItsText() {
        let typo = String(AgeMemory.secret.dropLast()) + "Q"
        do {
            _ = try AgeKeyFile.identities(in: "# key\n\n\(typo)\n")
            Issue.record("a key with a typo was accepted")
        } catch {
            #expect("\(error)".contains("line 3"))
            #expect(!"\(error)".contains("N77R83"))
        }
        #expect(throws: AgeError.self) { try AgeKeyFile.identities(in: "# nothing here\n\n") }
        #expect(throws: AgeError.self) { try AgeKeyFile.identities(in: " \(AgeMemory.secret)") }
    }

    @Test func recipientsFile() throws {
        let recipients = try AgeKeyFile.recipients(in: """
            # team
            age1hr8ykkr7hljce97hsthwrakf3t42ntqmt9rgw9e9sll0xk9wzeyqqm9yf7
            age1xmwwc06ly3ee5rytxm9mflaz2u56jjj36s0mypdrwsvlul66mv4q47ryef
            """)
        #expect(recipients.count == 2)
        #expect(throws: AgeError.self) { try AgeKeyFile.recipients(in: "ssh-ed25519 AAAAC3Nza…\n") }
        #expect(throws: AgeError.self) { try AgeKeyFile.recipients(in: "\n# none\n") }
    }
}

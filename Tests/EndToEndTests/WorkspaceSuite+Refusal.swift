import Foundation
import Testing
import TestSupport

extension WorkspaceSuite {
    /// Expects `run` to have stopped with `status`, saying each of `words` on stderr, and to
    /// have made no database.
    func expectRefused(_ run: StewardRun, status: Int32, saying words: String..., sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(run.status == status, "\(run.stderr)", sourceLocation: sourceLocation)
        for word in words {
            #expect(run.stderr.contains(word), "\(run.stderr)", sourceLocation: sourceLocation)
        }
        #expect(!FileManager.default.fileExists(atPath: database), "no database is made", sourceLocation: sourceLocation)
    }
}

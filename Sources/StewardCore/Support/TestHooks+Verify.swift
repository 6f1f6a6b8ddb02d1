import Foundation
import StewardBase

extension TestHooks {
    /// `STEWARD_TEST_HOOK_VERIFY_MAPPING_FULL=1`: FTS5's check on the file verify reads in
    /// place fails with SQLITE_FULL, as a check that wrote more than the overlay keeps in
    /// memory would (FTS5's integrity-check on SQLite 3.40 writes nothing, so the real
    /// fault cannot be made). The name is from the private mapping the overlay replaced.
    static var verifyMappingIsFull: Bool {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_VERIFY_MAPPING_FULL"] == "1"
    }
}

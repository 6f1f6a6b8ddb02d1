import Foundation

extension TestHooks {
    /// `STEWARD_TEST_HOOK_VERIFY_MAPPING_FULL=1`: FTS5's check on verify's private mapping
    /// fails with SQLITE_FULL, as a check that would grow the database would (FTS5's
    /// integrity-check on SQLite 3.40 writes nothing, so the real fault cannot be made).
    static var verifyMappingIsFull: Bool {
        ProcessInfo.processInfo.environment["STEWARD_TEST_HOOK_VERIFY_MAPPING_FULL"] == "1"
    }
}

import Foundation
import FileNames

#if canImport(Glibc)
import Glibc
#endif

extension TestHooks {
    /// The moments a test can stop a run at (`pause(at:)`).
    package enum PausePoint: String {
        /// verify: FTS5's check is about to read the database file in place.
        case verifyFTSCheck = "verify-fts-check"
        /// backup: the snapshot is copied and about to be checked.
        case backupChecks = "backup-checks"
        /// restore: the bundle is extracted into staging and about to be checked.
        case restoreChecks = "restore-checks"
        /// `restore -`: standard input is spooled and about to be restored.
        case restoreSpooled = "restore-spooled"
    }

    /// `STEWARD_TEST_HOOK_PAUSE_AT=POINT` and `STEWARD_TEST_HOOK_PAUSE_FILE=PATH`: at POINT
    /// the run creates PATH and waits until the test removes it (at most 120 s), so that
    /// the test can act at that moment: cut the database file short, kill the run with
    /// SIGKILL and look at what it left.
    package static func pause(at point: PausePoint) {
        let environment = ProcessInfo.processInfo.environment
        guard environment["STEWARD_TEST_HOOK_PAUSE_AT"] == point.rawValue, let file = environment["STEWARD_TEST_HOOK_PAUSE_FILE"] else {
            return
        }
        let descriptor = open(FileName.cString(file), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        close(descriptor)
        for _ in 0..<12_000 where access(FileName.cString(file), F_OK) == 0 {
            usleep(10_000)
        }
    }
}

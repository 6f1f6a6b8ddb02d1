import FileNames

import StewardBase
#if canImport(Glibc)
import Glibc
#endif

/// Unlinks a file on a thread of its own. Most of an unlink's cost is dropping the file's
/// cached pages: 0.1-0.4 s per GiB on the bench VM (design notes, "Performance"), time
/// nothing needs to wait for when the space is not needed at once. `wait()` before the
/// directory that holds the file is removed.
final class BackgroundRemoval: Sendable {
    private let work: BackgroundWork<Void>

    init(_ path: String) {
        work = BackgroundWork { _ in
            // Whatever fails here, the run's clean-up removes the file again.
            unlink(FileName.cString(path))
        }
    }

    func wait() {
        _ = try? work.wait()
    }
}

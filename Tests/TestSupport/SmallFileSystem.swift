import Foundation

/// A tiny tmpfs, for tests of a full disk. Mounting needs root in a namespace that allows
/// it; tests that need one declare `.enabled(if: SmallFileSystem.canMount)`, so that a
/// machine without it reports them as skipped instead of passing them silently.
public enum SmallFileSystem {
    /// Whether this process can mount a tmpfs; found out once, on a scratch directory.
    public static let canMount: Bool = {
        guard getuid() == 0, let probe = try? TemporaryDirectory(prefix: "steward-mount-probe") else { return false }
        guard (try? mount(at: probe.path, megabytes: 1)) == true else { return false }
        unmount(probe.path)
        return true
    }()

    /// Mounts a tmpfs of `megabytes` MiB on `path` (created if missing); false when refused.
    public static func mount(at path: String, megabytes: Int = 2) throws -> Bool {
        try mount(at: path, kilobytes: megabytes * 1024)
    }

    /// Mounts a tmpfs of `kilobytes` KiB on `path` (created if missing), for a disk that
    /// runs out at a chosen page; false when refused. tmpfs counts whole 4 KiB pages.
    public static func mount(at path: String, kilobytes: Int) throws -> Bool {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        guard getuid() == 0 else { return false }
        return try systemTool(["mount", "-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0755", "tmpfs", path]).status == 0
    }

    public static func unmount(_ path: String) {
        _ = try? systemTool(["umount", path])
    }
}

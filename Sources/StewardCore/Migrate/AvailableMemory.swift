import Foundation

/// The memory the kernel says can be allocated without swapping (`MemAvailable`).
enum AvailableMemory {
    /// In bytes, or nil when it cannot be read (not Linux, no /proc).
    static var bytes: Int64? {
        if let override = TestHooks.availableMemoryBytes { return override }
        guard let text = try? String(contentsOfFile: "/proc/meminfo", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("MemAvailable:") {
            let fields = line.split(separator: " ")
            guard fields.count >= 2, let kilobytes = Int64(fields[1]) else { return nil }
            return kilobytes * 1024
        }
        return nil
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f", Double(bytes) / 1_000_000)
    }
}

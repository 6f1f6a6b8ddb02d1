import FileNames
import Foundation

#if canImport(Glibc)
import Glibc
#endif

extension StewardProcess {
    /// Runs `steward` with arguments given as FileNames strings, whose escaped scalars
    /// reach the process as the raw bytes they stand for (Foundation's `Process` would
    /// send their UTF-8): through `sh`, with every byte written as an octal escape.
    public static func run(rawArguments arguments: [String], currentDirectory: String? = nil) throws -> StewardRun {
        var script = ""
        for (index, argument) in arguments.enumerated() {
            let octal = FileName.bytes(argument).map { String(format: "\\%03o", $0) }.joined()
            // The X keeps $(...) from dropping trailing newlines.
            script += "a\(index)=$(printf '\(octal)X'); a\(index)=${a\(index)%X}\n"
        }
        script += "exec \"$0\"" + arguments.indices.map { " \"$a\($0)\"" }.joined() + "\n"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script, executable.path]
        if let currentDirectory {
            process.currentDirectoryURL = URL(fileURLWithPath: currentDirectory)
        }
        return try RunningSteward(process: process).finish(timeout: 60)
    }
}

/// Files whose names need not be UTF-8, for tests: FileNames strings in, raw bytes to the system.
public enum RawFiles {
    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(FileName.cString(path), &info) == 0
    }

    /// The names in `directory`, byte for byte (FileManager would decode them lossily).
    public static func names(in directory: String) -> [String] {
        guard let handle = opendir(FileName.cString(directory)) else { return [] }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: Int(NAME_MAX) + 1) { bytes in
                    FileName.decode(UnsafeBufferPointer(start: bytes, count: strlen(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self))))
                }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names.sorted()
    }

    /// Copies the file at `source` to `destination`, a name that need not be UTF-8.
    public static func copy(_ source: String, to destination: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: source))
        let descriptor = open(FileName.cString(destination), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else { throw CocoaError(.fileWriteUnknown) }
    }
}

import Foundation

/// Hand-made tar streams for the reader's refusals: entries a well-behaved writer never
/// makes (links, directories, escaping names, lying sizes), compressed with the system
/// `zstd` so that they reach the checks behind the decompressor.
public struct TarBuilder {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    /// One header block. `type` is the ustar type flag: `0` file, `1` hard link,
    /// `2` symlink, `5` directory, `x` pax attributes.
    public mutating func header(name: String, type: Character = "0", size: Int, linkName: String = "", gnu: Bool = false) {
        var block = [UInt8](repeating: 0, count: 512)
        func put(_ text: String, at offset: Int, width: Int) {
            for (index, byte) in text.utf8.prefix(width).enumerated() { block[offset + index] = byte }
        }
        func octal(_ value: Int, at offset: Int, width: Int) {
            put(String(repeating: "0", count: max(0, width - 1 - String(value, radix: 8).count)) + String(value, radix: 8), at: offset, width: width - 1)
        }
        put(name, at: 0, width: 100)
        octal(0o644, at: 100, width: 8)
        octal(0, at: 108, width: 8)
        octal(0, at: 116, width: 8)
        octal(size, at: 124, width: 12)
        octal(1_700_000_000, at: 136, width: 12)
        put(String(type), at: 156, width: 1)
        put(linkName, at: 157, width: 100)
        if gnu {
            put("ustar  ", at: 257, width: 8)
        } else {
            put("ustar", at: 257, width: 6)
            put("00", at: 263, width: 2)
        }
        put("        ", at: 148, width: 8)
        let sum = block.reduce(0) { $0 + Int($1) }
        put(String(format: "%06o", sum) + "\0 ", at: 148, width: 8)
        bytes += block
    }

    public mutating func data(_ content: [UInt8]) {
        bytes += content
        let padding = (512 - content.count % 512) % 512
        bytes += [UInt8](repeating: 0, count: padding)
    }

    public mutating func file(_ name: String, _ content: [UInt8], type: Character = "0", gnu: Bool = false) {
        header(name: name, type: type, size: content.count, gnu: gnu)
        data(content)
    }

    /// A pax extended header whose records override the next entry's fields.
    public mutating func pax(_ records: [String: String]) {
        var text = ""
        for (key, value) in records.sorted(by: { $0.key < $1.key }) {
            let body = " \(key)=\(value)\n"
            var length = body.utf8.count + 1
            while String(length).utf8.count + body.utf8.count != length { length += 1 }
            text += "\(length)\(body)"
        }
        header(name: "PaxHeader/x", type: "x", size: text.utf8.count)
        data(Array(text.utf8))
    }

    public mutating func end() {
        bytes += [UInt8](repeating: 0, count: 1024)
    }

    /// `input` through the system `zstd` with `arguments`: compressed, by default.
    public static func zstd(_ input: [UInt8], arguments: [String] = ["-q", "-c"]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["zstd"] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        try process.run()
        let writer = Thread { 
            stdin.fileHandleForWriting.write(Data(input))
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        return Array(output)
    }
}

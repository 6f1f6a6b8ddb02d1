import FileNames
import Testing

@Suite struct FileNameTests {
    @Test(arguments: [
        [UInt8](), Array("plain.db".utf8), Array("Café 客户.db".utf8),
        [0x78, 0xFF, 0x2E], [0xC3], [0xC3, 0x28], [0xE2, 0x82], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80],
        [0xC0, 0xAF], [0x80, 0x80, 0xBF],
        // U+F0080..U+F00FF, the escape range itself, as valid UTF-8: kept apart from escapes.
        [0xF3, 0xB0, 0x82, 0x80], [0xF3, 0xB0, 0x83, 0xBF, 0xFF],
    ])
    func everyByteStringRoundTrips(_ bytes: [UInt8]) {
        let name = FileName.decode(bytes)
        #expect(FileName.bytes(name) == bytes)
        #expect(FileName.cString(name) == bytes.map { CChar(bitPattern: $0) } + [0])
    }

    @Test func validUTF8IsTheSameString() {
        #expect(FileName.decode(Array("Café 客户.db".utf8)) == "Café 客户.db")
        #expect(!FileName.hasRawBytes("Café 客户.db"))
    }

    @Test func invalidBytesBecomeEscapedScalars() {
        let name = FileName.decode([0x78, 0xFF])
        #expect(name.unicodeScalars.count == 2)
        #expect(FileName.hasRawBytes(name))
        #expect(name.unicodeScalars.last.flatMap(FileName.rawByte) == 0xFF)
        #expect(name != "x\u{FFFD}")
    }

    @Test func randomByteStringsRoundTrip() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let bytes = (0..<Int.random(in: 0...12, using: &generator)).map { _ in UInt8.random(in: 1...255, using: &generator) }
            #expect(FileName.bytes(FileName.decode(bytes)) == bytes)
        }
    }
}

import Testing
import ArchiveKit

@Suite struct ArchiveEntryNameTests {
    @Test(arguments: [
        ("tickets.sqlite", "tickets.sqlite"), ("my db.sqlite", "my_db.sqlite"), ("..hidden", "hidden"),
        ("-rf", "rf"), ("Café", "Caf__"), ("", "database"), ("...", "database"), ("客户", "database"),
        ("a/b", "a_b"),
    ])
    func componentsAreMadeValid(text: String, expected: String) {
        let component = ArchiveEntryName.component(from: text, fallback: "database")
        #expect(component == expected)
        #expect(ArchiveEntryName.isValid(component))
    }

    @Test func componentsAreCut() {
        #expect(ArchiveEntryName.component(from: String(repeating: "x", count: 500)).count == 100)
    }

    @Test func componentLimit() {
        #expect(ArchiveEntryName.isValid("a/b", maximumComponents: 2))
        #expect(!ArchiveEntryName.isValid("a/b/c", maximumComponents: 2))
    }
}

import Foundation
import Testing
import TestSupport

/// Every page under man/ passes `mandoc -Tlint` without a single message.
@Suite struct ManPageTests {
    static var pages: [String] {
        let directory = Fixtures.repositoryRoot.appendingPathComponent("man")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".1") }.sorted()
    }

    @Test func everyCommandHasAPage() {
        for page in ["steward.1", "steward-inspect.1", "steward-migrate.1", "steward-verify.1", "steward-lint.1", "steward-backup.1", "steward-restore.1"] {
            #expect(Self.pages.contains(page), "man/\(page) exists")
        }
    }

    /// The pages to lint; with none found, one name that cannot exist, so that the lint
    /// fails instead of running over nothing.
    static var lintedPages: [String] {
        pages.isEmpty ? ["(no .1 page under man/)"] : pages
    }

    @Test(arguments: lintedPages)
    func lintIsClean(page: String) throws {
        let path = Fixtures.repositoryRoot.appendingPathComponent("man").appendingPathComponent(page).path
        try #require(FileManager.default.fileExists(atPath: path), "man/\(page) exists")
        let (status, text) = try systemTool(["mandoc", "-Tlint", "-W", "all", path])
        #expect(status == 0, "mandoc -Tlint \(page): \(text)")
        #expect(text.isEmpty, "mandoc -Tlint \(page): \(text)")
    }
}

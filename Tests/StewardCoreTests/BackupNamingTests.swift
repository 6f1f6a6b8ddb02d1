@testable import BundleFormat
@testable import StewardCore
import Testing

@Suite struct BackupNamingTests {
    @Test(arguments: [
        ("tickets.sqlite", "tickets"), ("/srv/app/app.db", "app"), ("data", "data"), ("Tickets DB.sqlite", "Tickets_DB"),
        (".hidden.db", "hidden"), ("archive.tar.gz", "archive.tar"), ("客户.db", "database"), ("-x.db", "x"),
    ])
    func stems(path: String, stem: String) {
        #expect(BackupNaming.stem(of: path) == stem)
    }

    @Test func defaultNameHasVersionAndCompactUTCTime() {
        #expect(BackupNaming.defaultBundleName(database: "/x/tickets.sqlite", userVersion: 2, at: 1_796_012_910)
            == "tickets-v2-20261130T042830Z.tar.zst")
        #expect(BackupNaming.defaultBundleName(database: "a.db", userVersion: -3, at: 0) == "a-v-3-19700101T000000Z.tar.zst")
    }

    @Test func isoTimestampsParseBack() {
        #expect(BackupNaming.isoTimestamp(1_796_012_910) == "2026-11-30T04:28:30Z")
        #expect(BackupNaming.seconds(ofTimestamp: "2026-11-30T04:28:30Z") == 1_796_012_910)
        #expect(BackupNaming.seconds(ofTimestamp: "not a time") == nil)
    }

    @Test func payloadEntryIsUnderData() {
        #expect(BundleManifest.payloadEntry(forDatabase: "/srv/My App.db") == "data/My_App.sqlite")
    }

    @Test(arguments: ["", "a/b.tar.zst", ".x.tar.zst", "x.tar", "x.zip", ".tar.zst", "x\u{0}.tar.zst", String(repeating: "x", count: 250) + ".tar.zst"])
    func badBundleNames(name: String) {
        #expect(BackupNaming.problem(withBundleName: name) != nil)
    }

    @Test(arguments: ["x.tar.zst", "nightly 2026-11-30.tar.zst", "café.tar.zst", "-x.tar.zst"])
    func goodBundleNames(name: String) {
        #expect(BackupNaming.problem(withBundleName: name) == nil)
    }

    /// An encrypted bundle ends in `.tar.zst.age`, a plain one never does.
    @Test func encryptedNames() {
        #expect(BackupNaming.defaultBundleName(database: "t.db", userVersion: 2, at: 0, encrypted: true) == "t-v2-19700101T000000Z.tar.zst.age")
        #expect(BackupNaming.problem(withBundleName: "x.tar.zst.age", encrypted: true) == nil)
        #expect(BackupNaming.problem(withBundleName: "x.tar.zst", encrypted: true) != nil)
        #expect(BackupNaming.problem(withBundleName: ".tar.zst.age", encrypted: true) != nil)
        #expect(BackupNaming.problem(withBundleName: ".x.tar.zst.age", encrypted: true) != nil)
        #expect(BackupNaming.problem(withBundleName: "x.tar.zst.age") != nil)
    }
}

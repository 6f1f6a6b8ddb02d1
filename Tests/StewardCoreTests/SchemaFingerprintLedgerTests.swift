import Foundation
import SQLiteKit
import Testing
@testable import StewardCore

/// The drift comparison leaves out what a runner makes for its ledger, its indexes too.
@Suite struct SchemaFingerprintLedgerTests {
    /// golang-migrate's sqlite3 driver makes `schema_migrations` and the unique index
    /// `version_unique` on it; a database migrated by it is not drifted because of that index.
    @Test func aLedgersOwnIndexIsNotDrift() throws {
        let migrated = try Connection.inMemory()
        try migrated.execute(sql: """
            CREATE TABLE schema_migrations (version uint64, dirty bool);
            CREATE UNIQUE INDEX version_unique ON schema_migrations (version);
            CREATE TABLE users(id INTEGER PRIMARY KEY);
            """)
        let built = try Connection.inMemory()
        try built.execute(sql: "CREATE TABLE users(id INTEGER PRIMARY KEY);")
        #expect(try SchemaFingerprint(reading: migrated).differences(from: SchemaFingerprint(reading: built)) == [])
        // An index of the set's own tables still counts.
        try migrated.execute(sql: "CREATE INDEX by_hand ON users(id)")
        #expect(try SchemaFingerprint(reading: migrated).differences(from: SchemaFingerprint(reading: built)) == ["index by_hand extra"])
    }
}

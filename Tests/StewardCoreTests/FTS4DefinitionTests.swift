import SQLiteKit
import StewardCore
import Testing

/// FTS3 and FTS4 declarations as applications write them, and the sync triggers an
/// external-content FTS4 table needs.
@Suite struct FTS4DefinitionTests {
    @Test(arguments: [
        ("CREATE VIRTUAL TABLE t USING fts3(body)", FTS4Definition.Module.fts3, ["body"], FTS5Definition.ContentMode.internal, nil as String?),
        ("CREATE VIRTUAL TABLE t USING FTS4(title TEXT, body, tokenize=porter)", .fts4, ["title", "body"], .internal, nil),
        ("CREATE VIRTUAL TABLE t USING fts4(content=\"doc\", title, body)", .fts4, ["title", "body"], .external, "doc"),
        ("CREATE VIRTUAL TABLE t USING fts4(content='doc', title)", .fts4, ["title"], .external, "doc"),
        ("CREATE VIRTUAL TABLE t USING fts4(content='', a, b)", .fts4, ["a", "b"], .contentless, nil),
        // FTS3 has no content option: the argument is only a column's declaration there.
        ("CREATE VIRTUAL TABLE t USING fts3(body, tokenize simple)", .fts3, ["body"], .internal, nil),
    ])
    func declarationsAreRead(_ sql: String, _ module: FTS4Definition.Module, _ columns: [String],
                             _ mode: FTS5Definition.ContentMode, _ content: String?) throws {
        let table = try #require(FTS4Definition(name: "t", sql: sql))
        #expect(table.module == module)
        #expect(table.columns == columns)
        #expect(table.contentMode == mode)
        #expect(table.contentTable == content)
    }

    @Test func otherModulesAreNotFTS4Tables() {
        #expect(FTS4Definition(name: "t", sql: "CREATE VIRTUAL TABLE t USING fts5(body)") == nil)
        #expect(FTS4Definition(name: "t", sql: "CREATE VIRTUAL TABLE t USING fts4aux(main, x)") == nil)
        #expect(FTS4Definition(name: "t", sql: "CREATE TABLE t(fts4 TEXT)") == nil)
    }

    @Test func theFourTriggersOfSQLitesExampleAreFound() throws {
        let table = try #require(FTS4Definition(name: "t3", sql: "CREATE VIRTUAL TABLE t3 USING fts4(content=\"t2\", b, c)"))
        let triggers = [
            ("t2_bu", "CREATE TRIGGER t2_bu BEFORE UPDATE ON t2 BEGIN DELETE FROM t3 WHERE docid=old.rowid; END"),
            ("t2_bd", "CREATE TRIGGER t2_bd BEFORE DELETE ON t2 BEGIN DELETE FROM t3 WHERE docid=old.rowid; END"),
            ("t2_au", "CREATE TRIGGER t2_au AFTER UPDATE ON t2 BEGIN INSERT INTO t3(docid, b, c) VALUES(new.rowid, new.b, new.c); END"),
            ("t2_ai", "CREATE TRIGGER t2_ai AFTER INSERT ON t2 BEGIN INSERT INTO t3(docid, b, c) VALUES(new.rowid, new.b, new.c); END"),
        ].compactMap { TriggerDefinition(name: $0.0, sql: $0.1) }
        let sync = FTS4SyncTriggers(for: table, among: triggers)
        #expect(sync.missing == [])
        #expect(sync.mistimed == [])
        #expect([sync.insert, sync.delete, sync.updateDelete, sync.updateInsert] == ["t2_ai", "t2_bd", "t2_bu", "t2_au"])

        // FTS5's pattern (one AFTER UPDATE trigger that deletes, then inserts) removes the
        // new text's words from an FTS4 index, not the old ones.
        let fts5Style = [
            "CREATE TRIGGER t2_ai AFTER INSERT ON t2 BEGIN INSERT INTO t3(docid, b, c) VALUES(new.rowid, new.b, new.c); END",
            "CREATE TRIGGER t2_bd BEFORE DELETE ON t2 BEGIN DELETE FROM main.t3 WHERE docid=old.rowid; END",
            "CREATE TRIGGER t2_au AFTER UPDATE ON t2 BEGIN DELETE FROM t3 WHERE docid=old.rowid; INSERT INTO t3(docid, b, c) VALUES(new.rowid, new.b, new.c); END",
        ].enumerated().compactMap { TriggerDefinition(name: ["t2_ai", "t2_bd", "t2_au"][$0.offset], sql: $0.element) }
        let wrong = FTS4SyncTriggers(for: table, among: fts5Style)
        #expect(wrong.missing == ["update"])
        #expect(wrong.mistimed == ["t3: trigger t2_au deletes from it AFTER UPDATE on t2; FTS4 reads the text to remove from t2, so it must run BEFORE UPDATE"])
    }
}

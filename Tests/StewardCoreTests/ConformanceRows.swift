@testable import StewardCore

/// The rows of docs/conformance/*.md, table by table, in the tables' order.
extension ConformanceTests {
    typealias R = Row

    static let create = "CREATE TABLE a(x);"
    static let drop = "DROP TABLE a;"

    /// A goose file: the up part, then the down part.
    static func goose(_ up: String = create, down: String = drop) -> String {
        "-- +goose Up\n\(up)\n-- +goose Down\n\(down)\n"
    }

    /// A dbmate file.
    static func dbmate(_ up: String = create, down: String = drop) -> String {
        "-- migrate:up\n\(up)\n\n-- migrate:down\n\(down)\n"
    }

    static let trigger = """
        CREATE TRIGGER a_x AFTER INSERT ON a BEGIN
            UPDATE a SET x = 1 WHERE rowid = new.rowid;
        END;
        """

    // MARK: - goose

    static let gooseRows: [Row] = [
        R(id: "goose-01", dialect: .goose, files: ["00001_a.sql": goose()], outcome: .up("00001_a.sql", runs: [create], skips: [drop])),
        R(id: "goose-02", dialect: .goose, files: ["00001_a.sql": "-- +goose up\n\(create)\n-- +goose down\n\(drop)\n"],
          outcome: .up("00001_a.sql", runs: [create], skips: [drop])),
        R(id: "goose-03", dialect: .goose, files: ["00001_a.sql": "-- +goose UP\n\(create)\n-- +goose DOWN\n\(drop)\n"],
          outcome: .up("00001_a.sql", runs: [create], skips: [drop])),
        R(id: "goose-04", dialect: .goose, files: ["00001_a.sql": "--+goose Up\n\(create)\n--+goose Down\n\(drop)\n"],
          outcome: .up("00001_a.sql", runs: [create], skips: [drop])),
        R(id: "goose-05", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n\(create)\n----  +goose   Down   \n\(drop)\n"],
          outcome: .up("00001_a.sql", runs: [create], skips: [drop])),
        R(id: "goose-06", dialect: .goose, files: ["00001_a.sql": "-- +gooseUp\n\(create)\n-- +gooseDown\n\(drop)\n"],
          outcome: .up("00001_a.sql", runs: [create], skips: [drop])),
        R(id: "goose-07", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose \u{17F}tatementBegin\n\(trigger)\n-- +goose StatementEnd\n-- +goose Down\n"],
          outcome: .up("00001_a.sql", runs: ["END;"], skips: ["+goose"])),
        R(id: "goose-08", dialect: .goose, files: ["00001_a.sql": "-- +GOOSE Up\n\(create)\n"], outcome: .refuses("SQL before '-- +goose Up'")),
        R(id: "goose-09", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n\(create)\n-- +GOOSE Down\nINSERT INTO a VALUES (1);\n"],
          outcome: .up("00001_a.sql", runs: [create, "INSERT INTO a"], skips: [])),
        R(id: "goose-10", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n\(create)\n -- +goose Down\n\(drop)\n"],
          outcome: .refuses("must start at the beginning of its line")),
        R(id: "goose-11", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n\(create)\n\t-- +goose Down\n\(drop)\n"],
          outcome: .refuses("must start at the beginning of its line")),
        R(id: "goose-12", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n\(create)\n-- +goose Down -- the way back\n\(drop)\n"],
          outcome: .refuses("is not a goose annotation")),
        R(id: "goose-13", dialect: .goose, files: ["00001_a.sql": "-- +goose Up +goose Down\n\(create)\n"], outcome: .refuses("two '+goose'")),
        R(id: "goose-14", dialect: .goose, files: ["00001_a.sql": "-- +goose\n\(create)\n"], outcome: .refuses("without an annotation")),
        R(id: "goose-15", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose Reset\n\(create)\n"], outcome: .refuses("'Reset' is not a goose annotation")),
        R(id: "goose-16", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose NO TRANSACTION\n\(create)\n"],
          outcome: .refuses("00001_a.sql:2: '-- +goose NO TRANSACTION' asks goose to run the file outside a transaction")),
        R(id: "goose-17", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose no transaction\n\(create)\n"],
          outcome: .refuses("'-- +goose no transaction' asks goose to run the file outside a transaction")),
        R(id: "goose-18", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose NO  TRANSACTION\n\(create)\n"],
          outcome: .refuses("'NO  TRANSACTION' is not a goose annotation")),
        R(id: "goose-19", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose ENVSUB ON\nCREATE TABLE a(x DEFAULT '${NAME}');\n"],
          outcome: .refuses("00001_a.sql:2: '-- +goose ENVSUB ON' makes goose substitute environment variables")),
        R(id: "goose-20", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose envsub on\n\(create)\n"],
          outcome: .refuses("substitute environment variables")),
        R(id: "goose-21", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose ENVSUB OFF\n\(create)\n"],
          outcome: .up("00001_a.sql", runs: [create], skips: ["ENVSUB"])),
        R(id: "goose-22", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose ENVSUBST ON\n\(create)\n"],
          outcome: .refuses("'ENVSUBST ON' is not a goose annotation")),
        R(id: "goose-23", dialect: .goose, files: ["00001_a.sql": goose("\(create)\n-- +goose StatementBegin\n\(trigger)\n-- +goose StatementEnd")],
          outcome: .up("00001_a.sql", runs: ["CREATE TRIGGER a_x", "END;"], skips: [drop])),
        R(id: "goose-24", dialect: .goose, files: ["00001_a.sql": goose("\(create)\n\(trigger)")],
          outcome: .refuses("00001_a.sql:3: goose sends lines 3-4 to SQLite as one statement, which is cut short")),
        R(id: "goose-25", dialect: .goose, files: ["00001_a.sql": goose("INSERT INTO a VALUES ('one;\ntwo');")], outcome: .refuses("cut short")),
        R(id: "goose-26", dialect: .goose, files: ["00001_a.sql": goose("\(create) -- the first table")],
          outcome: .up("00001_a.sql", runs: ["-- the first table"], skips: [drop])),
        R(id: "goose-27", dialect: .goose, files: ["00001_a.sql": goose("CREATE TABLE a(x)")], outcome: .refuses("without its ';' before '-- +goose Down'")),
        R(id: "goose-28", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\nCREATE TABLE a(x)\n"], outcome: .refuses("without its ';' at the end")),
        R(id: "goose-29", dialect: .goose, files: ["00001_a.sql": "-- comment\n\n-- +goose Up\n\(create)\n"], outcome: .up("00001_a.sql", runs: [create], skips: ["-- comment"])),
        R(id: "goose-30", dialect: .goose, files: ["00001_a.sql": "\(create)\n-- +goose Up\n"], outcome: .refuses("00001_a.sql:1: SQL before '-- +goose Up'")),
        R(id: "goose-31", dialect: .goose, files: ["00001_a.sql": "\(create)\n"], outcome: .refuses("SQL before '-- +goose Up'")),
        R(id: "goose-32", dialect: .goose, files: ["00001_a.sql": "-- nothing yet\n"], outcome: .refuses("no '-- +goose Up' annotation")),
        R(id: "goose-33", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n\(create)\n-- +goose Up\n"], outcome: .refuses("a second '-- +goose Up'")),
        R(id: "goose-34", dialect: .goose, files: ["00001_a.sql": "-- +goose Down\n\(drop)\n-- +goose Up\n\(create)\n"], outcome: .refuses("'-- +goose Down' before '-- +goose Up'")),
        R(id: "goose-35", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose StatementBegin\n\(trigger)\n"], outcome: .refuses("without its StatementEnd")),
        R(id: "goose-36", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n\(create)\n-- +goose StatementEnd\n"], outcome: .refuses("StatementEnd' without a StatementBegin")),
        R(id: "goose-37", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose StatementBegin\n\(create)\n-- +goose Down\n"],
          outcome: .refuses("inside a StatementBegin block")),
        R(id: "goose-38", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\n-- +goose StatementBegin\n-- +goose StatementEnd\n\(create)\n"],
          outcome: .refuses("goose drops this line")),
        R(id: "goose-39", dialect: .goose, files: ["00001_a.sql": "-- +goose Up\r\n\(create)\r\n-- +goose Down\r\n\(drop)\r\n"],
          outcome: .up("00001_a.sql", runs: [create], skips: [drop])),
        R(id: "goose-40", dialect: .goose, files: ["00002_b.sql": goose(), "20240101000000_a.sql": goose("CREATE TABLE b(x);"), "00010_c.sql": goose("CREATE TABLE c(x);")],
          outcome: .order(["00002_b.sql", "00010_c.sql", "20240101000000_a.sql"])),
        R(id: "goose-41", dialect: .goose, files: ["00001_a.sql": goose(), "00002_b.down.sql": goose("CREATE TABLE b(x);")],
          outcome: .order(["00001_a.sql", "00002_b.down.sql"])),
        R(id: "goose-42", dialect: .goose, files: ["00001_a.sql": goose(), "1.sql": goose()], outcome: .refuses("1.sql: goose reads the version")),
        R(id: "goose-43", dialect: .goose, files: ["00001_a.sql": goose(), "schema.sql": goose()], outcome: .refuses("schema.sql: goose reads the version")),
        R(id: "goose-44", dialect: .goose, files: ["00001_a.sql": goose(), "._00001_a.sql": "\u{0}\u{5}"], outcome: .refuses("._00001_a.sql: goose reads the version")),
        R(id: "goose-45", dialect: .goose, files: ["00001_a.sql": goose(), "0_init.sql": goose()], outcome: .refuses("version 0 is below 1")),
        R(id: "goose-46", dialect: .goose, files: ["00001_a.sql": goose(), "+2_b.sql": goose()], outcome: .refuses("has a sign")),
        R(id: "goose-47", dialect: .goose, files: ["99999999999999999999_a.sql": goose()], outcome: .refuses("does not fit goose's 64-bit versions")),
        R(id: "goose-48", dialect: .goose, files: ["1_a.sql": goose(), "01_b.sql": goose()], outcome: .refuses("version 1 is also used by")),
        R(id: "goose-49", dialect: .goose, files: ["00001_a.sql": goose(), "00002_move_data.go": "package migrations\n"], outcome: .refuses("goose runs as code")),
        R(id: "goose-50", dialect: .goose, files: ["00001_a.sql": goose(), "helpers.go": "package migrations\n"], outcome: .ignores("helpers.go")),
        R(id: "goose-51", dialect: .goose, files: ["00001_a.sql": goose(), "00002_move_data_test.go": "package migrations\n"], outcome: .ignores("00002_move_data_test.go")),
        R(id: "goose-52", dialect: .goose, files: ["00001_a.sql": goose(), "00002_fix_titles.py": "print(1)\n"], outcome: .ignores("00002_fix_titles.py")),
        R(id: "goose-53", dialect: .goose, files: ["00001_a.sql": goose(), "00002_b.SQL": "CREATE TABLE b(x);\n"], outcome: .ignores("00002_b.SQL")),
        R(id: "goose-54", dialect: .goose, files: ["00001_a.sql": goose(), "00002_old/": ""], outcome: .ignores("00002_old")),
        R(id: "goose-55", dialect: .goose, files: ["00001_a.sql": goose(), "README.md": "notes\n"], outcome: .ignores("README.md")),
        R(id: "goose-58", dialect: .goose, files: ["00001_a.sql": "-- +goose no transaction\n", "00002_b.go": "package migrations\n"], outcome: .refuses("00002_b.go")),
    ]

    // MARK: - dbmate

    static let dbmateRows: [Row] = [
        R(id: "dbmate-01", dialect: .dbmate, files: ["20240101000000_a.sql": dbmate()], outcome: .up("20240101000000_a.sql", runs: [create], skips: [drop])),
        R(id: "dbmate-02", dialect: .dbmate, files: ["20240101000000_a.sql": "--migrate:up\n\(create)\n--migrate:down\n\(drop)\n"],
          outcome: .up("20240101000000_a.sql", runs: [create], skips: [drop])),
        R(id: "dbmate-03", dialect: .dbmate, files: ["20240101000000_a.sql": "--  \tmigrate:up\n\(create)\n--   migrate:down\n\(drop)\n"],
          outcome: .up("20240101000000_a.sql", runs: [create], skips: [drop])),
        R(id: "dbmate-04", dialect: .dbmate, files: ["1_a.sql": "-- migrate:up\r\n\(create)\r\n-- migrate:down\r\n\(drop)\r\n"],
          outcome: .up("1_a.sql", runs: [create], skips: [drop])),
        R(id: "dbmate-05", dialect: .dbmate, files: ["1_a.sql": "-- migrate:up transaction:false\n\(create)\n-- migrate:down\n"],
          outcome: .refuses("1_a.sql:1: 'transaction:false' asks dbmate to run this up part outside a transaction")),
        R(id: "dbmate-06", dialect: .dbmate, files: ["1_a.sql": "-- migrate:up transaction:true\n\(create)\n-- migrate:down transaction:false\n\(drop)\n"],
          outcome: .up("1_a.sql", runs: [create], skips: [drop])),
        R(id: "dbmate-07", dialect: .dbmate, files: ["1_a.sql": "-- Migrate:Up\n\(create)\n-- migrate:down\n"], outcome: .refuses("no '-- migrate:up' directive")),
        R(id: "dbmate-08", dialect: .dbmate, files: ["1_a.sql": " -- migrate:up\n\(create)\n-- migrate:down\n"], outcome: .refuses("no '-- migrate:up' directive")),
        R(id: "dbmate-09", dialect: .dbmate, files: ["1_a.sql": "-- migrate:upgrade\n\(create)\n-- migrate:down\n"], outcome: .refuses("no '-- migrate:up' directive")),
        R(id: "dbmate-10", dialect: .dbmate, files: ["1_a.sql": "-- migrate:up   please\n\(create)\n-- migrate:down\n\(drop)\n"],
          outcome: .up("1_a.sql", runs: [create], skips: [drop])),
        R(id: "dbmate-11", dialect: .dbmate, files: ["1_a.sql": "-- migrate:up\n\(create)\n"], outcome: .refuses("1_a.sql:1: no '-- migrate:down' after this '-- migrate:up'")),
        R(id: "dbmate-12", dialect: .dbmate, files: ["1_a.sql": "\(create)\n-- migrate:up\n-- migrate:down\n"], outcome: .refuses("1_a.sql:1: SQL before '-- migrate:up'")),
        R(id: "dbmate-13", dialect: .dbmate, files: ["1_a.sql": "-- the users\n  \n\(dbmate())"], outcome: .up("1_a.sql", runs: [create], skips: ["the users"])),
        R(id: "dbmate-14", dialect: .dbmate, files: ["1_a.sql": "-- migrate:down\n\(drop)\n-- migrate:up\n\(create)\n"], outcome: .refuses("1_a.sql:2: SQL before '-- migrate:up'")),
        R(id: "dbmate-15", dialect: .dbmate, files: ["1_a.sql": "-- migrate:up\n\(create)\n-- migrate:down\n\(drop)\n-- migrate:down\n"],
          outcome: .refuses("1_a.sql:5: a second '-- migrate:down'")),
        R(id: "dbmate-16", dialect: .dbmate, files: ["1_a.sql": dbmate() + dbmate("CREATE TABLE b(x);", down: "DROP TABLE b;")],
          outcome: .up("1_a.sql", runs: [create, "CREATE TABLE b(x);"], skips: [drop, "DROP TABLE b;"])),
        R(id: "dbmate-17", dialect: .dbmate, files: ["1_a.sql": dbmate() + "-- migrate:up transaction:false\nCREATE TABLE b(x);\n-- migrate:down\n"],
          outcome: .refuses("1_a.sql:6: 'transaction:false'")),
        R(id: "dbmate-18", dialect: .dbmate, files: ["20240101000000_a.sql": dbmate()], outcome: .versions(["20240101000000"])),
        R(id: "dbmate-19", dialect: .dbmate, files: ["1.sql": dbmate(), "2abc.sql": dbmate("CREATE TABLE b(x);")], outcome: .versions(["1", "2"])),
        R(id: "dbmate-20", dialect: .dbmate, files: ["1_a.sql": dbmate(), "2_b.down.sql": dbmate("CREATE TABLE b(x);")], outcome: .order(["1_a.sql", "2_b.down.sql"])),
        R(id: "dbmate-21", dialect: .dbmate, files: ["2_a.sql": dbmate(), "10_b.sql": dbmate("CREATE TABLE b(x);"), "1_c.sql": dbmate("CREATE TABLE c(x);")],
          outcome: .order(["10_b.sql", "1_c.sql", "2_a.sql"])),
        R(id: "dbmate-22", dialect: .dbmate, files: ["1_a.sql": dbmate(), "01_b.sql": dbmate("CREATE TABLE b(x);")], outcome: .versions(["01", "1"])),
        R(id: "dbmate-23", dialect: .dbmate, files: ["1_a.sql": dbmate(), "1_b.sql": dbmate("CREATE TABLE b(x);")], outcome: .refuses("version 1 is also used by")),
        R(id: "dbmate-24", dialect: .dbmate, files: ["1_a.sql": dbmate(), "schema.sql": "CREATE TABLE a(x);\n"], outcome: .ignores("schema.sql")),
        R(id: "dbmate-25", dialect: .dbmate, files: ["1_a.sql": dbmate(), ".2_b.sql": "x"], outcome: .ignores(".2_b.sql")),
        R(id: "dbmate-26", dialect: .dbmate, files: ["1_a.sql": dbmate(), "2_b.SQL": "x"], outcome: .ignores("2_b.SQL")),
        R(id: "dbmate-27", dialect: .dbmate, files: ["1_a.sql": dbmate(), "2_move_data.go": "package main\n"], outcome: .refuses("dbmate itself skips them")),
        R(id: "dbmate-28", dialect: .dbmate, files: ["1_a.sql": dbmate(), "2_b.sql/": ""], outcome: .ignores("2_b.sql")),
        R(id: "dbmate-31", dialect: .dbmate, files: ["1_a.sql": dbmate(), "2_notes.txt": "x"], outcome: .ignores("2_notes.txt")),
    ]

    // MARK: - golang-migrate

    static let golangMigrateRows: [Row] = [
        R(id: "golang-migrate-01", dialect: .golangMigrate, files: ["1_init.up.sql": create, "1_init.down.sql": drop], outcome: .up("1_init.up.sql", runs: [create], skips: [])),
        R(id: "golang-migrate-02", dialect: .golangMigrate, files: ["1_init.up.sql": create, "1_init.down.sql": drop], outcome: .ignores("1_init.down.sql")),
        R(id: "golang-migrate-03", dialect: .golangMigrate, files: ["29_a.up.sql": create, "30_ignore_autotag.up..sql": "CREATE TABLE b(x);"],
          outcome: .order(["29_a.up.sql", "30_ignore_autotag.up..sql"])),
        R(id: "golang-migrate-04", dialect: .golangMigrate, files: ["1_a.up.txt": create], outcome: .order(["1_a.up.txt"])),
        R(id: "golang-migrate-05", dialect: .golangMigrate, files: ["1_a.up.": create], outcome: .order(["1_a.up."])),
        R(id: "golang-migrate-06", dialect: .golangMigrate, files: ["1_.up.sql": create], outcome: .order(["1_.up.sql"])),
        R(id: "golang-migrate-07", dialect: .golangMigrate, files: ["1_a.down.up.sql": create], outcome: .order(["1_a.down.up.sql"])),
        R(id: "golang-migrate-08", dialect: .golangMigrate, files: ["1_a.up.sql": create, "2_b.up.down.sql": drop], outcome: .refuses("2_b.up.down.sql: version 2 has a down file and no up file")),
        R(id: "golang-migrate-09", dialect: .golangMigrate, files: ["1_a.up.sql": create, "2_b.sql": "x"], outcome: .ignores("2_b.sql")),
        R(id: "golang-migrate-10", dialect: .golangMigrate, files: ["1_a.up.sql": create, "2.up.sql": "x"], outcome: .ignores("2.up.sql")),
        R(id: "golang-migrate-11", dialect: .golangMigrate, files: ["1_a.up.sql": create, "2_b.UP.sql": "x"], outcome: .ignores("2_b.UP.sql")),
        R(id: "golang-migrate-12", dialect: .golangMigrate, files: ["1_a.up.sql": create, ".2_b.up.sql": "x"], outcome: .ignores(".2_b.up.sql")),
        R(id: "golang-migrate-13", dialect: .golangMigrate, files: ["1_a.up.sql": create, "99999999999999999999_b.up.sql": "x"], outcome: .ignores("99999999999999999999_b.up.sql")),
        R(id: "golang-migrate-14", dialect: .golangMigrate, files: ["18446744073709551615_b.up.sql": "x"], outcome: .refuses("does not fit golang-migrate's 64-bit versions")),
        R(id: "golang-migrate-15", dialect: .golangMigrate, files: ["0_init.up.sql": create], outcome: .versions(["0"])),
        R(id: "golang-migrate-16", dialect: .golangMigrate, files: ["1_a.up.sql": create, "01_b.up.sql": "x"], outcome: .refuses("version 1 is also used by")),
        R(id: "golang-migrate-17", dialect: .golangMigrate, files: ["10_b.up.sql": "CREATE TABLE b(x);", "2_a.up.sql": create], outcome: .order(["2_a.up.sql", "10_b.up.sql"])),
        R(id: "golang-migrate-18", dialect: .golangMigrate, files: ["1_a.up.sql": create, "2_move_data.go": "package main\n"],
          outcome: .refuses("golang-migrate itself skips them")),
        R(id: "golang-migrate-19", dialect: .golangMigrate, files: ["1_a.up.sql": create, "2_b.up.sql/": ""], outcome: .ignores("2_b.up.sql")),
        R(id: "golang-migrate-20", dialect: .golangMigrate, files: ["1_a.up.sql": "-- +goose Down\n-- migrate:down\n\(create)\n"], outcome: .up("1_a.up.sql", runs: ["-- +goose Down", create], skips: [])),
        R(id: "golang-migrate-22", dialect: .golangMigrate, files: ["12_oshash.up.sql": create, "12_postmigrate.go": "package migrations\n", "32_premigrate.go": "package migrations\n"],
          outcome: .refuses("12_postmigrate.go")),
        R(id: "golang-migrate-23", dialect: .golangMigrate, files: ["1_a.up.sql": create, "3_notes.md": "x"], outcome: .ignores("3_notes.md")),
    ]

    // MARK: - sqlx

    static let sqlxRows: [Row] = [
        R(id: "sqlx-01", dialect: .sqlx, files: ["20240101120000_create_users.sql": create], outcome: .up("20240101120000_create_users.sql", runs: [create], skips: [])),
        R(id: "sqlx-02", dialect: .sqlx, files: ["1_a.up.sql": create, "1_a.down.sql": drop], outcome: .ignores("1_a.down.sql")),
        R(id: "sqlx-03", dialect: .sqlx, files: ["1_a.sql": create, "2.sql": "x"], outcome: .ignores("2.sql")),
        R(id: "sqlx-04", dialect: .sqlx, files: ["1_a.sql": create, "notes_2024.txt": "x"], outcome: .ignores("notes_2024.txt")),
        R(id: "sqlx-05", dialect: .sqlx, files: ["1_a.sql": create, "V1__init.sql": "x"], outcome: .refuses("V1__init.sql: sqlx reads the version")),
        R(id: "sqlx-06", dialect: .sqlx, files: ["1_a.sql": create, "read_me.sql": "x"], outcome: .refuses("read_me.sql: sqlx reads the version")),
        R(id: "sqlx-07", dialect: .sqlx, files: ["1_a.sql": create, ".2_b.sql": "x"], outcome: .refuses(".2_b.sql: sqlx reads the version")),
        R(id: "sqlx-08", dialect: .sqlx, files: ["0_init.sql": create], outcome: .versions(["0"])),
        R(id: "sqlx-09", dialect: .sqlx, files: ["+1_init.sql": create], outcome: .refuses("has a sign")),
        R(id: "sqlx-10", dialect: .sqlx, files: ["-1_init.sql": create], outcome: .refuses("has a sign")),
        R(id: "sqlx-11", dialect: .sqlx, files: ["99999999999999999999_a.sql": create], outcome: .refuses("does not fit sqlx's 64-bit versions")),
        R(id: "sqlx-12", dialect: .sqlx, files: ["1_a.sql": create, "2_move_data.rs": "fn main() {}\n"], outcome: .refuses("sqlx itself skips them")),
        R(id: "sqlx-13", dialect: .sqlx, files: ["1_a.sql": "-- no-transaction\nCREATE INDEX i ON a(x);\n"], outcome: .refuses("1_a.sql:1: '-- no-transaction'")),
        R(id: "sqlx-14", dialect: .sqlx, files: ["1_a.sql": "\n-- no-transaction\n\(create)\n"], outcome: .up("1_a.sql", runs: [create], skips: [])),
        R(id: "sqlx-15", dialect: .sqlx, files: ["1_a.sql": "\u{FEFF}-- no-transaction\n\(create)\n"], outcome: .up("1_a.sql", runs: [create], skips: [])),
        R(id: "sqlx-16", dialect: .sqlx, files: ["1_add_user_email.sql.sql": create], outcome: .description("add user email")),
        R(id: "sqlx-17", dialect: .sqlx, files: ["1_add_user_email.up.sql": create], outcome: .description("add user email")),
        R(id: "sqlx-18", dialect: .sqlx, files: ["30_ignore_autotag.up..sql": create], outcome: .order(["30_ignore_autotag.up..sql"])),
        R(id: "sqlx-19", dialect: .sqlx, files: ["10_b.sql": "CREATE TABLE b(x);", "2_a.sql": create], outcome: .order(["2_a.sql", "10_b.sql"])),
        R(id: "sqlx-20", dialect: .sqlx, files: ["1_a.sql": create, "2_b.sql/": ""], outcome: .ignores("2_b.sql")),
        R(id: "sqlx-21", dialect: .sqlx, files: ["1_a.sql": create, "01_b.sql": "x"], outcome: .refuses("version 1 is also used by")),
        R(id: "sqlx-22", dialect: .sqlx, files: ["1_a.sql": "-- +goose Down\n\(create)\n"], outcome: .up("1_a.sql", runs: ["-- +goose Down", create], skips: [])),
    ]

    // MARK: - diesel

    static let dieselRows: [Row] = [
        R(id: "diesel-01", dialect: .diesel, files: ["2024-01-01-000000_create/up.sql": create, "2024-01-01-000000_create/down.sql": drop],
          outcome: .up("2024-01-01-000000_create/up.sql", runs: [create], skips: [drop])),
        R(id: "diesel-02", dialect: .diesel, files: ["2024-01-01-000000_create/up.sql": create], outcome: .versions(["20240101000000"])),
        R(id: "diesel-03", dialect: .diesel, files: ["2024-03-06-170000_add_sso_users/up.sql": "CREATE TABLE sso_users(x);",
                                                     "2024-03-13_170000_sso_userscascade/up.sql": "DROP TABLE sso_users;"],
          outcome: .order(["2024-03-06-170000_add_sso_users/up.sql", "2024-03-13_170000_sso_userscascade/up.sql"])),
        R(id: "diesel-04", dialect: .diesel, files: ["2024-03-13_170000_x/up.sql": create, "2024-03-06-170000_y/up.sql": create],
          outcome: .versions(["20240306170000", "20240313"])),
        R(id: "diesel-05", dialect: .diesel, files: ["00000000000000_diesel_initial_setup/up.sql": "SELECT 1;", "2018-01-01-000000_a/up.sql": create],
          outcome: .versions(["00000000000000", "20180101000000"])),
        R(id: "diesel-06", dialect: .diesel, files: ["init/up.sql": create, "2024-01-01-000000_a/up.sql": "SELECT 1;"], outcome: .versions(["20240101000000", "init"])),
        R(id: "diesel-07", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, "2024-02-01-000000_b/down.sql": drop],
          outcome: .refuses("2024-02-01-000000_b: a diesel migration folder without up.sql")),
        R(id: "diesel-08", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, "2024-02-01-000000_b/": ""], outcome: .ignores("2024-02-01-000000_b")),
        R(id: "diesel-09", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, ".git/HEAD": "x"], outcome: .ignores(".git")),
        R(id: "diesel-10", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, "2024-02-01-000000_b.sql": "x"], outcome: .ignores("2024-02-01-000000_b.sql")),
        R(id: "diesel-11", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, "2024-01-01-000000_a/metadata.toml": "run_in_transaction = false\n"],
          outcome: .refuses("run_in_transaction = false")),
        R(id: "diesel-12", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, "2024-01-01-000000_a/metadata.toml": "# kept\nrun_in_transaction = true\n"],
          outcome: .up("2024-01-01-000000_a/up.sql", runs: [create], skips: [])),
        R(id: "diesel-13", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, "2024-01-01-000000_a/metadata.toml": "# nothing to say\n"],
          outcome: .refuses("does not set run_in_transaction, which diesel then reads as false")),
        R(id: "diesel-14", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, "20240101000000_b/up.sql": create], outcome: .refuses("is also used by")),
        R(id: "diesel-15", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": ""], outcome: .up("2024-01-01-000000_a/up.sql", runs: [], skips: [create])),
        R(id: "diesel-16", dialect: .diesel, files: ["2024-01-01-000000_create_users/up.sql": create], outcome: .description("create_users")),
        R(id: "diesel-18", dialect: .diesel, files: ["2024-01-01-000000_a/up.sql": create, "2024-02-01_fill.rs": "fn main() {}\n"], outcome: .refuses("diesel itself skips them")),
    ]

    // MARK: - drizzle

    static func journal(_ tags: [(String, Int64)], dialect: String = "sqlite") -> String {
        let entries = tags.enumerated().map { #"{"idx":\#($0.offset),"version":"6","when":\#($0.element.1),"tag":"\#($0.element.0)","breakpoints":true}"# }
        return #"{"version":"7","dialect":"\#(dialect)","entries":[\#(entries.joined(separator: ","))]}"#
    }

    static let drizzleRows: [Row] = [
        R(id: "drizzle-01", dialect: .drizzle, files: ["0001_b.sql": create, "0000_a.sql": "CREATE TABLE b(x);", "meta/_journal.json": journal([("0001_b", 1), ("0000_a", 2)])],
          outcome: .order(["0001_b.sql", "0000_a.sql"])),
        R(id: "drizzle-02", dialect: .drizzle, files: ["0000_a.sql": create, "0001_stray.sql": drop, "meta/_journal.json": journal([("0000_a", 1)])],
          outcome: .ignores("0001_stray.sql (not in meta/_journal.json")),
        R(id: "drizzle-03", dialect: .drizzle, files: ["meta/_journal.json": journal([("0000_gone", 1)])], outcome: .refuses("names 0000_gone.sql, which is not in")),
        R(id: "drizzle-04", dialect: .drizzle, files: ["0000_a.sql": create, "0001_b.sql": create, "meta/_journal.json": journal([("0000_a", 5), ("0001_b", 5)])],
          outcome: .refuses("has a 'when' not after the one before it")),
        R(id: "drizzle-05", dialect: .drizzle, files: ["0000_a.sql": create, "meta/_journal.json": journal([("0000_a", 1)], dialect: "postgresql")],
          outcome: .refuses("says its SQL is for 'postgresql'")),
        R(id: "drizzle-06", dialect: .drizzle, files: ["0000_a.sql": "\(create)\n--> statement-breakpoint\nCREATE TABLE b(x);\n", "meta/_journal.json": journal([("0000_a", 1)])],
          outcome: .up("0000_a.sql", runs: [create, "CREATE TABLE b(x);"], skips: [])),
        R(id: "drizzle-07", dialect: .drizzle, files: ["sub/0000_a.sql": create, "meta/_journal.json": journal([("sub/0000_a", 1)])], outcome: .refuses("names sub/0000_a.sql")),
        R(id: "drizzle-08", dialect: .drizzle, files: ["0000_a.sql": create, "meta/_journal.json": journal([("0000_a", 1)])], outcome: .versions(["0000_a"])),
        R(id: "drizzle-12", dialect: .drizzle, files: ["0000_a.sql": create, "0001_seed.ts": "export {}\n", "meta/_journal.json": journal([("0000_a", 1)])],
          outcome: .refuses("drizzle itself skips them")),
        R(id: "drizzle-09", dialect: .drizzle, files: ["0000_a.sql": create, "meta/_journal.json": "{}"], outcome: .refuses("not a drizzle journal")),
    ]

    // MARK: - Flyway

    static let flywayRows: [Row] = [
        R(id: "flyway-01", dialect: .flyway, files: ["V1__init.sql": create], outcome: .up("V1__init.sql", runs: [create], skips: [])),
        R(id: "flyway-02", dialect: .flyway, files: ["V1_1__a.sql": create, "V1__b.sql": create], outcome: .versions(["1", "1.1"])),
        R(id: "flyway-03", dialect: .flyway, files: ["V1.10__a.sql": create, "V1.9__b.sql": create, "V2__c.sql": create], outcome: .order(["V1.9__b.sql", "V1.10__a.sql", "V2__c.sql"])),
        R(id: "flyway-04", dialect: .flyway, files: ["V1__a.sql": create, "V1.0__b.sql": create], outcome: .refuses("is also used by")),
        R(id: "flyway-05", dialect: .flyway, files: ["V001__a.sql": create], outcome: .versions(["001"])),
        R(id: "flyway-06", dialect: .flyway, files: ["V1__a.SQL": create], outcome: .order(["V1__a.SQL"])),
        R(id: "flyway-07", dialect: .flyway, files: ["V1__a.sql": create, "v2__b.sql": create], outcome: .ignores("v2__b.sql")),
        R(id: "flyway-08", dialect: .flyway, files: ["V1__a.sql": create, "V2_b.sql": create], outcome: .ignores("V2_b.sql")),
        R(id: "flyway-09", dialect: .flyway, files: ["V1__a.sql": create, "V__b.sql": create], outcome: .ignores("V__b.sql")),
        R(id: "flyway-10", dialect: .flyway, files: ["V1__a.sql": create, "V2..1__b.sql": create], outcome: .ignores("V2..1__b.sql")),
        R(id: "flyway-11", dialect: .flyway, files: ["V1__.sql": create], outcome: .description("")),
        R(id: "flyway-12", dialect: .flyway, files: ["V1__add__email_column.sql": create], outcome: .description("add  email column")),
        R(id: "flyway-13", dialect: .flyway, files: ["V1__a.sql": create, "R__views.sql": create], outcome: .refuses("R__views.sql: a repeatable migration")),
        R(id: "flyway-14", dialect: .flyway, files: ["V1__a.sql": create, "U1__a.sql": drop], outcome: .ignores("U1__a.sql (an undo migration")),
        R(id: "flyway-15", dialect: .flyway, files: ["V1__a.sql": create, "afterMigrate.sql": "ANALYZE;"], outcome: .refuses("afterMigrate.sql: a Flyway SQL callback")),
        R(id: "flyway-16", dialect: .flyway, files: ["V1__a.sql": create, "beforeEachMigrate__log.sql": "SELECT 1;"], outcome: .refuses("a Flyway SQL callback")),
        R(id: "flyway-17", dialect: .flyway, files: ["V1__a.sql": create, "V2__fill.sh": "sqlite3 x\n"], outcome: .refuses("V2__fill.sh")),
        R(id: "flyway-18", dialect: .flyway, files: ["V1__a.sql": create, "V2__Fill.java": "class V2__Fill {}\n"], outcome: .refuses("V2__Fill.java")),
        R(id: "flyway-19", dialect: .flyway, files: ["V1__a.sql": create, "V1__a.sql.conf": "executeInTransaction=false\n"], outcome: .refuses("V1__a.sql.conf: a Flyway script configuration")),
        R(id: "flyway-20", dialect: .flyway, files: ["V1__a.sql": create, "2024/V2__b.sql": "CREATE TABLE b(x);"], outcome: .order(["V1__a.sql", "2024/V2__b.sql"])),
        R(id: "flyway-21", dialect: .flyway, files: ["V1__a.sql": create, ".old/V2__b.sql": create], outcome: .order(["V1__a.sql"])),
        R(id: "flyway-22", dialect: .flyway, files: ["V1__a.sql": create, "README.md": "x"], outcome: .ignores("README.md")),
        R(id: "flyway-23", dialect: .flyway, files: ["V1__a.sql": "INSERT INTO t VALUES ('${owner}', ${count}); -- by ${owner}\n"],
          outcome: .up("V1__a.sql", runs: ["('ann', 3); -- by ann"], skips: ["${"]), placeholders: ["owner": "ann", "count": "3"]),
        R(id: "flyway-24", dialect: .flyway, files: ["V1__a.sql": "CREATE TABLE a(x);\nINSERT INTO a VALUES ('${owner}');\n"],
          outcome: .refuses("V1__a.sql:2: the Flyway placeholder '${owner}' has no value")),
        R(id: "flyway-25", dialect: .flyway, files: ["V1__a.sql": "INSERT INTO t VALUES (${Count});\n"], outcome: .up("V1__a.sql", runs: ["VALUES (3)"], skips: []),
          placeholders: ["COUNT": "3"]),
        R(id: "flyway-26", dialect: .flyway, files: ["V1__a.sql": "SELECT '$${x}';\n"], outcome: .up("V1__a.sql", runs: ["'$${x}'"], skips: [])),
        R(id: "flyway-27", dialect: .flyway, files: ["V1__a.sql": "SELECT '${flyway:table}', '${flyway:defaultSchema}', '${flyway:user}', '${flyway:filename}';\n"],
          outcome: .up("V1__a.sql", runs: ["'flyway_schema_history', 'main', '', 'V1__a.sql'"], skips: [])),
        R(id: "flyway-28", dialect: .flyway, files: ["V1__a.sql": "SELECT '${flyway:database}';\n"], outcome: .refuses("V1__a.sql:1: '${flyway:database}' is a built-in Flyway placeholder")),
        R(id: "flyway-29", dialect: .flyway, files: ["V1__a.sql": "SELECT '${x';\n"], outcome: .refuses("V1__a.sql:1: a Flyway placeholder '${' without its '}'")),
        R(id: "flyway-30", dialect: .flyway, files: ["V1__a.sql": "SELECT '$x', '{y}', '$ {z}';\n"], outcome: .up("V1__a.sql", runs: ["'$x', '{y}', '$ {z}'"], skips: [])),
        R(id: "flyway-31", dialect: .flyway, files: ["V1__a.sql": "SELECT '${empty}';\n"], outcome: .up("V1__a.sql", runs: ["SELECT '';"], skips: []), placeholders: ["empty": ""]),
    ]

    // MARK: - Steward's own

    static let stewardRows: [Row] = [
        R(id: "steward-01", dialect: .steward, files: ["0001_init.sql": create], outcome: .versions(["1"])),
        R(id: "steward-02", dialect: .steward, files: ["29_a.sql": create, "30_ignore_autotag.up..sql": "CREATE TABLE b(x);"], outcome: .order(["29_a.sql", "30_ignore_autotag.up..sql"])),
        R(id: "steward-03", dialect: .steward, files: ["1_a.up.sql": create, "1_a.down.sql": drop], outcome: .ignores("1_a.down.sql")),
        R(id: "steward-04", dialect: .steward, files: ["1.init.sql": create], outcome: .versions(["1"])),
        R(id: "steward-05", dialect: .steward, files: ["1-init.sql": create], outcome: .refuses("must start with its version")),
        R(id: "steward-06", dialect: .steward, files: ["schema.sql": create], outcome: .refuses("must start with its version")),
        R(id: "steward-07", dialect: .steward, files: ["0_init.sql": create], outcome: .refuses("out of range")),
        R(id: "steward-08", dialect: .steward, files: ["2147483648_a.sql": create], outcome: .refuses("out of range")),
        R(id: "steward-09", dialect: .steward, files: ["1_a.sql": create, "2_move_data.go": "package main\n"], outcome: .refuses("2_move_data.go")),
        R(id: "steward-10", dialect: .steward, files: ["1_a.sql": create, "2_fix_titles.py": "print(1)\n"], outcome: .refuses("2_fix_titles.py")),
        R(id: "steward-11", dialect: .steward, files: ["1_a.sql": goose()], outcome: .refuses("goose section marker")),
        R(id: "steward-12", dialect: .steward, files: ["1_a.sql": dbmate()], outcome: .refuses("dbmate section marker")),
        R(id: "steward-13", dialect: .steward, files: ["1_a.sql": create, "01_b.sql": create], outcome: .refuses("is also used by")),
        R(id: "steward-14", dialect: .steward, files: ["10_b.sql": "CREATE TABLE b(x);", "2_a.sql": create], outcome: .order(["2_a.sql", "10_b.sql"])),
        R(id: "steward-15", dialect: .steward, files: ["1_a.sql": create, "README.md": "x", ".2_b.sql": "x"], outcome: .ignores(".2_b.sql")),
        R(id: "steward-16", dialect: .steward, files: ["1_a.sql": create, "2_old/up.sql": "x"], outcome: .ignores("2_old")),
    ]
}

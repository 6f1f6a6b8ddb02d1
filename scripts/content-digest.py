# An independent implementation of Steward's content digests (issue 13), for its tests:
# Python's sqlite3 and hashlib, the encoding of the sqlite3 shell's sha3_query with SHA-256.
import hashlib, json, re, sqlite3, struct, sys

class Text(bytes):
    """TEXT as SQLite stores it (UTF-8 bytes), told apart from a BLOB."""

def encode(value):
    if value is None:
        return b"N"
    if isinstance(value, int):
        return b"I" + struct.pack(">q", value)
    if isinstance(value, float):
        return b"F" + struct.pack(">d", value)
    if isinstance(value, Text):
        return b"T%d:" % len(value) + bytes(value)
    data = bytes(value)
    return b"B%d:" % len(data) + data

def digest(connection, sql):
    h = hashlib.sha256()
    rows = 0
    for row in connection.execute(sql):
        rows += 1
        for value in row:
            h.update(encode(value))
    return rows, h.hexdigest()

def main(path):
    c = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
    c.text_factory = Text
    def q(name):
        return '"' + name.replace('"', '""') + '"'
    _, schema = digest(c, "SELECT type, name, tbl_name, sql FROM sqlite_schema ORDER BY name")
    tables = []
    for name, kind, wr in c.execute("SELECT name, type, wr FROM pragma_table_list WHERE schema = 'main'").fetchall():
        name = name.decode()
        kind = kind.decode()
        if name.lower().startswith("sqlite_"):
            continue
        if kind == "virtual":
            sql = c.execute("SELECT sql FROM sqlite_schema WHERE name = ?", (name,)).fetchone()[0].decode()
            if not re.search(r"using\s+fts5", sql, re.I):
                continue
        elif kind != "table":
            continue
        if wr:
            keys = [r[0].decode() for r in c.execute("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", (name,))]
            order = ", ".join(q(k) for k in keys)
        else:
            order = "rowid"
        rows, sha = digest(c, "SELECT * FROM %s ORDER BY %s" % (q(name), order))
        tables.append({"name": name, "rows": rows, "sha256": sha})
    tables.sort(key=lambda t: t["name"].encode())
    print(json.dumps({"schema": schema, "tables": tables}, sort_keys=True))

main(sys.argv[1])

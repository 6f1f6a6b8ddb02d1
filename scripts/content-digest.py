# An independent implementation of Steward's content digests (issue 13), for its tests:
# Python's sqlite3 and hashlib, the encoding of the sqlite3 shell's sha3_query with SHA-256.
import hashlib, json, os, re, sqlite3, struct, sys

# CONTENT_DIGEST_SQLITE=pysqlite3: the SQLite that pip's pysqlite3-binary bundles, another
# version than the system's that Steward links, so the tests can show that a digest does
# not depend on the SQLite version that reads the file.
if os.environ.get("CONTENT_DIGEST_SQLITE") == "pysqlite3":
    import pysqlite3 as sqlite3

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
    # sha256-sha3sum-v2: the tables are chosen from sqlite_schema alone (a virtual table
    # has rootpage 0), never from the modules this connection has, so the digest is the
    # same with or without an extension loaded. Skipped: sqlite_%, FTS5's shadow tables
    # (its content is digested through the FTS5 table), every other virtual table (its
    # shadow tables are ordinary tables and are digested).
    entries = [(n.decode(), r, (s or b"").decode())
               for n, r, s in c.execute("SELECT name, rootpage, sql FROM sqlite_schema WHERE type = 'table'").fetchall()]
    fts5 = [n for n, r, s in entries if r == 0 and re.search(r"\busing\s+fts5\s*\(", s, re.I)]
    fts_shadows = {("%s_%s" % (n, suffix)).lower() for n in fts5 for suffix in ("data", "idx", "content", "docsize", "config")}
    tables, virtual = [], []
    for name, rootpage, sql in entries:
        if name.lower().startswith("sqlite_"):
            continue
        if rootpage == 0:
            if name not in fts5:
                virtual.append(name)
                continue
            order = "rowid"
        elif name.lower() in fts_shadows:
            continue
        else:
            columns = {r[0].decode().lower() for r in c.execute("SELECT name FROM pragma_table_xinfo(?)", (name,))}
            wr = c.execute("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?", (name,)).fetchone()[0]
            if wr:
                keys = [r[0].decode() for r in c.execute("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", (name,))]
                order = ", ".join(q(k) for k in keys)
            else:
                # The rowid under a name no column has taken.
                order = next((n for n in ("rowid", "_rowid_", "oid") if n not in columns), "rowid")
        rows, sha = digest(c, "SELECT * FROM main.%s ORDER BY %s" % (q(name), order))
        tables.append({"name": name, "rows": rows, "sha256": sha})
    tables.sort(key=lambda t: t["name"].encode())
    virtual.sort(key=lambda n: n.encode())
    result = {"algorithm": "sha256-sha3sum-v2", "schema": schema, "tables": tables}
    if virtual:
        result["virtualTables"] = virtual
    print(json.dumps(result, sort_keys=True))

main(sys.argv[1])

#!/usr/bin/env python3
"""Cold prepared statements bound with the extended protocol, for
027_prepared_plans.pl.

Two named statements (one with a parameter, one without) are bound and
executed until they are cold (sfcache.cold_after = 20, generic plans),
then DDL on their table makes the plan cache analyse and plan them again,
and three more executions follow. Their executions after the DDL must
still be counted in sfcache.statements (the new generic plan is a cache
plan, cache_cold.c).

Usage: cold_bind_client.py SOCKET_DIR PORT DBNAME USER
Prints the rows of each execution, one per line, then for each statement
"calls|bypasses" as sfcache.statements counts them.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from replay_client import Conn  # noqa: E402


def parse(c, name, sql):
    c.send(b"P", name.encode() + b"\0" + sql.encode() + b"\0" + struct.pack("!h", 0))
    c.send(b"S")
    c.until(b"Z")


def run(c, name, params=()):
    """Bind the named statement to the unnamed portal, Execute, Sync: its values."""
    b = b"\0" + name.encode() + b"\0" + struct.pack("!h", 0) + struct.pack("!h", len(params))
    for v in params:
        b += struct.pack("!i", len(v.encode())) + v.encode()
    b += struct.pack("!h", 0)
    c.send(b"B", b)
    c.send(b"E", b"\0" + struct.pack("!i", 0))
    c.send(b"S")
    values = []
    for kind, payload in c.until(b"Z"):
        if kind == b"D":
            n = struct.unpack("!i", payload[2:6])[0]
            values.append(payload[6:6 + n].decode())
    return ",".join(values)


def main():
    c = Conn(*sys.argv[1:5])
    c.simple("SET sfcache.cold_after = 20; SET plan_cache_mode = force_generic_plan")

    parse(c, "by_id", "SELECT w FROM t WHERE id = $1")
    for i in range(101, 122):
        print(run(c, "by_id", [str(i)]))
    c.simple("ALTER TABLE t ADD COLUMN y int")
    for i in range(122, 125):
        print(run(c, "by_id", [str(i)]))

    # no parameters: one key, never served, as its table changes each time
    parse(c, "big", "SELECT count(*) FROM t WHERE v > 49000")
    for _ in range(22):
        c.simple("UPDATE t SET w = w WHERE id = 1")
        print(run(c, "big"))
    c.simple("ALTER TABLE t DROP COLUMN y")
    for _ in range(3):
        c.simple("UPDATE t SET w = w WHERE id = 1")
        print(run(c, "big"))

    for pattern in ("SELECT w FROM t WHERE id = %", "SELECT count(*) FROM t WHERE v >%"):
        print(c.value("SELECT calls || '|' || bypasses FROM sfcache.statements "
                      f"WHERE query LIKE '{pattern}'"))


main()

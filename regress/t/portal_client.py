#!/usr/bin/env python3
"""Portals whose output changes between fetches, for 026_portal_refetch.pl.

A protocol-level named portal of a cached statement is fetched in batches
(Execute with a row limit), and between two fetches something that the
first fetch saw changes: the client encoding (both ways), the row limit,
the result formats (an SQL FETCH of the same portal bound in binary, or a
second portal of the statement in binary fetched in turn), the receiver
(a FETCH from PL/pgSQL, which goes to SPI; a MOVE, which goes nowhere).
Each case runs in a transaction block (named portals live until its end)
three times, with sfcache.cache = off, then on (a miss: the leader), then
on again (a hit), and the raw messages must be the same byte for byte.

Usage: portal_client.py SOCKET_DIR PORT DBNAME USER
Prints one line per case: "ok NAME hits=N" or "MISMATCH NAME ...".
"""
import os
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from replay_client import Conn  # noqa: E402

SQL = "SELECT id, name FROM t WHERE id <= 6 OR id >= 1000 ORDER BY id"


def bind(c, portal, sql=SQL, formats=()):
    """Parse the unnamed statement, Bind it to a named portal, Describe it."""
    c.send(b"P", b"\0" + sql.encode() + b"\0" + struct.pack("!h", 0))
    b = portal.encode() + b"\0\0" + struct.pack("!hh", 0, 0)
    b += struct.pack("!h", len(formats)) + b"".join(struct.pack("!h", f) for f in formats)
    c.send(b"B", b)
    c.send(b"D", b"P" + portal.encode() + b"\0")
    c.send(b"S")
    return c.until(b"Z")


def fetch(c, portal, n):
    """One Execute of the portal with a row limit (0: all), then Sync."""
    c.send(b"E", portal.encode() + b"\0" + struct.pack("!i", n))
    c.send(b"S")
    return c.until(b"Z")


def in_txn(c, steps):
    out = c.simple("BEGIN")
    for step in steps:
        out += step(c)
    return out + c.simple("COMMIT")


CASES = [
    ("client encoding changed between fetches", [
        lambda c: bind(c, "p"), lambda c: fetch(c, "p", 2),
        lambda c: c.simple("SET client_encoding = 'LATIN1'"),
        lambda c: fetch(c, "p", 3), lambda c: fetch(c, "p", 0),
        lambda c: c.simple("RESET client_encoding")]),
    ("client encoding back to the database's between fetches", [
        lambda c: c.simple("SET client_encoding = 'LATIN1'"),
        lambda c: bind(c, "p"), lambda c: fetch(c, "p", 2),
        lambda c: c.simple("RESET client_encoding"),
        lambda c: fetch(c, "p", 0)]),
    ("row limit, then the rest", [
        lambda c: bind(c, "p"), lambda c: fetch(c, "p", 2), lambda c: fetch(c, "p", 1),
        lambda c: fetch(c, "p", 0)]),
    ("binary result formats of an SQL FETCH between fetches", [
        lambda c: bind(c, "p"), lambda c: fetch(c, "p", 2),
        lambda c: c.extended("FETCH 2 FROM p", formats=[1]),
        lambda c: fetch(c, "p", 0)]),
    ("text fetches after a binary first fetch", [
        lambda c: bind(c, "p"),
        lambda c: c.extended("FETCH 2 FROM p", formats=[1]),
        lambda c: fetch(c, "p", 0)]),
    ("two portals, text and binary, fetched in turn", [
        lambda c: bind(c, "p1"), lambda c: bind(c, "p2", formats=[1]),
        lambda c: fetch(c, "p1", 2), lambda c: fetch(c, "p2", 2),
        lambda c: fetch(c, "p1", 0), lambda c: fetch(c, "p2", 0)]),
    ("a FETCH from PL/pgSQL between fetches (another receiver)", [
        lambda c: bind(c, "p"), lambda c: fetch(c, "p", 2),
        lambda c: c.simple("SELECT fetch_names('p', 3)"),
        lambda c: fetch(c, "p", 0)]),
    ("a MOVE between fetches", [
        lambda c: bind(c, "p"), lambda c: fetch(c, "p", 1),
        lambda c: c.simple("MOVE 2 IN p"),
        lambda c: fetch(c, "p", 0)]),
]


def main():
    sockdir, port, dbname, user = sys.argv[1:5]
    c = Conn(sockdir, port, dbname, user)
    failed = False
    for name, steps in CASES:
        c.simple("SELECT sfcache.flush()")
        c.simple("RESET ALL")
        c.simple("SET sfcache.admission = off")
        c.simple("SET sfcache.cache = off")
        plain = in_txn(c, steps)
        c.simple("SET sfcache.cache = on")
        first = in_txn(c, steps)
        before = int(c.value("SELECT hits FROM sfcache.stats"))
        second = in_txn(c, steps)
        hits = int(c.value("SELECT hits FROM sfcache.stats")) - before
        if plain == first == second:
            print(f"ok {name} hits={hits}")
        else:
            failed = True
            which = "miss" if plain != first else "hit"
            theirs = first if plain != first else second
            for i, (a, b) in enumerate(zip(plain, theirs)):
                if a != b:
                    print(f"MISMATCH {name} ({which}) message {i}: {a!r} vs {b!r}")
                    break
            else:
                print(f"MISMATCH {name} ({which}): {len(plain)} vs {len(theirs)} messages")
    c.send(b"X")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

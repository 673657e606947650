#!/usr/bin/env python3
"""A minimal PostgreSQL protocol-3 client for 025_datarow_replay.pl.

Runs each case three times on one connection, with sfcache.cache = off,
then on (a miss), then on again (a hit), and compares the raw messages the
server sent (RowDescription, DataRow, PortalSuspended, CommandComplete...)
byte for byte with those of the uncached run: a hit replayed from stored
DataRows must be indistinguishable from PostgreSQL's own output. libpq
cannot send an Execute with a row limit, hence the hand-written protocol.

Usage: replay_client.py SOCKET_DIR PORT DBNAME USER
Prints one line per case: "ok NAME hits=N" or "MISMATCH NAME ...".
"""
import socket
import struct
import sys


class Conn:
    def __init__(self, sockdir, port, dbname, user):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(f"{sockdir}/.s.PGSQL.{port}")
        self.buf = b""
        params = b"user\0" + user.encode() + b"\0database\0" + dbname.encode() + b"\0\0"
        body = struct.pack("!i", 196608) + params
        self.s.sendall(struct.pack("!i", len(body) + 4) + body)
        self.until(b"Z")

    def send(self, kind, payload=b""):
        self.s.sendall(kind + struct.pack("!i", len(payload) + 4) + payload)

    def recv_msg(self):
        while len(self.buf) < 5:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk
        kind = self.buf[:1]
        length = struct.unpack("!i", self.buf[1:5])[0]
        while len(self.buf) < 1 + length:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk
        payload = self.buf[5:1 + length]
        self.buf = self.buf[1 + length:]
        return kind, payload

    def until(self, *stops):
        """Messages up to and including the first of kind in stops."""
        out = []
        while True:
            kind, payload = self.recv_msg()
            if kind == b"E":
                raise RuntimeError("server error: " + payload.decode(errors="replace"))
            if kind in (b"S", b"N", b"K", b"R"):  # status, notices, key, auth
                continue
            out.append((kind, payload))
            if kind in stops:
                return out

    def simple(self, sql):
        self.send(b"Q", sql.encode() + b"\0")
        return self.until(b"Z")

    def extended(self, sql, params=(), formats=(), max_rows=0):
        """Parse, Bind, Describe, then Execute (max_rows at a time) until done."""
        p = b"\0" + sql.encode() + b"\0" + struct.pack("!h", 0)
        self.send(b"P", p)
        b = b"\0\0" + struct.pack("!h", 0) + struct.pack("!h", len(params))
        for v in params:
            if v is None:
                b += struct.pack("!i", -1)
            else:
                b += struct.pack("!i", len(v.encode())) + v.encode()
        b += struct.pack("!h", len(formats)) + b"".join(struct.pack("!h", f) for f in formats)
        self.send(b"B", b)
        self.send(b"D", b"P\0")
        out = []
        while True:
            self.send(b"E", b"\0" + struct.pack("!i", max_rows))
            self.send(b"H")
            msgs = self.until(b"s", b"C", b"I")
            out += msgs
            if msgs[-1][0] != b"s":
                break
        self.send(b"S")
        out += self.until(b"Z")
        return out

    def value(self, sql):
        for kind, payload in self.simple(sql):
            if kind == b"D":
                n = struct.unpack("!i", payload[2:6])[0]
                return payload[6:6 + n].decode()
        return None


CASES = [
    # name, setup SQL (run before each of the three runs), the run
    ("text columns, NULLs, 20 rows", "",
     lambda c: c.extended("SELECT id, name, score, b, u, k FROM t WHERE id <= $1 ORDER BY id", ["20"])),
    ("binary columns", "",
     lambda c: c.extended("SELECT id, name, score, b, u, k FROM t WHERE id <= $1 ORDER BY id", ["20"], [1])),
    ("mixed formats", "",
     lambda c: c.extended("SELECT id, name, score, b, u, k FROM t WHERE id <= $1 ORDER BY id", ["20"],
                          [0, 1, 0, 1, 0, 1])),
    ("zero rows", "",
     lambda c: c.extended("SELECT id, name FROM t WHERE id < $1", ["0"])),
    ("many rows", "",
     lambda c: c.extended("SELECT id, name, score FROM t ORDER BY id")),
    ("settings-dependent text (float8, timestamptz)", "",
     lambda c: c.extended("SELECT id, f, ts FROM t WHERE id <= 30 ORDER BY id")),
    ("a result that spills (not stored)", "SET sfcache.max_entry_size = '8kB'",
     lambda c: c.extended("SELECT id, name, score FROM t WHERE id > 100 ORDER BY id")),
    ("Execute with a row limit of 3", "",
     lambda c: c.extended("SELECT id, name FROM t WHERE id <= 10 ORDER BY id", max_rows=3)),
    ("Execute with a row limit of 7 on binary columns", "",
     lambda c: c.extended("SELECT id, name FROM t WHERE id <= 10 ORDER BY id", [], [1], max_rows=7)),
    ("row limit past the end", "",
     lambda c: c.extended("SELECT id FROM t WHERE id <= 4 ORDER BY id", max_rows=10)),
    ("simple protocol", "",
     lambda c: c.simple("SELECT id, name, k FROM t WHERE id <= 9 ORDER BY id")),
    ("EXECUTE of a prepared statement", "",
     lambda c: c.simple("EXECUTE byid(5); EXECUTE byid(14)")),
    ("client encoding other than the database's", "SET client_encoding = 'LATIN1'",
     lambda c: c.extended("SELECT id, name FROM t WHERE id IN (1000, 1001) ORDER BY id")),
]


def main():
    sockdir, port, dbname, user = sys.argv[1:5]
    c = Conn(sockdir, port, dbname, user)
    c.simple("SET sfcache.admission = off")
    c.simple("PREPARE byid(int) AS SELECT id, name, score FROM t WHERE id = $1")
    failed = False
    for name, setup, run in CASES:
        c.simple("SELECT sfcache.flush()")
        c.simple("RESET ALL")
        c.simple("SET sfcache.admission = off")
        if setup:
            c.simple(setup)
        c.simple("SET sfcache.cache = off")
        plain = run(c)
        c.simple("SET sfcache.cache = on")
        first = run(c)
        before = int(c.value("SELECT hits FROM sfcache.stats"))
        second = run(c)
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

# regress/oracle/portal.py: the oracle's portal check (mode "portal:VARIANT").
# libpq cannot send an Execute with a row limit, so a second connection
# speaks the protocol itself: it takes the checked connection's role and
# settings, then, in a transaction block, binds the SELECT to a named
# portal, fetches 2 rows, changes what the first fetch saw, and fetches the
# rest. VARIANT is what changes: "encoding" (SET client_encoding = LATIN1),
# "binary_fetch" (an SQL FETCH of the portal with binary results),
# "plpgsql_fetch" (a FETCH from PL/pgSQL, s.ora_fetch), "rowlimit" (one more
# batch of 1). The outcome is every row and message in order, as bytes.
import socket
import struct

from session import Outcome

LOCK_TIMEOUT = "SET lock_timeout = '300ms'"


class PortalConn:
    def __init__(self, host, port, user, dbname):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect("%s/.s.PGSQL.%d" % (host, port))
        self.buf = b""
        params = b"user\0" + user.encode() + b"\0database\0" + dbname.encode() + b"\0\0"
        body = struct.pack("!i", 196608) + params
        self.s.sendall(struct.pack("!i", len(body) + 4) + body)
        self.until(b"Z")

    def close(self):
        try:
            self.send(b"X")
            self.s.close()
        except OSError:
            pass

    def send(self, kind, payload=b""):
        self.s.sendall(kind + struct.pack("!i", len(payload) + 4) + payload)

    def recv_msg(self):
        while len(self.buf) < 5 or len(self.buf) < 1 + struct.unpack("!i", self.buf[1:5])[0]:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError("server closed the connection")
            self.buf += chunk
        length = struct.unpack("!i", self.buf[1:5])[0]
        kind, payload = self.buf[:1], self.buf[5:1 + length]
        self.buf = self.buf[1 + length:]
        return kind, payload

    def until(self, stop):
        """Messages up to a ReadyForQuery; the first error's SQLSTATE and message."""
        out, error = [], None
        while True:
            kind, payload = self.recv_msg()
            if kind == b"E" and error is None:
                fields = dict((f[:1], f[1:].decode(errors="replace")) for f in payload.split(b"\0") if f)
                error = (fields.get(b"C", "?????"), fields.get(b"M", ""))
            if kind in (b"S", b"N", b"K", b"R", b"E"):
                continue
            out.append((kind, payload))
            if kind == stop:
                return out, error

    def simple(self, sql):
        self.send(b"Q", sql.encode() + b"\0")
        return self.until(b"Z")

    def extended(self, sql, portal=b"", formats=(), max_rows=0, bind_only=False):
        self.send(b"P", b"\0" + sql.encode() + b"\0" + struct.pack("!h", 0))
        b = portal + b"\0\0" + struct.pack("!hh", 0, 0)
        b += struct.pack("!h", len(formats)) + b"".join(struct.pack("!h", f) for f in formats)
        self.send(b"B", b)
        self.send(b"D", b"P" + portal + b"\0")
        if not bind_only:
            self.send(b"E", portal + b"\0" + struct.pack("!i", max_rows))
        self.send(b"S")
        return self.until(b"Z")

    def fetch(self, portal, n):
        self.send(b"E", portal + b"\0" + struct.pack("!i", n))
        self.send(b"S")
        return self.until(b"Z")

    def run(self, sql, variant, state_sql, cache_on):
        """One portal check run; an Outcome of its rows (or first error)."""
        setup = ["RESET SESSION AUTHORIZATION", "RESET ROLE", "RESET ALL", LOCK_TIMEOUT] + state_sql + [
            "SET sfcache.cache = %s" % ("on" if cache_on else "off")]
        for s in setup:
            self.simple(s)
        msgs, error = self.simple("BEGIN")
        steps = [lambda: self.extended(sql, b"op", bind_only=True), lambda: self.fetch(b"op", 2)]
        if variant == "encoding":
            steps.append(lambda: self.simple("SET client_encoding = 'LATIN1'"))
        elif variant == "binary_fetch":
            steps.append(lambda: self.extended("FETCH 2 FROM op", formats=[1]))
        elif variant == "plpgsql_fetch":
            steps.append(lambda: self.simple("SELECT s.ora_fetch('op', 2)"))
        else:
            steps.append(lambda: self.fetch(b"op", 1))
        steps.append(lambda: self.fetch(b"op", 0))
        rows, cols = [], []
        for step in steps:
            got, error = step()
            if error:
                break
            for kind, payload in got:
                if kind == b"T" and not cols:
                    cols = _columns(payload)
                elif kind == b"D":
                    rows.append(_values(payload))
        self.simple("ROLLBACK")
        self.simple("RESET client_encoding")
        if error:
            return Outcome(error=error[0], message=error[1])
        return Outcome(rows=rows, cols=cols)


def _columns(payload):
    n = struct.unpack("!h", payload[:2])[0]
    pos, cols = 2, []
    for _ in range(n):
        end = payload.index(b"\0", pos)
        name = payload[pos:end].decode(errors="replace")
        typoid = struct.unpack("!i", payload[end + 7:end + 11])[0]
        cols.append((name, typoid))
        pos = end + 19
    return cols


def _values(payload):
    n = struct.unpack("!h", payload[:2])[0]
    pos, vals = 2, []
    for _ in range(n):
        length = struct.unpack("!i", payload[pos:pos + 4])[0]
        pos += 4
        if length < 0:
            vals.append(None)
        else:
            vals.append(bytes(payload[pos:pos + length]))
            pos += length
    return tuple(vals)

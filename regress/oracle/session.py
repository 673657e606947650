# regress/oracle/session.py: one oracle connection and the oracle check
# itself. Every statement goes through Conn.run(), which returns an Outcome
# (rows as raw bytes, or the SQLSTATE of the error). Conn.check() runs one
# SELECT twice with the cache on and once with it off, in the same session
# state, and returns the mismatch if the outcomes differ. Portal checks run
# on a second, hand-driven protocol connection (portal.py) that takes this
# one's role and settings first.
import psycopg
from psycopg import pq
from psycopg.adapt import Loader

# Errors that depend on timing (a lock held by another of our connections),
# not on the cache: a check that meets one compares nothing.
TIMING_STATES = {"55P03", "57014", "40P01", "40001"}


class RawLoader(Loader):
    """Keep every value as the bytes the server sent (text or binary)."""

    def load(self, data):
        return bytes(data)


class RawBinaryLoader(RawLoader):
    format = pq.Format.BINARY


def raw_adapters(conn):
    oids = [0] + [r[0] for r in conn.execute("/* sfcache:off */ SELECT oid::int FROM pg_type").fetchall()]
    for loader in (RawLoader, RawBinaryLoader):
        for oid in oids:
            conn.adapters.register_loader(oid, loader)
    # the loaders above also serve types created later (oid 0 is the fallback)


class Outcome:
    def __init__(self, rows=None, cols=None, error=None, message=None):
        self.rows, self.cols, self.error, self.message = rows, cols, error, message

    def key(self, ordered):
        if self.error:
            return ("error", self.error)
        rows = self.rows if ordered else sorted(self.rows, key=_sortkey)
        return ("rows", tuple(self.cols), tuple(rows))

    def show(self, limit=20):
        if self.error:
            return "ERROR %s: %s" % (self.error, self.message)
        out = ["columns %s, %d rows" % (self.cols, len(self.rows))]
        for r in self.rows[:limit]:
            out.append("  " + " | ".join("NULL" if v is None else _txt(v) for v in r))
        if len(self.rows) > limit:
            out.append("  ...")
        return "\n".join(out)


def _txt(v):
    try:
        t = v.decode()
        if t.isprintable():
            return t
    except UnicodeDecodeError:
        pass
    return "\\x" + v.hex()     # binary format


def _sortkey(row):
    return tuple((v is None, v or b"") for v in row)


def _outcome(res):
    if res.status == pq.ExecStatus.FATAL_ERROR:
        return _error_outcome(res)
    cols = [(res.fname(i).decode(), res.ftype(i)) for i in range(res.nfields)]
    rows = [tuple(res.get_value(r, i) for i in range(res.nfields)) for r in range(res.ntuples)]
    return Outcome(rows=rows, cols=cols)


def _error_outcome(res):
    state = res.error_field(pq.DiagnosticField.SQLSTATE)
    msg = res.error_field(pq.DiagnosticField.MESSAGE_PRIMARY)
    return Outcome(error=state.decode() if state else "?????", message=msg.decode() if msg else "")


def changes_settings(sql):
    """Statements after which a plan made earlier may hold constants folded
    under other settings (byteaout, float8out, date_out, quote_ident ... are
    IMMUTABLE yet read settings; plain PostgreSQL keeps such a plan)."""
    u = sql.lstrip().upper()
    if "SFC_ORACLE" in u or "SFCACHE.CACHE" in u:      # the check's own statements
        return False
    if u.startswith(("SET ROLE", "SET SESSION AUTHORIZATION", "RESET ROLE", "RESET SESSION")):
        return False
    return u.startswith(("SET", "RESET", "DISCARD", "ROLLBACK", "COMMIT", "PREPARE TRANSACTION", "END", "ABORT"))


OFF_PREFIX = "/* sfcache:off */ "


class Conn:
    def __init__(self, server, cid):
        self.cid = cid
        self.server = server
        self.portal = None      # portal.PortalConn, made at the first portal check
        self.pg = server.connect()
        # no automatic preparing: a statement run 5 times would silently move
        # to prepared statements, and psycopg then sends DEALLOCATE ALL after
        # every ROLLBACK (dropping the oracle's SQL-level PREPAREd statements)
        self.pg.prepare_threshold = None
        raw_adapters(self.pg)
        self.prepared = {}
        # settings epoch: prepared statements are compared only with cache-off
        # twins prepared, and so planned, under the same settings
        self.epoch = 0
        self.sqlprep_epoch = {}

    def close(self):
        try:
            self.pg.close()
        except Exception:
            pass
        if self.portal is not None:
            self.portal.close()

    def portal_state(self):
        """SET statements giving another connection this one's role and the
        settings the workload changes."""
        from workload import SETTINGS
        names = sorted(SETTINGS)
        row = self.pg.execute(OFF_PREFIX + "SELECT session_user::text, current_user::text, " +
                              ", ".join("current_setting('%s')" % n for n in names)).fetchone()
        vals = [v.decode() if isinstance(v, bytes) else v for v in row]
        out = []
        for n, v in zip(names, vals[2:]):
            if n == "search_path":
                out.append("SET search_path = %s" % v)
            else:
                out.append("SET %s = '%s'" % (n, v.replace("'", "''")))
        out.append('SET SESSION AUTHORIZATION "%s"' % vals[0])
        out.append('SET ROLE "%s"' % vals[1])
        return out

    def check_portal(self, e):
        """A portal check (portal.py): on, on, off on the protocol connection."""
        from portal import PortalConn
        if self.in_txn():
            # the other connection could not see this one's transaction
            skipped = Outcome(rows=[], cols=[])
            return skipped, skipped, skipped
        if self.portal is None:
            self.portal = PortalConn(self.server.host, self.server.port, self.server.user, "oracle")
        state = self.portal_state()
        variant = e["mode"].split(":", 1)[1]
        on1 = self.portal.run(e["sql"], variant, state, True)
        on2 = self.portal.run(e["sql"], variant, state, True)
        off = self.portal.run(e["sql"], variant, state, False)
        return on1, on2, off

    def txn_status(self):
        return self.pg.info.transaction_status

    def in_txn(self):
        return self.txn_status() != pq.TransactionStatus.IDLE

    def aborted(self):
        return self.txn_status() == pq.TransactionStatus.INERROR

    def run(self, sql, params=None, mode="simple", copy_data=None):
        """Run one statement; mode is simple, extended, prepared or binary."""
        try:
            cur = self.pg.cursor(binary=(mode == "binary"))
            if copy_data is not None:
                with cur.copy(sql) as cp:
                    cp.write(copy_data)
                return Outcome(rows=[], cols=[])
            if mode in ("extended", "binary"):
                return self._run_extended(sql, params or [], mode == "binary")
            if mode == "simple":
                if changes_settings(sql):
                    self.epoch += 1
                if sql.startswith("PREPARE "):
                    self.sqlprep_epoch[sql.split()[1]] = self.epoch
                cur.execute(sql)
                if sql.upper().startswith("DISCARD ALL"):
                    self.prepared.clear()
                while cur.nextset():	# several statements: the last result counts
                    pass
            elif mode == "prepared":
                return self._run_prepared(sql, params or [])
            else:
                cur.execute(sql, params or (), prepare=False)
            if cur.description is None:
                return Outcome(rows=[], cols=[])
            cols = [(d.name, d.type_code) for d in cur.description]
            rows = [tuple(r) for r in cur.fetchall()]
            for r in rows:
                for v in r:
                    if v is not None and not isinstance(v, bytes):
                        raise AssertionError("not raw: %r from %r, cols %r" % (v, sql, cols))
            return Outcome(rows=rows, cols=cols)
        except psycopg.Error as e:
            state = e.sqlstate or "?????"
            if isinstance(e, psycopg.OperationalError) and self.pg.closed:
                raise
            return Outcome(error=state, message=str(e).split("\n")[0])

    def _run_extended(self, sql, params, binary):
        """Extended protocol, unnamed statement (Parse/Bind/Execute each
        time), even without parameters; ints are sent as typed int8 in
        binary, strings as unknown-typed text."""
        text = sql
        for i in range(len(params)):
            text = text.replace("%s", "$%d" % (i + 1), 1)
        values, types, formats = [], [], []
        for v in params:
            if isinstance(v, int):
                values.append(v.to_bytes(8, "big", signed=True))
                types.append(20)
                formats.append(1)
            else:
                values.append(str(v).encode())
                types.append(0)
                formats.append(0)
        res = self.pg.pgconn.exec_params(text.encode(), values, types, formats,
                                         result_format=1 if binary else 0)
        return _outcome(res)

    def _run_prepared(self, sql, params):
        """Protocol-level named prepared statement (Parse once, Bind/Execute
        each time), driven through libpq directly: psycopg's own prepare=True
        sends DEALLOCATE ALL after any ROLLBACK, which would also drop the
        SQL-level PREPAREd statements the oracle uses."""
        pgc = self.pg.pgconn
        key = (sql, self.epoch)
        name = self.prepared.get(key)
        if name is None:
            name = ("sfo_p%d" % len(self.prepared)).encode()
            text = sql
            for i in range(len(params)):
                text = text.replace("%s", "$%d" % (i + 1), 1)
            res = pgc.prepare(name, text.encode())
            if res.status != pq.ExecStatus.COMMAND_OK:
                return _error_outcome(res)
            self.prepared[key] = name
        res = pgc.exec_prepared(name, [str(v).encode() for v in params])
        return _outcome(res)

    def _guarded(self, sql, params, mode):
        """Inside a transaction a failing run must not abort it: savepoint."""
        if not self.in_txn():
            return self.run(sql, params, mode)
        self.run("SAVEPOINT sfc_oracle")
        out = self.run(sql, params, mode)
        self.run("ROLLBACK TO SAVEPOINT sfc_oracle" if out.error else "RELEASE SAVEPOINT sfc_oracle")
        return out

    def check(self, e):
        """The oracle: returns (on1, on2, off) outcomes for a check entry."""
        sql, params, mode = e["sql"], e.get("params"), e["mode"]
        if self.aborted():
            skipped = Outcome(error="25P02", message="transaction aborted before the check")
            return skipped, skipped, skipped
        if mode.startswith("portal"):
            return self.check_portal(e)
        if mode == "sqlprep":
            # e["sql"] is "name(args)": PREPAREd twice, "name" and "name_off"
            name, args = sql.split("(", 1) if "(" in sql else (sql, None)
            if self.sqlprep_epoch.get(name) != self.epoch or self.sqlprep_epoch.get(name + "_off") != self.epoch:
                # PREPAREd before a setting changed: plain PostgreSQL may
                # return other values from the two (see changes_settings)
                skipped = Outcome(rows=[], cols=[])
                return skipped, skipped, skipped
            on_sql = "EXECUTE %s%s" % (name, "(" + args if args else "")
            off_sql = "EXECUTE %s_off%s" % (name, "(" + args if args else "")
            run_mode = "simple"
        else:
            on_sql, off_sql, run_mode = sql, OFF_PREFIX + sql, mode
        on1 = self._guarded(on_sql, params, run_mode)
        on2 = self._guarded(on_sql, params, run_mode)
        self.run("SET sfcache.cache = off")
        off = self._guarded(off_sql, params, run_mode)
        self.run("SET sfcache.cache = on")
        return on1, on2, off


def compare(e, on1, on2, off):
    """None if the outcomes agree (as far as they may be compared), else a reason."""
    if any(o.error in TIMING_STATES for o in (on1, on2, off)):
        return None
    for o in (on1, on2, off):
        if o.error == "XX000":
            return "internal error: %s" % o.message
    ordered = e.get("ordered", False)
    if e.get("volatile"):
        # only whether it failed can be compared
        if bool(on1.error) != bool(off.error) or bool(on2.error) != bool(off.error):
            return "error status differs (volatile statement)"
        return None
    koff = off.key(ordered)
    if on1.key(ordered) != koff:
        return "first cache-on run differs from cache-off"
    if on2.key(ordered) != koff:
        return "second cache-on run differs from cache-off"
    return None

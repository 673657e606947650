#!/usr/bin/python3
# regress/oracle/oracle.py: a differential oracle for sfcache's result cache,
# in the spirit of SQLancer. From a seed it builds a random schema
# (schema.py), then interleaves random statements on several connections
# (workload.py), deterministically, one statement at a time. Every SELECT is
# run twice with sfcache.cache = on and once with it off in the same session
# state (session.py); the outcomes (rows as multisets unless ordered, or the
# error's SQLSTATE) must agree, and no statement may fail with an internal
# error. On a failure it prints the seed, the statement, the outcomes and the
# statement log reduced by delta debugging (reduce.py), and exits 1.
# Usage: oracle.py --seed N [--statements N | --minutes M] [--bindir DIR]
#
# Reading a log: "cN:" is the connection (0..2, all log in as the bootstrap
# superuser and SET ROLE); "/* check, MODE */ SQL" is one oracle check: SQL
# run twice with sfcache.cache = on and once after SET sfcache.cache = off
# (with a leading /* sfcache:off */ comment), each run inside a savepoint
# when in a transaction. MODE is the protocol: simple (literal constants),
# extended (unnamed statement, parameters), binary (extended, binary
# results), prepared (protocol-level named statement), sqlprep (EXECUTE of
# the PREPAREd statements NAME and NAME_off logged just before).
import argparse
import os
import random
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import reduce  # noqa: E402
import schema  # noqa: E402
import session  # noqa: E402
from server import Server  # noqa: E402
from workload import E, Workload  # noqa: E402

NCONN = 3
START_ROLES = ["ora_a", "ora_b", "ora_c", "ora_owner"]


def fmt_entry(e):
    head = "c%d" % e["c"]
    if e["kind"] == "check":
        s = "%s: /* check, %s%s */ %s" % (head, e["mode"], ", ordered" if e.get("ordered") else "", e["sql"])
        if e.get("params"):
            s += "   -- params %r" % (e["params"],)
        if e.get("prepared_as"):
            s += "   -- PREPAREd as: %s" % e["prepared_as"]
        return s
    s = "%s: %s" % (head, e["sql"])
    if e.get("copy"):
        s += "\n" + e["copy"] + "\\."
    return s


class Run:
    """One replay or generation of a log against a fresh database."""

    def __init__(self, server, schema_sql, nconn, template=None):
        if template:
            server.clone_database(template, schema.RESET_ROLES)
        else:
            server.fresh_database(schema.ROLES)
            with server.connect() as c:
                for s in schema_sql:
                    c.execute(s)
        self.conns = [session.Conn(server, i) for i in range(nconn)]

    def close(self):
        for c in self.conns:
            c.close()

    def execute(self, e):
        """Run one entry; return (reason, outcomes) with reason None if fine."""
        conn = self.conns[e["c"]]
        if e["kind"] == "exec":
            out = conn.run(e["sql"], e.get("params"), "simple" if not e.get("params") else "extended",
                           copy_data=e.get("copy"))
            if out.error == "XX000":
                return "internal error: %s" % out.message, (out,)
            return None, (out,)
        on1, on2, off = conn.check(e)
        return session.compare(e, on1, on2, off), (on1, on2, off)


def failure_class(reason):
    return reason.split(":")[0] if reason.startswith("internal") else "mismatch"


def stats(server):
    with server.connect() as c:
        row = c.execute("SELECT hits, stores, window_hits FROM sfcache.stats").fetchone()
        return int(row[0]), int(row[1]), int(row[2])


def generate(args, server, seed):
    rng = random.Random(seed)
    avoid = set(filter(None, args.avoid.split(",")))
    schema_sql, model = schema.build(rng)
    if args.plant:
        # self-test: declare STABLE functions that read a table immutable, so
        # the cache keeps results that go stale; the oracle must catch that
        schema_sql = schema_sql + ["ALTER DATABASE oracle SET sfcache.immutable_functions = 's.f_stable, s.sf_stable'"]
    if "deferred" in avoid:
        schema_sql = [x for x in schema_sql if "t1_deferred" not in x]
    run = Run(server, schema_sql, args.connections)
    wl = Workload(rng, model)
    for a in avoid:
        wl.settings.pop(a, None)
    wl.plant = args.plant
    log = []
    checks = []
    hits0, stores0, windows0 = stats(server)
    deadline = time.monotonic() + args.minutes * 60 if args.minutes else None
    nchecks = 0
    txn_age = [0] * args.connections
    for i in range(args.connections):
        e = E(i, "exec", "SET ROLE %s" % START_ROLES[i % len(START_ROLES)])
        log.append(e)
        run.execute(e)
    c = 0
    count = 0
    failure = None
    failures = args.failures
    gids = []       # two-phase transactions to finish
    ngid = 0
    slow = args.slow = []
    while True:
        if args.statements and count >= args.statements:
            break
        if deadline and time.monotonic() > deadline:
            break
        if rng.random() < 0.4:
            c = rng.randrange(args.connections)
        conn = run.conns[c]
        if gids and not conn.in_txn() and rng.random() < 0.3:
            entries = [E(c, "exec", "%s PREPARED '%s'" % (rng.choice(["COMMIT", "COMMIT", "ROLLBACK"]), gids.pop(0)))]
        elif conn.aborted():
            entries = [E(c, "exec", "ROLLBACK")]
        elif conn.in_txn() and txn_age[c] > 8:
            entries = [E(c, "exec", rng.choice(["COMMIT", "COMMIT", "ROLLBACK"]))]
        else:
            op = rng.choices(["check", "recheck", "write", "ddl", "grant", "setting", "role", "txn"],
                             [35, 20, 18, 5, 4, 7, 4, 7])[0]
            if op == "check":
                entries = wl.select(c) or []
            elif op == "recheck":
                entries = wl.recheck(c, checks)
            elif op == "txn":
                if conn.in_txn():
                    entries = [E(c, "exec", rng.choice(["COMMIT", "COMMIT", "ROLLBACK", "SAVEPOINT u",
                                                        "ROLLBACK TO SAVEPOINT u", "RELEASE SAVEPOINT u",
                                                        "PREPARE TRANSACTION"]))]
                    if entries[0]["sql"] == "PREPARE TRANSACTION":
                        ngid += 1
                        gids.append("g%d" % ngid)
                        entries[0]["sql"] += " '%s'" % gids[-1]
                else:
                    entries = [E(c, "exec", rng.choice(["BEGIN"] * 5 + ["BEGIN ISOLATION LEVEL REPEATABLE READ"]))]
            else:
                entries = getattr(wl, op)(c)
            if op in ("write", "ddl", "grant", "setting", "role", "txn") and entries and rng.random() < 0.6:
                # a state change, then statements checked before it: what an
                # invalidation or key bug gets wrong
                for _ in range(rng.randint(1, 3)):
                    entries = entries + wl.recheck(rng.choice([c, c, rng.randrange(args.connections)]), checks)
        for e in entries:
            log.append(e)
            count += 1
            txn_age[e["c"]] = txn_age[e["c"]] + 1 if run.conns[e["c"]].in_txn() else 0
            t_e = time.monotonic()
            reason, outs = run.execute(e)
            slow.append((time.monotonic() - t_e, fmt_entry(e), [o.error for o in outs]))
            if e["kind"] == "check":
                nchecks += 1
                checks.append(e)
            if reason:
                if args.keep_going:
                    failures.append((reason, e, outs, len(log)))
                    continue
                failure = (reason, e, outs)
                break
            if e["kind"] == "exec" and run.conns[e["c"]].aborted() is False and not run.conns[e["c"]].in_txn():
                txn_age[e["c"]] = 0
        if failure:
            break
    for g in gids:      # none may outlive the run
        log.append(E(0, "exec", "ROLLBACK PREPARED '%s'" % g))
        run.execute(log[-1])
    run.close()
    hits1, stores1, windows1 = stats(server)
    args.window_hits = windows1 - windows0
    return schema_sql, log, failure, nchecks, hits1 - hits0, stores1 - stores0


def make_template(server, schema_sql):
    """The schema once, in a template database that replays copy."""
    Run(server, schema_sql, 0).close()
    with server.connect("postgres") as c:
        c.execute("DROP DATABASE IF EXISTS oracle_tpl WITH (FORCE)")
        c.execute("ALTER DATABASE oracle RENAME TO oracle_tpl")
    return "oracle_tpl"


def replay_fails(server, schema_sql, entries, nconn, klass, template):
    run = Run(server, schema_sql, nconn, template)
    try:
        for e in entries[:-1]:
            run.execute(e)
        reason, _ = run.execute(entries[-1])
        return bool(reason) and failure_class(reason) == klass
    finally:
        run.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--statements", type=int, default=0)
    ap.add_argument("--minutes", type=float, default=0)
    ap.add_argument("--connections", type=int, default=NCONN)
    ap.add_argument("--bindir", help="PostgreSQL bindir (default: from $PG_CONFIG)")
    ap.add_argument("--reduce-seconds", type=float, default=120)
    ap.add_argument("--log-dir", default=".", help="where the full and reduced logs go on failure")
    ap.add_argument("--keep", action="store_true", help="keep the cluster's directory")
    ap.add_argument("--verbose", action="store_true")
    ap.add_argument("--avoid", default="",
                    help="exploration only: comma-separated known classes to leave out "
                         "(row_security: the setting; deferred: the deferred trigger)")
    ap.add_argument("--plant", action="store_true",
                    help="self-test: plant a wrong result (sfcache.immutable_functions on a "
                         "function that reads a table); the run must then fail")
    ap.add_argument("--keep-going", action="store_true",
                    help="explore: record every failure and go on (no reduction)")
    args = ap.parse_args()
    if not args.statements and not args.minutes:
        args.statements = 2000
    bindir = args.bindir or subprocess.check_output(
        [os.environ.get("PG_CONFIG", "pg_config"), "--bindir"], text=True).strip()
    # SIGTERM (a CI timeout) must still stop the throwaway cluster
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    server = Server(bindir, port=50000 + args.seed % 10000)
    server.start()
    t0 = time.monotonic()
    status = 0
    args.failures = []
    try:
        schema_sql, log, failure, nchecks, hits, stores = generate(args, server, args.seed)
        took = time.monotonic() - t0
        print("seed %d: %d statements, %d checks, %.0fs; cache hits %d (%d by a validity window), stores %d"
              % (args.seed, len(log), nchecks, took, hits, args.window_hits, stores))
        if args.verbose:
            tot = sum(x[0] for x in args.slow)
            import collections
            tally = collections.Counter((x[1].split(":")[1].split()[0] + (" check" if "check" in x[1][:20] else ""), x[2][-1]) for x in args.slow)
            print("statements by (first word, error of the last run):")
            for k, v in tally.most_common(40):
                print("  %5d %s" % (v, k))
            print("time in statements %.1fs; slowest:" % tot)
            for x in sorted(args.slow, key=lambda x: -x[0])[:15]:
                print("  %.2fs %s %s" % (x[0], x[1][:150], x[2]))
        if args.failures:
            os.makedirs(args.log_dir, exist_ok=True)
            with open(os.path.join(args.log_dir, "oracle-seed%d-full.log" % args.seed), "w") as f:
                f.write("\n".join("%d %s" % (i + 1, fmt_entry(x)) for i, x in enumerate(log)) + "\n")
        for reason, e, outs, pos in args.failures:
            status = 1
            print("FAILURE at statement %d: %s\n  %s" % (pos, reason, fmt_entry(e)))
            for o in outs:
                print("    " + o.show(4).replace("\n", "\n    "))
        if failure:
            status = 1
            reason, e, outs = failure
            print("MISMATCH (seed %d): %s" % (args.seed, reason))
            print("statement: " + fmt_entry(e))
            names = ["cache on, 1st run", "cache on, 2nd run", "cache off"] if len(outs) == 3 else ["outcome"]
            for n, o in zip(names, outs):
                print("--- %s:\n%s" % (n, o.show()))
            os.makedirs(args.log_dir, exist_ok=True)
            full = os.path.join(args.log_dir, "oracle-seed%d-full.log" % args.seed)
            with open(full, "w") as f:
                f.write("-- schema\n" + ";\n".join(schema_sql) + ";\n-- statements\n")
                f.write("\n".join(fmt_entry(x) for x in log) + "\n")
            print("full log (%d statements): %s" % (len(log), full))
            klass = failure_class(reason)
            if args.reduce_seconds > 0:
                print("reducing (up to %.0fs)..." % args.reduce_seconds)
                tpl = make_template(server, schema_sql)
                small, complete = reduce.ddmin(
                    log, lambda ents: replay_fails(server, schema_sql, ents, args.connections, klass, tpl),
                    args.reduce_seconds)
                print("reduced log (%d statements%s; schema as in %s):"
                      % (len(small), "" if complete else ", time budget ran out", full))
                print("\n".join(fmt_entry(x) for x in small))
                with open(os.path.join(args.log_dir, "oracle-seed%d-reduced.log" % args.seed), "w") as f:
                    f.write("\n".join(fmt_entry(x) for x in small) + "\n")
        elif hits == 0:
            print("FAIL (seed %d): the cache served no hit; the oracle did not exercise it" % args.seed)
            status = 1
        else:
            print("ok (seed %d)" % args.seed)
    finally:
        server.stop(keep=args.keep)
    return status


if __name__ == "__main__":
    sys.exit(main())

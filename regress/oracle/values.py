#!/usr/bin/python3
# regress/oracle/values.py: a differential oracle for invalidation by key
# values. Tables tracked on k (plain, partitioned, with a second tracked
# column) are read with k = v, IN lists, = ANY, joins through k and views,
# from several sessions, while writes move rows between values through every
# path (UPDATE of k, DELETE, INSERT, multi-row INSERT, COPY, ON CONFLICT,
# MERGE, a function, a row moved between partitions, a transaction of
# several writes, a rolled-back one). Every read runs with the cache and
# again with a /* sfcache:off */ comment in the same session; the rows must
# agree. Uses server.py's throwaway cluster (sfcache preloaded, admission
# off). Exits 1 on the first disagreement, printing the recent statements.
# Usage: values.py --seed N [--seconds S]
import argparse
import collections
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from server import Server  # noqa: E402

SCHEMA = """
CREATE TABLE t (id int PRIMARY KEY, k int, g int);
CREATE TABLE p (id int, k int, part int) PARTITION BY LIST (part);
CREATE TABLE p0 PARTITION OF p FOR VALUES IN (0);
CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1);
CREATE TABLE u (id int PRIMARY KEY, name text);
CREATE VIEW tv AS SELECT id, k, g FROM t WHERE g >= 0;
CREATE FUNCTION move(int, int) RETURNS void LANGUAGE sql AS 'UPDATE t SET k = $2 WHERE k = $1';
INSERT INTO t SELECT g, g % 10, g % 3 FROM generate_series(1, 60) g;
INSERT INTO p SELECT g, g % 10, g % 2 FROM generate_series(1, 40) g;
INSERT INTO u SELECT g, 'u' || g FROM generate_series(0, 9) g;
SELECT sfcache.track('t', 'k', 'g');
SELECT sfcache.track('p', 'k');
SELECT sfcache.track('u', 'id');
"""


def reads(r):
    v, w = r.randint(0, 9), r.randint(0, 9)
    return r.choice([
        "SELECT id FROM t WHERE k = %d ORDER BY id" % v,
        "SELECT count(*), sum(id) FROM t WHERE k IN (%d, %d)" % (v, w),
        "SELECT count(*) FROM t WHERE k = ANY ('{%d,%d}'::int[])" % (v, w),
        "SELECT count(*) FROM t WHERE g = %d" % (v % 3),
        "SELECT count(*) FROM t WHERE k = %d AND g = %d" % (v, w % 3),
        "SELECT id, part FROM p WHERE k = %d ORDER BY id" % v,
        "SELECT count(*) FROM p0 WHERE k = %d" % v,
        "SELECT u.name, count(t.id) FROM u JOIN t ON t.k = u.id WHERE u.id = %d GROUP BY u.name" % v,
        "SELECT count(*) FROM u LEFT JOIN t ON t.k = u.id AND t.k = %d" % v,
        "SELECT count(*) FROM tv WHERE k = %d" % v,
        "SELECT count(*) FROM t WHERE k = %d AND EXISTS (SELECT FROM p WHERE p.k = %d)" % (v, w),
        "SELECT count(*) FROM (SELECT * FROM t WHERE g = 1) s WHERE s.k = %d" % v,
    ])


def writes(r, nid):
    v1, v2 = r.randint(0, 9), r.randint(0, 9)
    return r.choice([
        ["UPDATE t SET k = %d WHERE k = %d" % (v2, v1)],
        ["UPDATE t SET k = %d WHERE id = (SELECT min(id) FROM t WHERE k = %d)" % (v2, v1)],
        ["UPDATE t SET g = (g + 1) %% 3 WHERE k = %d" % v1],
        ["DELETE FROM t WHERE id = (SELECT max(id) FROM t WHERE k = %d)" % v1],
        ["INSERT INTO t VALUES (%d, %d, %d)" % (nid, v2, v1 % 3)],
        ["INSERT INTO t VALUES (%d, %d, 0), (%d, %d, 1)" % (nid, v1, nid + 1, v2)],
        ["INSERT INTO t VALUES (%d, %d, 2) ON CONFLICT (id) DO UPDATE SET k = excluded.k" % (r.randint(1, 60), v2)],
        ["MERGE INTO t USING (VALUES (%d, %d)) m(id, k) ON t.id = m.id "
         "WHEN MATCHED THEN UPDATE SET k = m.k WHEN NOT MATCHED THEN INSERT VALUES (m.id, m.k, 0)" % (r.randint(1, 80), v2)],
        ["SELECT move(%d, %d)" % (v1, v2)],
        ["UPDATE p SET part = 1 - part, k = %d WHERE id = (SELECT min(id) FROM p WHERE k = %d)" % (v2, v1)],
        ["INSERT INTO p VALUES (%d, %d, %d)" % (nid, v2, r.randint(0, 1))],
        ["UPDATE u SET name = name || 'x' WHERE id = %d" % v1],
        ["BEGIN", "UPDATE t SET k = %d WHERE k = %d" % (v2, v1), "INSERT INTO p VALUES (%d, %d, 0)" % (nid, v1), "COMMIT"],
        ["BEGIN", "UPDATE t SET k = %d WHERE k = %d" % (v2, v1), "ROLLBACK"],
        ["COPY t FROM STDIN"],
    ])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--bindir")
    args = ap.parse_args()
    r = random.Random(args.seed)
    bindir = args.bindir or subprocess.check_output(
        [os.environ.get("PG_CONFIG", "pg_config"), "--bindir"], text=True).strip()
    server = Server(bindir, port=40000 + args.seed % 10000)
    recent = collections.deque(maxlen=30)
    checks = hits = 0
    try:
        server.start()
        server.fresh_database([])
        conns = [server.connect("oracle") for _ in range(3)]
        conns[0].execute(SCHEMA)
        for c in conns:
            c.execute("SET sfcache.cache = on")
        nid = 1000
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            i = r.randrange(len(conns))
            c = conns[i]
            if r.random() < 0.65:
                q = reads(r)
                got = c.execute(q).fetchall()
                want = c.execute("/* sfcache:off */ " + q).fetchall()
                recent.append("c%d: %s -> %r" % (i, q, got))
                checks += 1
                if sorted(map(repr, got)) != sorted(map(repr, want)):
                    print("seed %d: MISMATCH on c%d: %s\n  cached: %r\n  fresh:  %r" % (args.seed, i, q, got, want))
                    print("recent statements:\n  " + "\n  ".join(recent))
                    return 1
            else:
                for s in writes(r, nid):
                    recent.append("c%d: %s" % (i, s))
                    if s.startswith("COPY"):
                        with c.cursor().copy(s) as cp:
                            cp.write("%d\t%d\t%d\n" % (nid + 2, r.randint(0, 9), r.randint(0, 2)))
                    else:
                        c.execute(s)
                nid += 3
        hits = conns[0].execute("SELECT hits FROM sfcache.stats").fetchone()[0]
        print("seed %d: %d checks, %d cache hits, no mismatch" % (args.seed, checks, hits))
        return 0
    finally:
        server.stop()


if __name__ == "__main__":
    sys.exit(main())

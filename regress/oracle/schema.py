# regress/oracle/schema.py: the random schema of one oracle run, built from
# the seed: roles, types (enum, domains), tables with jsonb/array/float/bytea/
# date/interval columns, range/list multi-level partitioning, inheritance
# (also multiple), views (security_barrier, security_invoker), a materialized
# view, row security with per-role policies, functions and aggregates of
# every volatility, triggers (also a deferred constraint trigger), grants,
# and values whose text comes from the catalogs (regs: reg* and aclitem
# columns over objects the DDL mix renames, attaches and detaches).
# build() returns the SQL to run (as the bootstrap superuser) and the Model
# the workload generator draws statements from.

ROLES = ["ora_owner", "ora_a", "ora_b", "ora_c", "ora_grp"]
READERS = ["ora_a", "ora_b", "ora_c", "ora_grp"]
# role memberships are cluster-wide: a replay from a template restores them
RESET_ROLES = ["REVOKE ora_grp FROM ora_a, ora_b, ora_owner", "GRANT ora_grp TO ora_c"]

# The validity windows' table: WIN_ROWS rows WIN_SPACING_US apart (plus
# g % 7 microseconds), over the same 90 minutes whatever their number.
WIN_ROWS = 3000
WIN_SPACING_US = 5400 * 1000000 // WIN_ROWS

# type name -> literal generator (rng -> SQL literal)
def _lit_int(r): return str(r.randint(-3, 12))
def _lit_float(r): return "%r::float8" % r.choice([0.1, 1 / 3, 2.5, -0.3, 1e20, 1e-7, 123.456789, 7.0])
def _lit_text(r): return "'%s'" % r.choice(["a", "b", "Foo", "select", "x y", "", "zz"])
def _lit_bytea(r): return r.choice(["'\\x0102ff'::bytea", "'abc'::bytea", "'\\x'::bytea", "'q\\\\z'::bytea"])
def _lit_date(r): return "'%s'::date" % r.choice(["2020-01-02", "1999-12-31", "2024-02-29", "2001-07-04"])
def _lit_interval(r): return "'%s'::interval" % r.choice(["1 day 02:03:04", "-1 mon", "3 years 4 mons", "00:00:01.5", "-2 days +03:00"])
def _lit_ts(r): return "'%s'::timestamp" % r.choice(["2021-03-04 05:06:07.5", "2000-01-01 00:00", "2022-12-31 23:59:59"])
def _lit_tstz(r): return "'%s'::timestamptz" % r.choice(["2021-03-04 05:06:07+00", "2000-01-01 12:00+05:30", "2022-06-30 23:59:59-04"])
def _lit_jsonb(r): return "'%s'::jsonb" % r.choice(['{"a": 1, "b": [1, 2]}', '{"a": 2}', '{"b": "x"}', '[1, 2.50, 3]', '{}', 'null'])
def _lit_arr(r): return "'%s'::int[]" % r.choice(["{1,2,3}", "{}", "{4,NULL}", "{2}", "{3,1}"])
def _lit_mood(r): return "'%s'::mood" % r.choice(["sad", "ok", "happy"])
def _lit_dpos(r): return "%d::d_pos" % r.randint(1, 9)
def _lit_bool(r): return r.choice(["true", "false"])
def _lit_numeric(r): return "%.2f" % (r.randint(-1, 41) * 0.25 + r.choice([0, 0.01, -0.01]))

TYPES = {
    "int": _lit_int, "float8": _lit_float, "text": _lit_text, "bytea": _lit_bytea,
    "date": _lit_date, "interval": _lit_interval, "timestamp": _lit_ts,
    "timestamptz": _lit_tstz, "jsonb": _lit_jsonb, "int[]": _lit_arr,
    "mood": _lit_mood, "d_pos": _lit_dpos, "bool": _lit_bool,
    "numeric": _lit_numeric,
}
# numeric is only win's (validity windows), not a random extra column
EXTRA_TYPES = [t for t in TYPES if t not in ("int", "numeric")]

# Types whose text comes from the catalogs (only in the regs table, so the
# other tables' random columns stay as they were): names the DDL mix
# renames (schema s2, table named_t, type named_ty; t1 and t2 swap names)
# and partitions it attaches and detaches.
REG_TYPES = {
    "regnamespace": lambda r: "'%s'::regnamespace" % r.choice(["s", "s2", "public"]),
    "regclass": lambda r: "'%s'::regclass" % r.choice(["s.t1", "s.t2", "s.named_t", "s.p0_c", "s.p0_spare",
                                                       "s.p0_b1", "s.p0_b2y", "s2.t0"]),
    "regtype": lambda r: "'%s'::regtype" % r.choice(["s.named_ty", "s.mood", "int", "s.d_pos"]),
    "regrole": lambda r: "'%s'::regrole" % r.choice(["ora_a", "ora_owner", "ora_grp"]),
    "aclitem": lambda r: "'%s'::aclitem" % r.choice(["ora_a=r/ora_owner", "ora_b=arw/ora_owner", "=r/ora_owner"]),
}
TYPES.update(REG_TYPES)


def literal(rng, typ):
    if rng.random() < 0.06:
        return "NULL"
    return TYPES[typ](rng)


class Rel:
    """A relation queries can read: name and columns {name: type}."""

    def __init__(self, name, cols, kind, writable=True, pk=False, parent=None):
        self.name, self.cols, self.kind = name, dict(cols), kind
        self.writable, self.pk, self.parent = writable, pk, parent


class Model:
    def __init__(self):
        self.rels = {}          # name -> Rel
        self.children = {}      # inheritance parent -> list of child names (model only)
        self.next_id = 1000

    def add(self, rel):
        self.rels[rel.name] = rel
        return rel


def _row(rng, model, rel, cols):
    model.next_id += 1
    vals = []
    for c in cols:
        t = rel.cols[c]
        if c == "id":
            vals.append(str(model.next_id))
        elif c == "k":
            vals.append(str(rng.randint(0, 9)))
        elif c == "owner":
            vals.append("'%s'" % rng.choice(READERS + ["ora_owner"]))
        else:
            vals.append(literal(rng, t))
    return "(" + ", ".join(vals) + ")"


def insert_rows(rng, model, rel, n, cols=None):
    cols = cols or list(rel.cols)
    rows = ", ".join(_row(rng, model, rel, cols) for _ in range(n))
    return "INSERT INTO %s (%s) VALUES %s" % (rel.name, ", ".join(cols), rows)


def _cols(rng, n):
    picks = rng.sample(EXTRA_TYPES, n)
    return [("c_%s" % t.replace("[]", "arr"), t) for t in picks]


def _coldefs(cols):
    return ", ".join("%s %s" % (n, t) for n, t in cols)


def build(rng):
    """Return (statements, model). Statements run as the bootstrap superuser."""
    m = Model()
    sql = []
    S = sql.append
    for r in ROLES:
        S("CREATE ROLE %s" % r)
    S("GRANT ora_grp TO ora_c")
    S("CREATE SCHEMA s AUTHORIZATION ora_owner")
    S("CREATE SCHEMA s2 AUTHORIZATION ora_owner")
    S("GRANT USAGE ON SCHEMA s, s2 TO PUBLIC")
    S("SET ROLE ora_owner")
    S("SET search_path = s, public")
    S("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    S("CREATE DOMAIN d_pos AS int CHECK (VALUE > 0)")
    S("CREATE DOMAIN d_short AS text CHECK (length(VALUE) < %d)" % rng.randint(3, 8))

    # functions of every volatility; IMMUTABLE ones truly are
    S("CREATE FUNCTION f_imm(int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT $1 * %d + 1 $$" % rng.randint(2, 5))
    S("CREATE FUNCTION f_imm_pl(x int) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN 'v' || (x * %d); END $$" % rng.randint(2, 5))
    S("CREATE TABLE factors (k int PRIMARY KEY, f int)")
    S("INSERT INTO factors SELECT g, g %% 3 + %d FROM generate_series(0, 9) g" % rng.randint(1, 3))
    S("CREATE FUNCTION f_stable(int) RETURNS int LANGUAGE sql STABLE AS $$ SELECT coalesce((SELECT f FROM s.factors WHERE k = $1), -1) $$")
    S("CREATE FUNCTION f_vol_read(x int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN RETURN coalesce((SELECT f FROM s.factors WHERE k = x), -2) + 100; END $$")
    # aggregates: the aggregate is recorded immutable, its state functions are not
    S("CREATE FUNCTION sf_imm(int, int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT coalesce($1, 0) + coalesce($2, 0) * 2 $$")
    S("CREATE FUNCTION sf_vol(st int, x int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN RETURN coalesce(st, 0) + coalesce((SELECT f FROM s.factors WHERE k = x), 0); END $$")
    S("CREATE FUNCTION sf_stable(int, int) RETURNS int LANGUAGE sql STABLE AS $$ SELECT coalesce($1, 0) + coalesce((SELECT f FROM s.factors WHERE k = $2), 7) $$")
    S("CREATE AGGREGATE agg_imm(int) (sfunc = sf_imm, stype = int, initcond = '0')")
    S("CREATE AGGREGATE agg_vol(int) (sfunc = sf_vol, stype = int, initcond = '0')")
    S("CREATE AGGREGATE agg_stable(int) (sfunc = sf_stable, stype = int, initcond = '0')")
    # a domain whose CHECK reads a table (through a STABLE function)
    S("CREATE FUNCTION ok_k(int) RETURNS bool LANGUAGE sql STABLE AS $$ SELECT $1 NOT IN (SELECT f FROM s.factors WHERE k > 7) $$")
    S("CREATE DOMAIN d_k AS int CHECK (ok_k(VALUE))")
    # a function some roles may not execute
    S("CREATE FUNCTION f_secret(int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT $1 + 1000 $$")
    S("REVOKE EXECUTE ON FUNCTION f_secret(int) FROM PUBLIC")
    S("GRANT EXECUTE ON FUNCTION f_secret(int) TO %s" % ", ".join(rng.sample(READERS, 2)))

    # plain tables
    for i in range(3):
        cols = [("id", "int"), ("k", "int")] + _cols(rng, rng.randint(2, 4))
        pk = i != 2
        S("CREATE TABLE t%d (id int%s, k int, %s)" % (i, " PRIMARY KEY" if pk else "", _coldefs(cols[2:])))
        rel = m.add(Rel("t%d" % i, cols, "table", pk=pk))
        S(insert_rows(rng, m, rel, rng.randint(5, 15)))
    # the shadowing table for search_path games
    S("CREATE TABLE s2.t0 (id int, k int, c_text text)")
    S("INSERT INTO s2.t0 VALUES (1, 1, 'shadow'), (2, 2, 'shadow2')")
    S("CREATE TABLE audit (id int, k int, what text)")
    m.add(Rel("audit", [("id", "int"), ("k", "int"), ("what", "text")], "table"))
    S("CREATE TABLE cnt (id int PRIMARY KEY, k int)")
    S("INSERT INTO cnt VALUES (1, 0)")
    m.add(Rel("cnt", [("id", "int"), ("k", "int")], "table", pk=True))
    m.add(Rel("factors", [("k", "int"), ("id", "int"), ("f", "int")], "table"))  # id: see below
    S("ALTER TABLE factors ADD COLUMN id int DEFAULT 0")

    # writes from functions and triggers
    S("CREATE FUNCTION f_write(x int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN "
      "INSERT INTO s.audit VALUES (x, mod(x, 10), 'f_write'); UPDATE s.cnt SET k = k + 1; RETURN x; END $$")
    S("CREATE FUNCTION trg_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
      "INSERT INTO s.audit VALUES (NEW.id, NEW.k, TG_OP || ' ' || TG_TABLE_NAME); RETURN NEW; END $$")
    S("CREATE TRIGGER t0_audit AFTER INSERT OR UPDATE ON t0 FOR EACH ROW EXECUTE FUNCTION trg_audit()")
    S("CREATE FUNCTION trg_deferred() RETURNS trigger LANGUAGE plpgsql AS $$ DECLARE n int; BEGIN "
      "SELECT count(*) INTO n FROM s.t1 WHERE k = NEW.k; "
      "UPDATE s.cnt SET k = k + 1 WHERE id = 1; "
      "INSERT INTO s.audit VALUES (NEW.id, n, 'deferred'); RETURN NULL; END $$")
    S("CREATE CONSTRAINT TRIGGER t1_deferred AFTER INSERT OR UPDATE ON t1 "
      "DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION trg_deferred()")

    # partitioned: range on k, one partition list-partitioned again, then range
    pcols = [("id", "int"), ("k", "int"), ("c_text", "text")] + _cols(rng, 2)
    pcols = list(dict(pcols).items())
    extra = ", ".join("%s %s" % c for c in pcols[3:])
    S("CREATE TABLE p0 (id int, k int, c_text text, %s) PARTITION BY RANGE (k)" % extra)
    S("CREATE TABLE p0_a PARTITION OF p0 FOR VALUES FROM (MINVALUE) TO (3)")
    S("CREATE TABLE p0_b PARTITION OF p0 FOR VALUES FROM (3) TO (7) PARTITION BY LIST (c_text)")
    S("CREATE TABLE p0_b1 PARTITION OF p0_b FOR VALUES IN ('a', 'b', 'Foo')")
    S("CREATE TABLE p0_b2 PARTITION OF p0_b DEFAULT PARTITION BY RANGE (id)")
    S("CREATE TABLE p0_b2x PARTITION OF p0_b2 FOR VALUES FROM (MINVALUE) TO (1050)")
    S("CREATE TABLE p0_b2y PARTITION OF p0_b2 FOR VALUES FROM (1050) TO (MAXVALUE)")
    S("CREATE TABLE p0_c PARTITION OF p0 FOR VALUES FROM (7) TO (10)")
    S("CREATE TABLE p0_spare (LIKE p0)")
    for n in ["p0", "p0_a", "p0_b", "p0_b1", "p0_b2", "p0_c", "p0_spare"]:
        m.add(Rel(n, pcols, "part" if n != "p0_spare" else "table", parent="p0" if n != "p0" else None))
    S(insert_rows(rng, m, m.rels["p0"], rng.randint(10, 25)))
    S("INSERT INTO p0_spare (id, k, c_text) VALUES (1, 10, 'spare'), (2, 11, 'spare'), (3, 12, 'x')")
    # list partitioned on an enum
    S("CREATE TABLE p1 (id int, k int, m mood, c_float8 float8) PARTITION BY LIST (m)")
    S("CREATE TABLE p1_sad PARTITION OF p1 FOR VALUES IN ('sad')")
    S("CREATE TABLE p1_rest PARTITION OF p1 FOR VALUES IN ('ok', 'happy', NULL)")
    p1cols = [("id", "int"), ("k", "int"), ("m", "mood"), ("c_float8", "float8")]
    for n in ["p1", "p1_sad", "p1_rest"]:
        m.add(Rel(n, p1cols, "part"))
    S(insert_rows(rng, m, m.rels["p1"], rng.randint(6, 12)))

    # inheritance, also multiple
    hcols = [("id", "int"), ("k", "int"), ("c_float8", "float8")]
    S("CREATE TABLE h0 (id int, k int, c_float8 float8)")
    S("CREATE TABLE h1 (id int, k int, c_bytea bytea)")
    m.add(Rel("h0", hcols, "inh"))
    m.add(Rel("h1", [("id", "int"), ("k", "int"), ("c_bytea", "bytea")], "inh"))
    S("CREATE TABLE h0_c1 (c_date date) INHERITS (h0)")
    S("CREATE TABLE h0_c2 () INHERITS (h0)")
    S("CREATE TABLE h01_m (c_text text) INHERITS (h0, h1)")
    m.add(Rel("h0_c1", hcols + [("c_date", "date")], "inh"))
    m.add(Rel("h0_c2", hcols, "inh"))
    m.add(Rel("h01_m", hcols + [("c_bytea", "bytea"), ("c_text", "text")], "inh"))
    m.children["h0"] = ["h0_c1", "h0_c2", "h01_m"]
    for n in ["h0", "h1", "h0_c1", "h0_c2", "h01_m"]:
        S(insert_rows(rng, m, m.rels[n], rng.randint(2, 6)))

    # row-level security
    S("CREATE TABLE r0 (id int PRIMARY KEY, k int, owner name, c_text text, c_interval interval)")
    r0 = m.add(Rel("r0", [("id", "int"), ("k", "int"), ("owner", "name"), ("c_text", "text"),
                          ("c_interval", "interval")], "table", pk=True))
    TYPES["name"] = lambda r: "'%s'" % r.choice(READERS)
    S(insert_rows(rng, m, r0, rng.randint(10, 20)))
    S("ALTER TABLE r0 ENABLE ROW LEVEL SECURITY")
    if rng.random() < 0.5:
        S("ALTER TABLE r0 FORCE ROW LEVEL SECURITY")
    S("CREATE POLICY p_own ON r0 TO ora_a, ora_b USING (owner = current_user) WITH CHECK (true)")
    S("CREATE POLICY p_grp ON r0 FOR SELECT TO ora_grp USING (k < %d)" % rng.randint(3, 7))
    S("CREATE POLICY p_all_w ON r0 FOR INSERT TO PUBLIC WITH CHECK (true)")
    if rng.random() < 0.7:
        S("CREATE POLICY p_restr ON r0 AS RESTRICTIVE FOR SELECT TO ora_b USING (mod(id, 2) = 0)")
    S("CREATE POLICY p_owner ON r0 TO ora_owner USING (k <> %d)" % rng.randint(0, 9))
    # a policy that reads another table
    S("CREATE POLICY p_sub ON r0 FOR SELECT TO ora_grp USING (k IN (SELECT k FROM factors WHERE f > %d))" % rng.randint(1, 3))

    # views
    t0 = m.rels["t0"]
    vc = ["id", "k"] + [c for c in t0.cols if c not in ("id", "k")][:2]
    S("CREATE VIEW v0 AS SELECT %s FROM t0 WHERE k < %d" % (", ".join(vc), rng.randint(4, 9)))
    m.add(Rel("v0", [(c, t0.cols[c]) for c in vc], "view"))
    S("CREATE VIEW v_join AS SELECT a.id, a.k, b.id AS bid FROM t0 a JOIN t1 b ON a.k = b.k")
    m.add(Rel("v_join", [("id", "int"), ("k", "int"), ("bid", "int")], "view", writable=False))
    r0c = [("id", "int"), ("k", "int"), ("owner", "name"), ("c_text", "text")]
    S("CREATE VIEW v_r0_inv WITH (security_invoker = true) AS SELECT id, k, owner, c_text FROM r0")
    S("CREATE VIEW v_r0_def AS SELECT id, k, owner, c_text FROM r0")
    S("CREATE VIEW v_r0_sb WITH (security_barrier) AS SELECT id, k, owner, c_text FROM r0 WHERE k < %d" % rng.randint(3, 8))
    for n in ["v_r0_inv", "v_r0_def", "v_r0_sb"]:
        m.add(Rel(n, r0c, "view"))
    S("CREATE VIEW v_p0 AS SELECT id, k, c_text FROM p0 WHERE k >= 2")
    m.add(Rel("v_p0", [("id", "int"), ("k", "int"), ("c_text", "text")], "view"))
    S("CREATE MATERIALIZED VIEW mv0 AS SELECT k, count(*)::int AS id, sum(id)::int AS s FROM t0 GROUP BY k")
    m.add(Rel("mv0", [("k", "int"), ("id", "int"), ("s", "int")], "matview", writable=False))

    # writes through foreign-key actions and rules
    S("CREATE TABLE fk_child (id int, k int, pid int REFERENCES t0 (id) ON DELETE CASCADE ON UPDATE CASCADE)")
    S("INSERT INTO fk_child SELECT id + 5000, k, id FROM t0")
    m.add(Rel("fk_child", [("id", "int"), ("k", "int"), ("pid", "int")], "table"))
    S("CREATE VIEW v_sub AS SELECT id, k FROM t2 WHERE k IN (SELECT k FROM factors WHERE f > 2)")
    m.add(Rel("v_sub", [("id", "int"), ("k", "int")], "view", writable=False))
    S("CREATE VIEW v_rule AS SELECT id, k FROM t2")
    S("CREATE RULE r_ins AS ON INSERT TO v_rule DO INSTEAD INSERT INTO audit VALUES (NEW.id, NEW.k, 'rule')")
    m.add(Rel("v_rule", [("id", "int"), ("k", "int")], "view"))
    # validity windows: moving timestamps (microseconds), numerics, dates,
    # an index on at (bounds by the leader's scan, or by index probes past
    # more than the 1000 rows they may skip), none on n and d (by the
    # leader's scan, or a point)
    S("CREATE TABLE win (id int PRIMARY KEY, k int, at timestamptz, n numeric(8,2), d date)")
    S("CREATE INDEX win_at ON win (at)")
    S("INSERT INTO win SELECT g, g %% 10, CASE WHEN g %% 13 = 0 THEN NULL ELSE "
      "'2026-12-01 00:00+00'::timestamptz + g * interval '%d microseconds' + (g %% 7) * interval '1 microsecond' END, "
      "CASE WHEN g %% 17 = 0 THEN NULL ELSE (g %% 40) * 0.25 END, '2026-11-20'::date + g %% 15 "
      "FROM generate_series(1, %d) g" % (WIN_SPACING_US, WIN_ROWS))
    S("ANALYZE win")
    m.add(Rel("win", [("id", "int"), ("k", "int"), ("at", "timestamptz"), ("n", "numeric"), ("d", "date")],
              "table", pk=True))
    # values whose text comes from the catalogs: reg* and aclitem columns
    # naming objects the DDL mix renames (schema s2, named_t, named_ty, the
    # t1/t2 swap) and partitions it attaches and detaches (pg_partition_root)
    S("CREATE TABLE named_t (id int)")
    S("CREATE TYPE named_ty AS (x int)")
    rcols = [("id", "int"), ("k", "int")] + [(n, n) for n in REG_TYPES]
    S("CREATE TABLE regs (id int PRIMARY KEY, k int, %s)" % _coldefs(rcols[2:]))
    regs = m.add(Rel("regs", rcols, "table", pk=True))
    # every value of every column at least once, then random rows
    vals = {"regnamespace": ["s", "s2", "public"], "regtype": ["s.named_ty", "s.mood", "int", "s.d_pos"],
            "regclass": ["s.t1", "s.t2", "s.named_t", "s.p0_c", "s.p0_spare", "s.p0_b1", "s.p0_b2y", "s2.t0"],
            "regrole": ["ora_a", "ora_owner", "ora_grp"],
            "aclitem": ["ora_a=r/ora_owner", "ora_b=arw/ora_owner", "=r/ora_owner"]}
    S("INSERT INTO regs VALUES " + ", ".join(
        "(%d, %d, %s)" % (i + 1, i % 3, ", ".join("'%s'::%s" % (vals[t][i % len(vals[t])], t) for t in REG_TYPES))
        for i in range(8)))
    S(insert_rows(rng, m, regs, rng.randint(2, 6)))

    # a FETCH from PL/pgSQL, for the portal checks (session.py)
    S("CREATE FUNCTION ora_fetch(c refcursor, n int) RETURNS text LANGUAGE plpgsql AS $$ DECLARE r record; "
      "s text := ''; BEGIN FOR i IN 1..n LOOP FETCH c INTO r; EXIT WHEN NOT FOUND; s := s || r::text || ';'; "
      "END LOOP; RETURN s; END $$")

    # a function of the same name earlier on another search_path
    S("CREATE FUNCTION s2.f_imm(int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT $1 - 1000 $$")
    S("GRANT ALL ON TABLE s2.t0 TO PUBLIC")

    # grants: DML to everyone, SELECT to a random subset, some column grants
    tables = [r.name for r in m.rels.values() if r.kind in ("table", "part", "inh")]
    S("GRANT INSERT, UPDATE, DELETE ON %s TO PUBLIC" % ", ".join(tables + ["v0", "v_p0", "v_r0_inv", "v_r0_def", "v_rule"]))
    S("GRANT SELECT ON audit, cnt, factors TO PUBLIC")
    S("GRANT SELECT ON named_t TO PUBLIC")
    S("GRANT INSERT, UPDATE, DELETE ON factors TO PUBLIC")
    for n, rel in m.rels.items():
        if n in ("audit", "cnt", "factors"):
            continue
        who = [r for r in READERS if rng.random() < 0.7]
        if who:
            S("GRANT SELECT ON %s TO %s" % (n, ", ".join(who)))
        nope = [r for r in READERS if r not in who]
        if nope and rng.random() < 0.5:
            S("GRANT SELECT (id, k) ON %s TO %s" % (n, rng.choice(nope)))
    S("GRANT TRUNCATE ON t0, t2, h0, h0_c2, p0 TO ora_a")

    # invalidation by key values: a random subset of tables tracked on k,
    # some also on another column (plain inheritance members one by one)
    for n, extra in [("t0", "id"), ("t1", None), ("t2", "id"), ("p0", "c_text"), ("p1", "m"),
                     ("h0", None), ("h0_c1", None), ("h01_m", "c_text"), ("r0", "owner"),
                     ("factors", None), ("cnt", None), ("fk_child", "pid"), ("audit", "what"),
                     ("win", "d")]:
        if rng.random() < 0.7:
            cols = ["k"] + ([extra] if extra and rng.random() < 0.5 else [])
            S("SELECT sfcache.track('%s', %s)" % (n, ", ".join("'%s'" % c for c in cols)))
    S("RESET ROLE")
    return sql, m

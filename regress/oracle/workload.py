# regress/oracle/workload.py: random statements over the Model of schema.py,
# drawn from a seeded random.Random: SELECTs to check (all four protocols),
# writes through every path, DDL, GRANT/REVOKE, settings that change computed
# values, roles and transaction control. Each generator returns log entries
# (dicts); the driver in oracle.py runs them and records them in the log.
import datetime

from schema import READERS, TYPES, WIN_ROWS, WIN_SPACING_US, insert_rows, literal

WIN_EPOCH = datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)

# expressions per column type; {c} is the column. Several compute text whose
# value depends on a setting (extra_float_digits, bytea_output, DateStyle,
# IntervalStyle, quote_all_identifiers, xmlbinary, xmloption, TimeZone).
EXPRS = {
    "int": ["{c}", "{c}::d_k", "f_imm({c})", "f_imm_pl({c})", "f_stable({c})", "f_vol_read({c})",
            "{c}::d_pos", "f_secret({c})", "({c} * 2)::text", "{c} + 0.5"],
    "float8": ["{c}", "{c}::text", "round({c}::numeric, 3)", "{c} * 3", "array[{c}]::text",
               "to_jsonb({c})::text", "row({c}, 1)::text"],
    "text": ["{c}", "quote_ident({c})", "upper({c})", "length({c})", "{c}::d_short",
             "xmlelement(name x, {c})::text", "{c}::xml::text", "{c} || 'z'"],
    "bytea": ["{c}", "{c}::text", "length({c})", "encode({c}, 'hex')",
              "xmlelement(name b, {c})::text", "array[{c}]::text"],
    "date": ["{c}", "{c}::text", "{c} + 1", "({c} + 1)::text", "array[{c}]::text"],
    "interval": ["{c}", "{c}::text", "justify_hours({c})", "({c} * 2)::text", "array[{c}]::text"],
    "timestamp": ["{c}", "{c}::text", "{c} + '1 day'::interval", "{c}::date::text"],
    "timestamptz": ["{c}", "{c}::text", "{c} AT TIME ZONE 'UTC'", "({c} AT TIME ZONE 'UTC')::text",
                    "date_trunc('day', {c})"],
    "jsonb": ["{c}", "{c}->'a'", "{c}->>'b'", "{c} @> '{{\"a\": 1}}'", "jsonb_typeof({c})", "{c}::text",
              "jsonb_path_query_array({c}, '$.a')", "jsonb_array_elements_text({c})"],
    "int[]": ["{c}", "{c}[1]", "cardinality({c})", "{c}::text", "2 = ANY({c})", "unnest({c})"],
    "mood": ["{c}", "{c}::text", "{c} > 'sad'", "{c}::text::mood"],
    "d_pos": ["{c}", "{c} + 1", "{c}::int::d_pos", "({c} - 1)::d_pos"],
    "bool": ["{c}", "NOT {c}", "{c}::text"],
    "name": ["{c}", "{c} = current_user", "quote_ident({c})"],
    # text from the catalogs, printed by a node (XMLELEMENT, XMLFOREST) or
    # STABLE functions, and IMMUTABLE built-ins that read them
    "regnamespace": ["{c}", "xmlelement(name n, {c})::text", "to_jsonb({c})", "xmlforest({c} AS n)::text",
                     "{c}::text", "array[{c}]"],
    "regclass": ["{c}", "pg_partition_root({c})", "xmlelement(name c, {c})::text", "xmlforest({c})::text",
                 "pg_partition_root({c}) IS NULL", "format('%s', {c})", "xmlelement(name c, array[{c}])::text"],
    "regtype": ["{c}", "xmlelement(name t, {c})::text", "{c}::text", "xmlelement(name t, row({c}, 1))::text"],
    "regrole": ["{c}", "xmlelement(name r, xmlattributes({c} AS who))::text", "concat({c}, '!')"],
    "aclitem": ["{c}", "xmlelement(name a, {c})::text", "{c}::text"],
}
UNORDERABLE = {"xml"}

# The regs shape: expressions whose text comes from the catalogs and that
# the cache may keep (no STABLE function around them).
REG_REVEAL = {
    "regnamespace": ["xmlelement(name n, {c})::text", "xmlforest({c} AS n)::text"],
    "regclass": ["pg_partition_root({c})", "xmlelement(name c, {c})::text", "xmlforest({c})::text",
                 "xmlelement(name c, array[{c}])::text"],
    "regtype": ["xmlelement(name t, {c})::text"],
    "regrole": ["xmlelement(name r, xmlattributes({c} AS who))::text"],
    "aclitem": ["xmlelement(name a, {c})::text"],
}

SETTINGS = {
    "extra_float_digits": ["0", "1", "3", "-2", "-15"],
    "bytea_output": ["hex", "escape"],
    "DateStyle": ["'ISO, MDY'", "'SQL, DMY'", "'German'", "'Postgres, YMD'"],
    "IntervalStyle": ["postgres", "postgres_verbose", "sql_standard", "iso_8601"],
    "TimeZone": ["'UTC'", "'America/New_York'", "'Asia/Kolkata'", "'+05'"],
    "timezone_abbreviations": ["'Default'", "'Australia'", "'India'"],
    "quote_all_identifiers": ["on", "off"],
    "xmlbinary": ["base64", "hex"],
    "xmloption": ["content", "document"],
    "search_path": ["s, public", "s2, s, public", "public, s"],
    "row_security": ["on", "off"],
    "enable_seqscan": ["on", "off"],
    "constraint_exclusion": ["on", "partition"],
    "enable_partition_pruning": ["on", "off"],
    "plan_cache_mode": ["auto", "force_generic_plan", "force_custom_plan"],
}


def E(c, kind, sql, **kw):
    d = {"c": c, "kind": kind, "sql": sql}
    d.update(kw)
    return d


class Workload:
    def __init__(self, rng, model):
        self.r = rng
        self.m = model
        self.nprep = 0
        self.nchild = 0
        self.npart = 0
        self.nconstr = 0
        self.ncol = 0
        self.settings = dict(SETTINGS)
        self.plant = False
        self.nconn = 3
        self.last_regs = {}     # connection -> its last regs check
        self.toggled = {}       # rename_obj: which names are changed now

    # ---- helpers
    def rels(self, readable=True):
        return [r for r in self.m.rels.values() if r.name in self.m.rels]

    def rel(self):
        return self.r.choice(list(self.m.rels.values()))

    def relref(self, rel):
        r = self.r.random()
        if rel.kind == "inh" and r < 0.25:
            return "ONLY " + rel.name
        if r < 0.1:
            return "s." + rel.name
        return rel.name

    def expr(self, rel, alias=None):
        c, t = self.r.choice(list(rel.cols.items()))
        col = "%s.%s" % (alias, c) if alias else c
        if self.plant and "k" in rel.cols and self.r.random() < 0.5:
            # the planted wrong result reads through it
            return "f_stable(%sk)" % (alias + "." if alias else "")
        if rel.kind in ("table", "part", "inh") and self.r.random() < 0.05:
            # system columns: xmax moves with row locks, ctid with VACUUM FULL
            return "%s%s::text" % (alias + "." if alias else "", self.r.choice(["xmin", "xmax", "ctid", "tableoid::regclass"]))
        return self.r.choice(EXPRS.get(t, ["{c}"])).format(c=col)

    def pred(self, rel, params, alias=None):
        """A WHERE predicate; int/text constants may become parameters."""
        cands = [(c, t) for c, t in rel.cols.items() if t in ("int", "text", "name")]
        if "k" in rel.cols and self.r.random() < 0.3:
            # the shape invalidation by key values serves: a tracked column = value
            params.append(str(self.r.randint(0, 9)))
            col = "%s.k" % alias if alias else "k"
            return "%s = {P%d}" % (col, len(params) - 1)
        c, t = self.r.choice(cands)
        col = "%s.%s" % (alias, c) if alias else c
        if t == "int":
            v = str(self.r.randint(-1, 10) if c != "id" else self.r.randint(995, 1100))
            op = self.r.choice(["=", "<", ">=", "<>"])
        else:
            v = self.r.choice(READERS) if t == "name" else self.r.choice(["a", "b", "Foo", "x y", "zz"])
            op = self.r.choice(["=", "<>", ">"])
        if self.r.random() < 0.1:
            return "%s IS NOT NULL" % col
        params.append(v)
        return "%s %s {P%d}" % (col, op, len(params) - 1)

    def where(self, rel, params, alias=None):
        n = self.r.choice([0, 1, 1, 2])
        if n == 0:
            return ""
        ps = [self.pred(rel, params, alias) for _ in range(n)]
        return " WHERE " + self.r.choice([" AND ", " OR "]).join(ps)

    # ---- SELECT (checked)
    def select(self, c):
        params = []
        shape = self.r.choice(["proj"] * 5 + ["agg"] * 2 + ["join", "sub", "union", "cte", "const", "star",
                                                          "window", "distinct", "rollup", "lateral", "exists",
                                                          "recursive", "regs", "regs", "regs"] + ["range"] * 6)
        if shape == "range":
            return self.range_select(c)
        rel = self.rel()
        ordered = False
        volatile = False
        if shape == "regs":
            # text from the catalogs (reg*, aclitem), partition functions
            rel = self.m.rels["regs"]
            regcols = [x for x in rel.cols if x not in ("id", "k")]
            if self.r.random() < 0.3:
                q = "SELECT k, jsonb_object_agg(id, %s)::text FROM regs%s GROUP BY k" % (
                    self.r.choice(regcols), self.where(rel, params))
            else:
                exprs = [self.r.choice(REG_REVEAL[t]).format(c=t) for t in self.r.sample(regcols, 2)]
                q = "SELECT id, %s FROM regs%s" % (", ".join(exprs),
                                                  self.where(rel, params) if self.r.random() < 0.3 else "")
            entries = self._emit(c, q, params, "simple", False, False)
            self.last_regs[c] = entries[-1]
            return entries
        elif shape == "proj":
            exprs = ["id" if "id" in rel.cols else "k"] + [self.expr(rel) for _ in range(self.r.randint(1, 3))]
            if self.r.random() < 0.04:
                exprs.append("clock_timestamp()::text")
                volatile = True
            if self.r.random() < 0.04:
                exprs.append("random() < 2")
            q = "SELECT %s FROM %s%s" % (", ".join(exprs), self.relref(rel), self.where(rel, params))
            if self.r.random() < 0.3 and not any("xml" in x and "::text" not in x for x in exprs):
                q += " ORDER BY %s" % ", ".join(str(i + 1) for i in range(len(exprs)))
                ordered = True
                if self.r.random() < 0.5:
                    params.append(str(self.r.randint(1, 5)))
                    q += " LIMIT {P%d}" % (len(params) - 1)
                    if self.r.random() < 0.3:
                        q += " OFFSET %d" % self.r.randint(0, 3)
        elif shape == "window":
            idc = "id" if "id" in rel.cols else "k"
            q = "SELECT k, %s, count(*) OVER (PARTITION BY k), sum(%s) OVER (ORDER BY %s, k ROWS BETWEEN 1 PRECEDING AND CURRENT ROW) FROM %s%s" % (
                idc, idc, idc, self.relref(rel), self.where(rel, params))
            # rows tied in the window order are equal in every output column,
            # so the frame sums are the same multiset whatever order ties take
        elif shape == "distinct":
            q = "SELECT DISTINCT k, %s FROM %s%s" % (self.expr(rel), self.relref(rel), self.where(rel, params))
        elif shape == "rollup":
            q = "SELECT k, count(*), sum(%s) FROM %s%s GROUP BY ROLLUP (k)" % (
                "id" if "id" in rel.cols else "k", self.relref(rel), self.where(rel, params))
        elif shape == "lateral":
            q = "SELECT k, g FROM %s, LATERAL generate_series(1, least(greatest(k, 0), 5)) g%s" % (
                self.relref(rel), self.where(rel, params))
        elif shape == "exists":
            rel2 = self.rel()
            w = self.where(rel2, params, "b")
            inner = "b.k = a.k" + (" AND (%s)" % w[len(" WHERE "):] if w else "")
            q = "SELECT k, %s FROM %s a WHERE %sEXISTS (SELECT 1 FROM %s b WHERE %s)" % (
                self.expr(rel, "a"), self.relref(rel), self.r.choice(["", "NOT "]), self.relref(rel2), inner)
        elif shape == "recursive":
            q = "WITH RECURSIVE r(n, k) AS (SELECT 1, k FROM %s%s UNION ALL SELECT n + 1, k FROM r WHERE n < 3) SELECT k, n FROM r" % (
                self.relref(rel), self.where(rel, params))
        elif shape == "star":
            # SELECT * and whole-row (named composite) values
            q = "SELECT %s FROM %s x%s" % (self.r.choice(["*", "x", "x, (x).k", "x::text"]), self.relref(rel),
                                           self.where(rel, params, "x"))
        elif shape == "agg":
            aggs = ["count(*)", "sum(id)", "agg_imm(id)", "agg_vol(k)", "agg_stable(k)",
                    "array_agg(id ORDER BY id)", "max(%s)" % self.expr(rel)]
            if rel.name == "regs":
                # IMMUTABLE aggregates whose support functions print the values
                aggs += ["jsonb_object_agg(id, n)::text", "jsonb_object_agg(id, c)::text",
                         "jsonb_object_agg(k, t)::text", "jsonb_object_agg(id, a)::text"]
            aggs = [a for a in aggs if "id" in rel.cols or "(id" not in a]
            sel = self.r.sample(aggs, self.r.randint(1, 3))
            if self.r.random() < 0.6:
                q = "SELECT k, %s FROM %s%s GROUP BY k" % (", ".join(sel), self.relref(rel), self.where(rel, params))
            else:
                q = "SELECT %s FROM %s%s" % (", ".join(sel), self.relref(rel), self.where(rel, params))
            if any(a.startswith("max(") and "xml" in a and "::text" not in a for a in sel):
                return None
        elif shape == "join":
            rel2 = self.rel()
            j = self.r.choice(["JOIN", "LEFT JOIN"])
            a_id = "a.id" if "id" in rel.cols else "a.k"
            q = "SELECT %s, b.k, %s FROM %s a %s %s b ON a.k = b.k%s" % (
                a_id, self.expr(rel, "a"), self.relref(rel), j, self.relref(rel2), self.where(rel, params, "a"))
        elif shape == "sub":
            rel2 = self.rel()
            inner = "SELECT k FROM %s%s" % (self.relref(rel2), self.where(rel2, params))
            q = "SELECT k, %s FROM %s WHERE k %s (%s)" % (self.expr(rel), self.relref(rel),
                                                      self.r.choice(["IN", "NOT IN"]), inner)
        elif shape == "union":
            rel2 = self.rel()
            q = "SELECT k, %s FROM %s%s UNION%s SELECT k, %s FROM %s%s" % (
                "id" if "id" in rel.cols else "k", self.relref(rel), self.where(rel, params),
                self.r.choice(["", " ALL"]), "id" if "id" in rel2.cols else "k", self.relref(rel2),
                self.where(rel2, params))
        elif shape == "cte":
            q = "WITH x AS (SELECT k, %s AS e FROM %s%s) SELECT k, e FROM x WHERE k < %d" % (
                self.expr(rel), self.relref(rel), self.where(rel, params), self.r.randint(2, 9))
        else:
            t = self.r.choice(list(TYPES))
            if t == "name":
                return None
            x = literal(self.r, t)
            e = self.r.choice(EXPRS.get(t, ["{c}"])).format(c="(" + x + ")")
            q = "SELECT %s" % e
        mode = self.r.choice(["simple"] * 4 + ["extended"] * 2 + ["prepared"] * 2 + ["binary", "sqlprep", "multi",
                                                                                 "portal"])
        if mode == "portal":
            # a named portal fetched in batches, something changing between
            # two fetches (session.py, portal.py)
            mode = "portal:" + self.r.choice(["encoding", "encoding", "binary_fetch", "plpgsql_fetch", "rowlimit"])
        if mode == "multi":
            # several statements in one simple-protocol message: a SET LOCAL
            # in the same implicit transaction, then the SELECT
            n = self.r.choice(list(self.settings))
            q = "SET LOCAL %s = %s; %s" % (n, self.r.choice(self.settings[n]), q)
            mode = "simple"
        elif mode == "extended" and params and self.r.random() < 0.3:
            # typed (int8) parameters instead of unknown-typed text
            params = [int(v) if v.lstrip("-").isdigit() else v for v in params]
        return self._emit(c, q, params, mode, ordered, volatile)

    # ---- validity windows: range constants that move (win, schema.py)
    # A dashboard's statements are few; their constants move: "now" is a
    # clock that advances a little (microseconds included) at each use,
    # thresholds are a few values slightly perturbed. Within a window the
    # cache must serve exactly what a real execution returns.
    WIN_TEMPLATES = [
        ("SELECT id, k, at, n FROM win WHERE k IN (3, 7) AND at <= {now} AND at >= {now}"
         " ORDER BY at DESC NULLS LAST, id LIMIT 5", True),
        ("SELECT count(*) FROM win WHERE at > {now}", False),
        ("SELECT k, count(*) FROM win WHERE n >= {num} AND d < {day} GROUP BY k", False),
        ("SELECT w.id, t.id FROM win w JOIN t0 t ON t.k = w.k WHERE w.at BETWEEN {now} AND {later}", False),
        ("SELECT count(*), count(t.id) FROM win w LEFT JOIN t0 t ON t.k = w.k AND w.at < {now} WHERE w.n <= {num}", False),
        ("SELECT count(*), count(w.id) FROM t0 t LEFT JOIN win w ON t.k = w.k AND w.at >= {now} AND w.k < 8", False),
        ("SELECT max(at), min(n) FROM win WHERE {now} > at AND {num} < n", False),
        ("SELECT count(*) FROM win WHERE at <= {now} OR n > {num}", False),
        ("SELECT id, at FROM win WHERE at >= {same} AND at <= {same} ORDER BY id", True),
        ("SELECT id, d FROM win WHERE d BETWEEN {day} AND {day} AND n > {num} ORDER BY id", True),
        # the index on at read backwards, stopped by LIMIT: bounds by index
        # probes, which skip up to 1000 rows failing k = 3 AND n > 9.5
        ("SELECT id, at FROM win WHERE k = 3 AND n > 9.5 AND at <= {now} ORDER BY at DESC LIMIT 2", True),
        ("SELECT id, at FROM win WHERE k = 3 AND n > 9.5 AND at > {now} ORDER BY at LIMIT 2", True),
    ]

    def win_now(self):
        """The moving "now", as Django writes timezone.now(); now and then
        another app server's clock, minutes behind (constants alternating
        between windows)."""
        r = self.r
        if not hasattr(self, "win_clock") or r.random() < 0.02:
            self.win_clock = r.randint(-60, 95 * 60) * 1000000 + r.randint(0, 999999)
            self.win_lag = r.randint(1, 20) * 60 * 1000000
        self.win_clock += r.randint(0, 1000000)
        if r.random() < 0.2:
            # exactly the next row's value (schema.py: g * spacing + g % 7 us):
            # the upper bound of the window of "at <= now" computed just before
            g = self.win_clock // WIN_SPACING_US + 1
            self.win_clock = g * WIN_SPACING_US + g % 7
        clock = self.win_clock - (self.win_lag if r.random() < 0.3 else 0)
        return (WIN_EPOCH + datetime.timedelta(microseconds=clock)).isoformat()

    def win_value(self, kind):
        r = self.r
        if kind == "now":
            return self.win_now()
        if kind == "later":
            return (WIN_EPOCH + datetime.timedelta(microseconds=self.win_clock + r.randint(0, 600000000))).isoformat()
        if kind == "same":
            # exactly a row's value, or a microsecond off
            return (WIN_EPOCH + datetime.timedelta(
                microseconds=r.randint(1, WIN_ROWS) * WIN_SPACING_US + r.randint(-1, 7))).isoformat()
        if kind == "num":
            return "%.3f" % (r.choice([0.25, 2.5, 5.0, 7.75]) + r.choice([0, 0, 0.01, -0.01, 0.005, 0.25]))
        return (datetime.date(2026, 11, 19) + datetime.timedelta(days=r.choice([1, 5, 9, 14]) + r.choice([0, 0, 1]))).isoformat()

    def range_select(self, c):
        """A burst of one windowed statement (page loads), each with fresh constants."""
        r = self.r
        if not hasattr(self, "win_templates"):
            # a dashboard's few statements, executed again and again
            self.win_templates = r.sample(self.WIN_TEMPLATES, 5)
        template, ordered = r.choice(self.win_templates)
        mode = r.choice(["simple"] * 3 + ["prepared"] * 2 + ["extended", "binary", "sqlprep"])
        entries = []
        for _ in range(r.randint(2, 4)):
            params = []
            out = ""
            q = template
            while "{" in q:
                a = q.index("{")
                b = q.index("}", a)
                params.append(self.win_value(q[a + 1:b]))
                out += q[:a] + "{P%d}" % (len(params) - 1)
                q = q[b + 1:]
            entries += self._emit(c, out + q, params, mode, ordered, False)
        return entries

    def win_write(self, c):
        """A write that may move a window's boundary, often next to "now"."""
        r = self.r
        i = r.randint(1, WIN_ROWS + 10)
        near = (WIN_EPOCH + datetime.timedelta(microseconds=getattr(self, "win_clock", 0) + r.randint(-2000000, 5000000))).isoformat()
        return [E(c, "exec", r.choice([
            "UPDATE win SET at = '%s' WHERE id = %d" % (near, i),
            "UPDATE win SET at = at + interval '%d microseconds' WHERE id = %d" % (r.randint(-WIN_SPACING_US, WIN_SPACING_US), i),
            "UPDATE win SET n = %s WHERE id = %d" % (self.win_value("num"), i),
            "UPDATE win SET d = '%s' WHERE id = %d" % (self.win_value("day"), i),
            "INSERT INTO win VALUES (%d, %d, '%s', %s, '%s') ON CONFLICT (id) DO UPDATE SET at = EXCLUDED.at" % (
                i, r.randint(0, 9), near, self.win_value("num"), self.win_value("day")),
            "DELETE FROM win WHERE id = %d" % i]))]

    def _emit(self, c, q, params, mode, ordered, volatile):
        kw = {"ordered": ordered, "volatile": volatile}
        if mode.startswith("portal"):
            sql = q
            for i, v in enumerate(params):
                v = str(v)
                sql = sql.replace("{P%d}" % i, "'%s'" % v if not v.lstrip("-").isdigit() else v)
            return [E(c, "check", sql, mode=mode, **kw)]
        if mode == "simple" or not params:
            if mode == "sqlprep":
                mode = "simple"
            sql = q
            for i, v in enumerate(params):
                v = str(v)
                sql = sql.replace("{P%d}" % i, "'%s'" % v if not v.lstrip("-").isdigit() else v)
            if mode != "simple":
                return [E(c, "check", sql, mode=mode, params=[], **kw)]
            return [E(c, "check", sql, mode="simple", **kw)]
        if mode == "sqlprep":
            self.nprep += 1
            name = "o%d_%d" % (c, self.nprep)
            sql = q
            for i in range(len(params)):
                sql = sql.replace("{P%d}" % i, "$%d" % (i + 1))
            args = ", ".join("'%s'" % v for v in params)
            return [E(c, "exec", "PREPARE %s AS %s" % (name, sql)),
                    E(c, "exec", "PREPARE %s_off AS %s" % (name, sql)),
                    E(c, "check", "%s(%s)" % (name, args), mode="sqlprep", prepared_as=sql, **kw)]
        sql = q
        for i in range(len(params)):
            sql = sql.replace("{P%d}" % i, "%s")
        return [E(c, "check", sql, mode=mode, params=list(params), **kw)]

    def recheck(self, c, checks):
        """Check an earlier statement again (a later hit, or a prepared one
        reused): mostly a recent one of this connection, after a setting,
        role, write or DDL changed what it should return."""
        mine = [x for x in checks[-60:] if x["c"] == c]
        if mine and self.r.random() < 0.7:
            entry = self.r.choice(mine[-10:])
        elif checks:
            entry = self.r.choice(checks[-200:])
        else:
            return []
        e = dict(entry)
        e["c"] = c if e["mode"] != "sqlprep" else e["c"]
        return [e]

    # ---- writes
    def write(self, c):
        r = self.r
        if self.plant and r.random() < 0.3:
            return [E(c, "exec", "UPDATE factors SET f = f + 1 WHERE k = %d" % r.randint(0, 9))]
        if r.random() < 0.04:
            return self.win_write(c)
        rel = r.choice([x for x in self.m.rels.values() if x.writable])
        cols = [x for x in rel.cols]
        kind = r.choice(["insert"] * 3 + ["update"] * 3 + ["delete", "merge", "upsert", "copy",
                                                           "truncate", "func", "cte", "refresh", "lock"])
        if kind == "insert":
            sub = r.sample(cols, r.randint(1, len(cols)))
            if "id" in cols and "id" not in sub:
                sub.insert(0, "id")
            return [E(c, "exec", insert_rows(r, self.m, rel, r.randint(1, 3), sub))]
        if kind == "update":
            col, t = r.choice(list(rel.cols.items()))
            val = "k + 1" if col == "k" and r.random() < 0.5 else literal(r, t) if col != "id" else "id + 100"
            return [E(c, "exec", "UPDATE %s SET %s = %s%s" % (self.relref(rel), col, val,
                                                              self.where_lit(rel)))]
        if kind == "delete":
            return [E(c, "exec", "DELETE FROM %s%s" % (self.relref(rel), self.where_lit(rel) or " WHERE k = %d" % r.randint(0, 9)))]
        if kind == "merge":
            t = r.choice(["t0", "t1", "t2", "cnt", "p0", "r0"])
            rows = ", ".join("(%d, %d)" % (r.randint(995, 1060), r.randint(0, 9)) for _ in range(3))
            return [E(c, "exec", "MERGE INTO %s t USING (VALUES %s) v(id, k) ON t.id = v.id "
                      "WHEN MATCHED AND v.k > 5 THEN DELETE WHEN MATCHED THEN UPDATE SET k = v.k "
                      "WHEN NOT MATCHED THEN INSERT (id, k) VALUES (v.id, v.k)" % (t, rows))]
        if kind == "upsert":
            t = r.choice([x for x in self.m.rels.values() if x.pk])
            return [E(c, "exec", "INSERT INTO %s (id, k) VALUES (%d, %d) ON CONFLICT (id) DO UPDATE "
                      "SET k = EXCLUDED.k + %s.k" % (t.name, r.randint(995, 1030), r.randint(0, 9), t.name))]
        if kind == "copy":
            if "id" not in rel.cols:
                return []
            data = "".join("%d\t%d\n" % (r.randint(1000, 1100), r.randint(0, 9)) for _ in range(r.randint(1, 4)))
            return [E(c, "exec", "COPY %s (id, k) FROM STDIN" % rel.name, copy=data)]
        if kind == "truncate":
            t = r.choice(["t0", "t2", "h0", "h0_c2", "p0", "audit"])
            return [E(c, "exec", "TRUNCATE %s%s" % (r.choice(["", "ONLY "]) if t == "h0" else "", t))]
        if kind == "lock":
            return [E(c, "exec", "SELECT id FROM %s WHERE k = %d FOR %s" % (
                r.choice(["t0", "t1", "t2", "r0", "p0", "h0"]), r.randint(0, 9), r.choice(["UPDATE", "SHARE", "NO KEY UPDATE"])))]
        if kind == "func":
            return [E(c, "exec", r.choice(["SELECT f_write(%d)" % r.randint(0, 30),
                                           "UPDATE %s SET c_text = (SELECT string_agg(md5(g::text), '') FROM "
                                           "generate_series(1, %d) g) WHERE k = %d" % (
                                               r.choice(["p0", "r0", "h01_m", "p0_b"]), r.randint(60, 300), r.randint(0, 9)),
                                           "UPDATE factors SET f = f + 1 WHERE k = %d" % r.randint(0, 9)]))]
        if kind == "cte":
            return [E(c, "exec", "WITH d AS (DELETE FROM %s WHERE k = %d RETURNING k) INSERT INTO audit "
                      "SELECT count(*), 0, 'cte' FROM d" % (rel.name, r.randint(0, 9)))]
        return self.as_owner(c, ["REFRESH MATERIALIZED VIEW mv0"])

    def where_lit(self, rel):
        params = []
        w = self.where(rel, params)
        for i, v in enumerate(params):
            w = w.replace("{P%d}" % i, v if v.lstrip("-").isdigit() else "'%s'" % v)
        return w

    # ---- DDL (as the owner)
    def as_owner(self, c, stmts):
        return [E(c, "exec", "SET ROLE ora_owner")] + [E(c, "exec", s) for s in stmts]

    def ddl(self, c):
        r = self.r
        kind = r.choice(["child", "dropchild", "inherit", "temp", "attach", "detach", "partof",
                         "domain", "dropdomain", "func", "view", "viewopt", "rls", "policy",
                         "addcol", "dropcol", "rename", "enum", "coltype", "index", "rewrite",
                         "discard", "secdef", "track"] + ["rename_obj"] * 8)
        if kind == "rename_obj":
            # names that reg* values print (a schema, a table, a type) and
            # partitions pg_partition_root finds, changed by another
            # connection; then this one's last regs check again, in the
            # role and settings it ran under
            d = (c + 1) % self.nconn
            # (a table's or type's rename renames a type too, which drops
            # every result: the schema and the partitions are what only a
            # catalog-reading value sees)
            what = r.choice(["schema", "schema", "schema", "partition", "partition", "table", "type", "swap"])
            on = self.toggled.get(what, False)
            self.toggled[what] = not on
            entries = self.as_owner(d, {
                "schema": ["ALTER SCHEMA s2%s RENAME TO s2%s" % (("x", "") if on else ("", "x"))],
                "table": ["ALTER TABLE named_%s RENAME TO named_%s" % (("u", "t") if on else ("t", "u"))],
                "type": ["ALTER TYPE named_t%s RENAME TO named_t%s" % (("z", "y") if on else ("y", "z"))],
                "partition": ["ALTER TABLE p0 ATTACH PARTITION p0_c FOR VALUES FROM (7) TO (10)" if on
                              else "ALTER TABLE p0 DETACH PARTITION p0_c"],
                "swap": ["ALTER TABLE t1 RENAME TO tmp_swap", "ALTER TABLE t2 RENAME TO t1",
                         "ALTER TABLE tmp_swap RENAME TO t2"],
            }[what])
            # a check that prints what changes, before and after the change
            expr = {"schema": "xmlelement(name n, regnamespace)::text",
                    "table": "xmlelement(name c, regclass)::text",
                    "swap": "xmlforest(regclass)::text",
                    "type": "xmlelement(name t, regtype)::text",
                    "partition": "pg_partition_root(regclass)"}[what]
            if what in ("schema", "table", "swap") and r.random() < 0.3:
                q = "SELECT k, jsonb_object_agg(id, %s)::text FROM regs GROUP BY k" % (
                    "regnamespace" if what == "schema" else "regclass")
            else:
                q = "SELECT id, %s FROM regs" % expr
            if what == "schema":
                # renaming a schema needs CREATE on the database: the login's
                entries = [E(d, "exec", "RESET SESSION AUTHORIZATION")] + entries[1:]
            check = self._emit(c, q, [], "simple", False, False)
            # committed before the recheck (d may be in a transaction)
            return check + [E(d, "exec", "COMMIT")] + entries + [dict(check[-1])]
        if kind == "enum":
            a, b = r.choice([("ok", "okay"), ("okay", "ok")])
            return self.as_owner(c, ["ALTER TYPE mood RENAME VALUE '%s' TO '%s'" % (a, b)])
        if kind == "coltype":
            return self.as_owner(c, ["ALTER TABLE %s ALTER COLUMN k TYPE %s" % (
                r.choice(["t2", "fk_child", "h0"]), r.choice(["bigint", "int", "numeric(6,1)"]))])
        if kind == "index":
            if r.random() < 0.5:
                return self.as_owner(c, ["CREATE INDEX IF NOT EXISTS ix_%s ON %s (k, id)" % ((t,) * 2) for t in [r.choice(["t0", "t1", "p0", "h0", "r0"])]])
            return self.as_owner(c, ["DROP INDEX IF EXISTS ix_%s" % r.choice(["t0", "t1", "p0", "h0", "r0"])])
        if kind == "rewrite":
            return self.as_owner(c, [r.choice(["VACUUM FULL t0", "VACUUM FULL r0", "CLUSTER t1 USING t1_pkey",
                                               "VACUUM ANALYZE p0", "ANALYZE h0"])])
        if kind == "discard":
            return [E(c, "exec", "DISCARD %s" % r.choice(["PLANS", "TEMP", "ALL"]))]
        if kind == "secdef":
            return self.as_owner(c, ["ALTER FUNCTION f_stable(int) %s" % r.choice(["SECURITY DEFINER", "SECURITY INVOKER"])])
        if kind == "child":
            self.nchild += 1
            n = "h0_x%d" % self.nchild
            return self.as_owner(c, ["CREATE TABLE %s (c_int int) INHERITS (%s)" % (n, r.choice(["h0", "h1", "h0_c1"])),
                                     "GRANT ALL ON %s TO PUBLIC" % n,
                                     "INSERT INTO %s (id, k) VALUES (%d, %d)" % (n, r.randint(1, 99), r.randint(0, 9))])
        if kind == "dropchild":
            n = r.choice(["h0_x%d" % r.randint(1, max(1, self.nchild)), "h0_c2", "h01_m"])
            return self.as_owner(c, ["DROP TABLE %s" % n])
        if kind == "inherit":
            ch = r.choice(["h0_c1", "h0_c2", "h01_m", "h0_x%d" % max(1, self.nchild)])
            return self.as_owner(c, ["ALTER TABLE %s %s %s" % (ch, r.choice(["NO INHERIT", "INHERIT"]), r.choice(["h0", "h1"]))])
        if kind == "temp":
            self.nchild += 1
            n = "tmp_%d" % self.nchild
            return self.as_owner(c, ["CREATE TEMP TABLE %s () INHERITS (%s)" % (n, r.choice(["h0", "h1"])),
                                     "INSERT INTO %s (id, k) VALUES (%d, %d)" % (n, r.randint(1, 99), r.randint(0, 9)),
                                     "GRANT ALL ON %s TO PUBLIC" % n])
        if kind == "attach":
            return self.as_owner(c, ["ALTER TABLE p0 ATTACH PARTITION p0_spare FOR VALUES FROM (10) TO (%d)" % r.randint(12, 20)])
        if kind == "detach":
            return self.as_owner(c, ["ALTER TABLE %s DETACH PARTITION %s" % r.choice(
                [("p0", "p0_spare"), ("p0", "p0_c"), ("p0", "p0_a"), ("p0_b", "p0_b1"), ("p0_b2", "p0_b2y")])])
        if kind == "partof":
            self.npart += 1
            lo = r.randint(20, 40)
            return self.as_owner(c, ["CREATE TABLE p0_n%d PARTITION OF p0 FOR VALUES FROM (%d) TO (%d)" % (self.npart, lo, lo + 3),
                                     "INSERT INTO p0 (id, k, c_text) VALUES (%d, %d, 'new')" % (r.randint(1, 99), lo)])
        if kind == "domain":
            self.nconstr += 1
            return self.as_owner(c, ["ALTER DOMAIN %s ADD CONSTRAINT dc%d CHECK (%s)%s" % (
                r.choice([("d_pos"), ("d_short")]), self.nconstr,
                r.choice(["VALUE::text <> '%d'" % r.randint(1, 9), "length(VALUE::text) < %d" % r.randint(1, 4)]),
                r.choice(["", " NOT VALID"]))])
        if kind == "dropdomain":
            return self.as_owner(c, ["ALTER DOMAIN %s DROP CONSTRAINT IF EXISTS dc%d" % (
                r.choice(["d_pos", "d_short"]), r.randint(1, max(1, self.nconstr)))])
        if kind == "lock":
            return [E(c, "exec", "SELECT id FROM %s WHERE k = %d FOR %s" % (
                r.choice(["t0", "t1", "t2", "r0", "p0", "h0"]), r.randint(0, 9), r.choice(["UPDATE", "SHARE", "NO KEY UPDATE"])))]
        if kind == "func":
            f = r.choice([
                "CREATE OR REPLACE FUNCTION f_imm(int) RETURNS int LANGUAGE sql IMMUTABLE AS $$ SELECT $1 * %d + 1 $$" % r.randint(2, 6),
                "CREATE OR REPLACE FUNCTION f_imm_pl(x int) RETURNS text LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN 'w' || (x * %d); END $$" % r.randint(2, 6),
                "CREATE OR REPLACE FUNCTION sf_vol(st int, x int) RETURNS int LANGUAGE plpgsql VOLATILE AS $$ BEGIN RETURN coalesce(st, 0) + %d * coalesce((SELECT f FROM s.factors WHERE k = x), 0); END $$" % r.randint(1, 3),
                "CREATE OR REPLACE FUNCTION f_stable(int) RETURNS int LANGUAGE sql STABLE AS $$ SELECT coalesce((SELECT f + %d FROM s.factors WHERE k = $1), -1) $$" % r.randint(0, 3),
            ])
            return self.as_owner(c, [f])
        if kind == "view":
            return self.as_owner(c, [r.choice([
                "CREATE OR REPLACE VIEW v_p0 AS SELECT id, k, c_text FROM p0 WHERE k >= %d" % r.randint(0, 6),
                "CREATE OR REPLACE VIEW v_r0_sb WITH (security_barrier) AS SELECT id, k, owner, c_text FROM r0 WHERE k < %d" % r.randint(2, 9),
            ])])
        if kind == "viewopt":
            v = r.choice(["v_r0_inv", "v_r0_def", "v_r0_sb", "v0"])
            return self.as_owner(c, ["ALTER VIEW %s SET (%s = %s)" % (v, r.choice(["security_invoker", "security_barrier"]),
                                                                     r.choice(["true", "false"]))])
        if kind == "track":
            t = r.choice(["t0", "t1", "t2", "p0", "h0", "h0_c1", "r0", "factors"])
            return self.as_owner(c, [r.choice([
                "SELECT sfcache.track('%s', 'k')" % t,
                "SELECT sfcache.track('%s', 'id')" % t,
                "SELECT sfcache.untrack('%s', 'k')" % t,
                "ALTER TABLE %s DISABLE TRIGGER USER" % t,
                "ALTER TABLE %s ENABLE TRIGGER USER" % t,
                "ALTER TABLE %s ENABLE ALWAYS TRIGGER sfcache_capture" % t,
            ])])
        if kind == "rls":
            return self.as_owner(c, ["ALTER TABLE r0 %s ROW LEVEL SECURITY" % r.choice(["ENABLE", "DISABLE", "FORCE", "NO FORCE"])])
        if kind == "policy":
            if r.random() < 0.5:
                return self.as_owner(c, ["DROP POLICY IF EXISTS %s ON r0" % r.choice(["p_own", "p_grp", "p_restr", "p_x"])])
            return self.as_owner(c, ["CREATE POLICY p_x ON r0 FOR SELECT TO %s USING (k > %d)" % (r.choice(READERS), r.randint(0, 9))])
        if kind == "addcol":
            self.ncol += 1
            t = r.choice(["t0", "t1", "h0", "p0", "r0"])
            return self.as_owner(c, ["ALTER TABLE %s ADD COLUMN x%d int DEFAULT %d" % (t, self.ncol, r.randint(0, 9))])
        if kind == "dropcol":
            t = r.choice(["t0", "t1", "t2", "h0", "h0_c1"])
            col = r.choice([x for x in self.m.rels[t].cols if x not in ("id", "k")] or ["k"])
            return self.as_owner(c, ["ALTER TABLE %s DROP COLUMN %s" % (t, col)])
        a, b = r.sample(["t1", "t2"], 2)
        return self.as_owner(c, ["ALTER TABLE %s RENAME TO tmp_swap" % a, "ALTER TABLE %s RENAME TO %s" % (b, a),
                                 "ALTER TABLE tmp_swap RENAME TO %s" % b])

    # ---- privileges
    def grant(self, c):
        r = self.r
        who = r.choice(READERS + ["PUBLIC"])
        rel = self.rel()
        kind = r.choice(["table", "table", "column", "function", "member"])
        if kind == "table":
            g = r.random() < 0.5
            s = ("GRANT SELECT ON %s TO %s" if g else "REVOKE SELECT ON %s FROM %s") % (rel.name, who)
        elif kind == "column":
            col = r.choice(list(rel.cols))
            g = r.random() < 0.5
            s = ("GRANT SELECT (%s) ON %s TO %s" if g else "REVOKE SELECT (%s) ON %s FROM %s") % (col, rel.name, who)
        elif kind == "function":
            f = r.choice(["f_imm(int)", "f_secret(int)", "f_imm_pl(int)", "agg_vol(int)", "sf_imm(int, int)"])
            g = r.random() < 0.5
            s = ("GRANT EXECUTE ON FUNCTION %s TO %s" if g else "REVOKE EXECUTE ON FUNCTION %s FROM %s") % (f, who)
        else:
            m = r.choice(["ora_a", "ora_b", "ora_c"])
            s = ("GRANT ora_grp TO %s" if r.random() < 0.5 else "REVOKE ora_grp FROM %s") % m
            return [E(c, "exec", "RESET ROLE"), E(c, "exec", s)]
        return self.as_owner(c, [s])

    def setting(self, c):
        n = self.r.choice(list(self.settings))
        v = self.r.choice(self.settings[n])
        if self.r.random() < 0.1:
            return [E(c, "exec", "RESET %s" % n)]
        return [E(c, "exec", "SET %s%s = %s" % ("LOCAL " if self.r.random() < 0.1 else "", n, v))]

    def role(self, c):
        x = self.r.choice(["ora_a", "ora_a", "ora_b", "ora_c", "ora_grp", "ora_owner", "ora_owner", None, "session"])
        if x == "session":
            # the session user too (the login is the bootstrap superuser, so RESET works)
            return [E(c, "exec", self.r.choice(["SET SESSION AUTHORIZATION %s" % self.r.choice(READERS),
                                                "RESET SESSION AUTHORIZATION"]))]
        return [E(c, "exec", "RESET ROLE" if x is None else "SET ROLE %s" % x)]

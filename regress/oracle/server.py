# regress/oracle/server.py: a throwaway PostgreSQL 15 cluster for the
# differential oracle: initdb in a private directory, sfcache preloaded,
# listening only on a Unix socket in that directory; and the admin
# helpers the oracle needs (a fresh database and fresh roles per run).
import os
import shutil
import subprocess
import tempfile
import time

import psycopg

SERVER_CONF = """
shared_preload_libraries = 'sfcache'
# every result kept from its first miss: the more stored, the more checked
sfcache.admission = off
listen_addresses = ''
fsync = off
synchronous_commit = off
full_page_writes = off
max_connections = 30
max_prepared_transactions = 10
max_parallel_workers_per_gather = 0
lock_timeout = '60ms'
statement_timeout = '20s'
deadlock_timeout = '20ms'
log_min_messages = warning
log_min_error_statement = panic
"""


class Server:
    """A cluster started by us (or an existing one named by --host/--port)."""

    def __init__(self, bindir=None, host=None, port=5432, user="postgres"):
        self.bindir = bindir
        self.host = host
        self.port = port
        self.user = user
        self.datadir = None
        self.tmp = None

    def start(self):
        if self.host:
            return
        self.tmp = tempfile.mkdtemp(prefix="sfcache-oracle.")
        os.chmod(self.tmp, 0o700)
        self.datadir = os.path.join(self.tmp, "data")
        self.host = self.tmp
        subprocess.run([os.path.join(self.bindir, "initdb"), "-D", self.datadir,
                        "-U", self.user, "-A", "trust", "-N", "--no-instructions"],
                       check=True, stdout=subprocess.DEVNULL)
        with open(os.path.join(self.datadir, "postgresql.conf"), "a") as f:
            f.write(SERVER_CONF)
            f.write("unix_socket_directories = '%s'\nport = %d\n" % (self.tmp, self.port))
        subprocess.run([os.path.join(self.bindir, "pg_ctl"), "-D", self.datadir, "-w",
                        "-l", os.path.join(self.tmp, "server.log"), "start"],
                       check=True, stdout=subprocess.DEVNULL)

    def stop(self, keep=False):
        if not self.datadir:
            return
        subprocess.run([os.path.join(self.bindir, "pg_ctl"), "-D", self.datadir, "-m",
                        "immediate", "-w", "stop"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        if not keep:
            shutil.rmtree(self.tmp, ignore_errors=True)
        self.datadir = None

    def log_path(self):
        return os.path.join(self.tmp, "server.log") if self.tmp else None

    def connect(self, dbname="oracle"):
        for attempt in range(50):
            try:
                return psycopg.connect(host=self.host, port=self.port, user=self.user,
                                       dbname=dbname, autocommit=True)
            except psycopg.OperationalError:
                if attempt == 49:
                    raise
                time.sleep(0.1)

    def finish_prepared(self, dbname):
        """Roll back the two-phase transactions a run left in its database."""
        with self.connect("postgres") as c:
            if not c.execute("SELECT 1 FROM pg_prepared_xacts WHERE database = %s", (dbname,)).fetchall():
                return
        with self.connect(dbname) as c:
            for (gid,) in c.execute("SELECT gid FROM pg_prepared_xacts WHERE database = current_database()").fetchall():
                c.execute("ROLLBACK PREPARED '%s'" % gid)

    def clone_database(self, template, reset_sql, dbname="oracle"):
        """A fresh copy of a template database (replays while reducing)."""
        self.finish_prepared(dbname)
        with self.connect("postgres") as c:
            c.execute("DROP DATABASE IF EXISTS %s WITH (FORCE)" % dbname)
            for s in reset_sql:
                c.execute(s)
            c.execute("CREATE DATABASE %s TEMPLATE %s" % (dbname, template))
            c.execute("ALTER DATABASE %s SET search_path = s, public" % dbname)

    def fresh_database(self, roles, dbname="oracle"):
        """Drop and recreate the oracle's database and roles; flush the cache."""
        with self.connect("postgres") as c:
            exists = c.execute("SELECT 1 FROM pg_database WHERE datname = %s", (dbname,)).fetchall()
        if exists:
            self.finish_prepared(dbname)
        with self.connect("postgres") as c:
            c.execute("DROP DATABASE IF EXISTS %s WITH (FORCE)" % dbname)
            for r in roles:
                c.execute("DROP ROLE IF EXISTS %s" % r)
            c.execute("CREATE DATABASE %s" % dbname)
            c.execute("ALTER DATABASE %s SET search_path = s, public" % dbname)
        with self.connect(dbname) as c:
            c.execute("CREATE EXTENSION sfcache")
            c.execute("SELECT sfcache.flush()")

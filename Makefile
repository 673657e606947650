# sfcache: one PGXS Makefile for the loadable module, its SQL scripts,
# the sfcache-advisor CLI and every test list.

EXTENSION = sfcache
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" sfcache.control)

MODULE_big = sfcache
OBJS = $(CORE_OBJS) $(CACHE_OBJS) $(ADVICE_OBJS) $(WHATIF_OBJS) $(BUS_OBJS) $(BASE_OBJS)

# extension/core: the library's entry, above the subsystems: _PG_init and
# the hook points, which call each subsystem in a written order.
CORE_OBJS = \
	extension/core/sfcache.o \
	extension/core/core_hooks.o \
	extension/core/core_version.o

# extension/base: below the subsystems: the version shim, the shared
# memory registry, whether sfcache is created here, the nesting level.
BASE_OBJS = \
	extension/base/compat.o \
	extension/base/base_extension.o \
	extension/base/base_nesting.o \
	extension/base/base_normalize.o \
	extension/base/base_queryid.o \
	extension/base/base_rtable.o \
	extension/base/base_settings.o \
	extension/base/base_shmem.o \
	extension/base/base_test_hold.o

# extension/cache: the result cache.
CACHE_OBJS = \
	extension/cache/cache_admit.o \
	extension/cache/cache_ancestors.o \
	extension/cache/cache_cacheable.o \
	extension/cache/cache_capture.o \
	extension/cache/cache_capture_plan.o \
	extension/cache/cache_catalog.o \
	extension/cache/cache_child_plan.o \
	extension/cache/cache_cold.o \
	extension/cache/cache_code.o \
	extension/cache/cache_counterset.o \
	extension/cache/cache_tag_hash.o \
	extension/cache/cache_tags.o \
	extension/cache/cache_explain.o \
	extension/cache/cache_guc.o \
	extension/cache/cache_init.o \
	extension/cache/cache_inval_commit.o \
	extension/cache/cache_inval_counters.o \
	extension/cache/cache_inval_wal.o \
	extension/cache/cache_inval_wal_standby.o \
	extension/cache/cache_inval_hooks.o \
	extension/cache/cache_inval_writeset.o \
	extension/cache/cache_key.o \
	extension/cache/cache_key_memo.o \
	extension/cache/cache_plan.o \
	extension/cache/cache_relation_settings.o \
	extension/cache/cache_relation_sql.o \
	extension/cache/cache_replay.o \
	extension/cache/cache_run.o \
	extension/cache/cache_scan.o \
	extension/cache/cache_shared.o \
	extension/cache/cache_key_settings.o \
	extension/cache/cache_singleflight.o \
	extension/cache/cache_sql.o \
	extension/cache/cache_stats.o \
	extension/cache/cache_store.o \
	extension/cache/cache_tracked.o \
	extension/cache/cache_uninstall.o \
	extension/cache/cache_window.o \
	extension/cache/cache_window_bounds.o \
	extension/cache/cache_window_scan.o

# extension/advice: index advice.
ADVICE_OBJS = \
	extension/advice/advice_activity.o \
	extension/advice/advice_build.o \
	extension/advice/advice_existing.o \
	extension/advice/advice_guc.o \
	extension/advice/advice_hooks.o \
	extension/advice/advice_merge.o \
	extension/advice/advice_persist.o \
	extension/advice/advice_qual.o \
	extension/advice/advice_rules.o \
	extension/advice/advice_search.o \
	extension/advice/advice_sql.o \
	extension/advice/advice_store.o \
	extension/advice/advice_verify.o \
	extension/advice/advice_walk.o \
	extension/advice/advice_window.o

# extension/whatif: hypothetical indexes.
WHATIF_OBJS = \
	extension/whatif/whatif.o \
	extension/whatif/whatif_ddl.o \
	extension/whatif/whatif_plan.o \
	extension/whatif/whatif_size.o \
	extension/whatif/whatif_sql.o

# extension/bus: the Redis invalidation bus (hiredis).
BUS_OBJS = \
	extension/bus/bus_guc.o \
	extension/bus/bus_init.o \
	extension/bus/bus_msg.o \
	extension/bus/bus_receive.o \
	extension/bus/bus_redis.o \
	extension/bus/bus_results.o \
	extension/bus/bus_shmem.o \
	extension/bus/bus_sql.o \
	extension/bus/bus_standby.o \
	extension/bus/bus_url.o \
	extension/bus/bus_worker.o
SHLIB_LINK += -lhiredis

DATA = $(wildcard sql/sfcache--*.sql)

# pg_regress inputs live in regress/sql, expected outputs in ./expected.
# install runs first: it is the one that creates the extension.
REGRESS = install $(filter-out install,$(patsubst regress/sql/%.sql,%,$(sort $(wildcard regress/sql/*.sql))))
REGRESS_OPTS = --inputdir=regress --temp-instance=./tmp_check \
	--temp-config=regress/sfcache.conf
ISOLATION = $(patsubst regress/specs/%.spec,%,$(sort $(wildcard regress/specs/*.spec)))
ISOLATION_OPTS = --inputdir=regress --temp-instance=./tmp_check_iso \
	--temp-config=regress/sfcache.conf
# TAP tests: PGXS's prove_installcheck (scripts/test puts advisor/ on PATH).
TAP_TESTS = 1
PROVE_TESTS = regress/t/*.pl
EXTRA_CLEAN = tmp_check tmp_check_iso tmp_core results output_iso log regression.* counts \
	$(ADVISOR) $(ADVISOR_OBJS)

PG_CPPFLAGS = -DSFCACHE_VERSION=\"$(EXTVERSION)\" -Iextension
# bench/soak's planted bugs (issue 33), off unless named: make SFCACHE_PLANT=STANDBY_STALE
# (a standby skips the bumps of one WAL invalidation record in 20) or
# SFCACHE_PLANT=FOLLOWER_NOT_WOKEN (a leader that exits does not hand its key
# over: its followers sleep until sfcache.wait_timeout). Never in a release.
ifneq ($(SFCACHE_PLANT),)
PG_CPPFLAGS += -DSFCACHE_PLANT_$(SFCACHE_PLANT)
endif
# -fvisibility=hidden: only what PostgreSQL looks up is exported (see
# extension/base/base.h and scripts/check-exports).
PG_CFLAGS = -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wno-sign-compare $(if $(CFLAGS_SL_MODULE),,-fvisibility=hidden)

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

PG_PROVE_FLAGS += -I $(srcdir)/regress/t

# sfcache-advisor: a frontend program built beside the module. PGXS allows
# only one of MODULE_big and PROGRAM, so its rules are spelled out here.
ADVISOR = advisor/sfcache-advisor
ADVISOR_OBJS = \
	advisor/main.o \
	advisor/apply.o \
	advisor/cache_settings.o \
	advisor/connect.o \
	advisor/consolidate.o \
	advisor/emit_django.o \
	advisor/emit_json.o \
	advisor/emit_sql.o \
	advisor/evidence.o \
	advisor/fetch.o \
	advisor/indexdef.o \
	advisor/migration.o \
	advisor/naming.o \
	advisor/observe.o \
	advisor/owners.o \
	advisor/options.o \
	advisor/strlist.o

$(ADVISOR_OBJS): CPPFLAGS += -I$(includedir)
$(ADVISOR_OBJS): advisor/advisor.h

# libpgfeutils (Ctrl-C cancel), libpgcommon (logging, password prompt) and
# libpgport are static libraries, in $(pkglibdir) for Debian's
# postgresql-server-dev-NN and PGDG's packages, in $(libdir) for a source
# install. They are named here on every major: up to 16 PGXS's
# $(libpq_pgport) named the last two, from 17 on it is $(libpq) alone.
$(ADVISOR): $(ADVISOR_OBJS)
	$(CC) $(CFLAGS) $(ADVISOR_OBJS) -L$(pkglibdir) -L$(libdir) -lpgfeutils -lpgcommon -lpgport \
		$(libpq_pgport) $(LDFLAGS) $(LDFLAGS_EX) -lm -o $@

# Every object depends on every header: coarse, but never stale (the
# module is small, and PGXS outside a configured source tree has no
# automatic dependencies).
$(OBJS): $(wildcard extension/*/*.h)

# The advisor and its manual page go beside PostgreSQL's own programs and
# pages ($(bindir), $(mandir): pg_config --bindir, --mandir), where PGXS's
# TAP tests find it. ADVISOR_BINDIR and ADVISOR_MANDIR put them elsewhere:
# on Debian, where neither is on PATH nor in man's path, /usr/local/bin and
# /usr/local/share/man (README: Install); the Debian package, /usr/bin and
# /usr/share/man (debian/rules). SFCACHE_ADVISOR=no builds and installs the
# module alone: the package's postgresql-NN-sfcache, one per major, which
# leave the advisor to the one sfcache-advisor package.
ADVISOR_BINDIR = $(bindir)
ADVISOR_MANDIR = $(mandir)
SFCACHE_ADVISOR = yes
ifneq ($(SFCACHE_ADVISOR),no)
all: $(ADVISOR)
install: install-advisor
uninstall: uninstall-advisor
endif

install-advisor: $(ADVISOR)
	$(MKDIR_P) '$(DESTDIR)$(ADVISOR_BINDIR)' '$(DESTDIR)$(ADVISOR_MANDIR)/man1'
	$(INSTALL_PROGRAM) $(ADVISOR) '$(DESTDIR)$(ADVISOR_BINDIR)/sfcache-advisor'
	$(INSTALL_DATA) $(srcdir)/advisor/sfcache-advisor.1 '$(DESTDIR)$(ADVISOR_MANDIR)/man1/sfcache-advisor.1'

uninstall-advisor:
	rm -f '$(DESTDIR)$(ADVISOR_BINDIR)/sfcache-advisor'
	rm -f '$(DESTDIR)$(ADVISOR_MANDIR)/man1/sfcache-advisor.1'

.PHONY: install-advisor uninstall-advisor lint test demo bench

# cppcheck reads PostgreSQL's headers for its macros (foreach, PG_TRY, ...).
# unknownEvaluationOrder is suppressed: it misreads the compound literals of
# PostgreSQL's list_makeN() macros.
lint:
	cppcheck -j $(shell nproc) --quiet --error-exitcode=1 --enable=warning,performance,portability \
		--std=c99 --inline-suppr --suppress=missingIncludeSystem \
		--max-configs=1 -D__GNUC__ -D__x86_64__ --suppress=unknownEvaluationOrder \
		-I extension -I advisor -I $(includedir_server) -I $(includedir_internal) -I $(includedir) \
		extension advisor

test:
	scripts/test

demo:
	scripts/demo

# Benchmarks (never in CI): bench/run, e.g. make bench BENCH_ARGS="--quick herd".
bench:
	bench/run $(BENCH_ARGS)

# sfcache: one PGXS Makefile for the loadable module, its SQL scripts,
# the sfcache-advisor CLI and every test list.

EXTENSION = sfcache
EXTVERSION = $(shell sed -n "s/^default_version = '\(.*\)'/\1/p" sfcache.control)

MODULE_big = sfcache
OBJS = \
	extension/sfcache.o \
	extension/shmem.o \
	extension/version.o \
	extension/cache_explain.o \
	extension/cache_guc.o \
	extension/cache_key.o \
	extension/cache_key_memo.o \
	extension/cache_settings.o \
	extension/cache_plan.o \
	extension/cache_run.o \
	extension/cache_scan.o \
	extension/cache_sql.o \
	extension/cache_stats.o \
	extension/cache_store.o \
	extension/cacheable.o \
	extension/cache_code.o \
	extension/inval.o \
	extension/relation_settings.o \
	extension/singleflight.o \
	extension/test_hold.o \
	$(ADVICE_OBJS)

# Index advice and hypothetical indexes (issue 4).
ADVICE_OBJS = \
	extension/advice_build.o \
	extension/advice_existing.o \
	extension/advice_hooks.o \
	extension/advice_qual.o \
	extension/advice_rules.o \
	extension/advice_sql.o \
	extension/advice_store.o \
	extension/advice_verify.o \
	extension/advice_walk.o \
	extension/whatif.o \
	extension/whatif_ddl.o \
	extension/whatif_plan.o \
	extension/whatif_size.o \
	extension/whatif_sql.o

DATA = $(wildcard sql/sfcache--*.sql)

# pg_regress inputs live in regress/sql, expected outputs in ./expected.
# install runs first: it is the one that creates the extension.
REGRESS = install $(filter-out install,$(patsubst regress/sql/%.sql,%,$(sort $(wildcard regress/sql/*.sql))))
REGRESS_OPTS = --inputdir=regress --temp-instance=./tmp_check \
	--temp-config=regress/sfcache.conf
ISOLATION = $(patsubst regress/specs/%.spec,%,$(sort $(wildcard regress/specs/*.spec)))
ISOLATION_OPTS = --inputdir=regress --temp-instance=./tmp_check_iso \
	--temp-config=regress/sfcache.conf
# TAP tests (regress/t/*.pl) are run by scripts/test through prove, so that
# the advisor binary built here is on their PATH.
EXTRA_CLEAN = tmp_check tmp_check_iso results output_iso log regression.* \
	$(ADVISOR) $(ADVISOR_OBJS)

PG_CPPFLAGS = -DSFCACHE_VERSION=\"$(EXTVERSION)\"
PG_CFLAGS = -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Wno-sign-compare

PG_CONFIG ?= pg_config
PGXS := $(shell $(PG_CONFIG) --pgxs)
include $(PGXS)

# sfcache-advisor: a frontend program built beside the module. PGXS allows
# only one of MODULE_big and PROGRAM, so its rules are spelled out here.
ADVISOR = advisor/sfcache-advisor
ADVISOR_OBJS = \
	advisor/main.o \
	advisor/apply.o \
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
	advisor/options.o \
	advisor/strlist.o \
	advisor/ttl.o

$(ADVISOR_OBJS): CPPFLAGS += -I$(includedir)
$(ADVISOR_OBJS): advisor/advisor.h

# libpgfeutils (Ctrl-C cancel), libpgcommon (logging, password prompt) and
# libpgport are static libraries in $(pkglibdir), shipped by Debian's
# postgresql-server-dev-15 as by a source install.
$(ADVISOR): $(ADVISOR_OBJS)
	$(CC) $(CFLAGS) $(ADVISOR_OBJS) -L$(pkglibdir) -lpgfeutils $(libpq_pgport) $(LDFLAGS) $(LDFLAGS_EX) -lm -o $@

$(OBJS): extension/sfcache.h extension/cache_store.h extension/cache_scan.h
$(ADVICE_OBJS): extension/advice.h extension/whatif.h

all: $(ADVISOR)

install: install-advisor
install-advisor: $(ADVISOR) installdirs
	$(INSTALL_PROGRAM) $(ADVISOR) '$(DESTDIR)$(bindir)/sfcache-advisor'

uninstall: uninstall-advisor
uninstall-advisor:
	rm -f '$(DESTDIR)$(bindir)/sfcache-advisor'

.PHONY: install-advisor uninstall-advisor lint test demo bench

# cppcheck reads PostgreSQL's headers for its macros (foreach, PG_TRY, ...).
# unknownEvaluationOrder is suppressed: it misreads the compound literals of
# PostgreSQL's list_makeN() macros.
lint:
	cppcheck --quiet --error-exitcode=1 --enable=warning,performance,portability \
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

# scripts/lib.sh: what the README's two commands (scripts/demo, scripts/test)
# share: installing the Debian packages they need, building and installing
# sfcache, and running as an unprivileged user, since PostgreSQL refuses to
# run as root.
# shellcheck shell=bash

SFC_PACKAGES="make gcc postgresql-15 postgresql-server-dev-15 postgresql-contrib
	libhiredis-dev redis-server prometheus-postgres-exporter libipc-run-perl cppcheck valgrind python3-psycopg dpkg-dev
	python3-django python3-psycopg2
	pg-bsd-indent pgbouncer spin
	debhelper postgresql-server-dev-all man-db"
# What the demo uses: the build, the server, pg_stat_statements, pgbench.
SFC_DEMO_PACKAGES="make gcc postgresql-15 postgresql-server-dev-15 postgresql-contrib libhiredis-dev"
SFC_PG_BINDIR=/usr/lib/postgresql/15/bin
# A relocated PostgreSQL 15 can be named by PG_CONFIG; the packaged one otherwise.
export PG_CONFIG=${PG_CONFIG:-$SFC_PG_BINDIR/pg_config}

sfc_log() { printf '==> %s\n' "$*" >&2; }
sfc_die() { printf 'error: %s\n' "$*" >&2; exit 2; }

# Run a command as root: directly when we are root, through sudo otherwise.
sfc_root() {
	if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

# Install whichever of SFC_PACKAGES is missing (Debian 12).
sfc_install_packages() {
	local missing="" p
	for p in $SFC_PACKAGES; do
		dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
			missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	command -v apt-get >/dev/null || sfc_die "missing packages:$missing (and no apt-get to install them)"
	sfc_log "installing:$missing"
	# The packaged cluster is not ours to run; keep apt from creating one.
	if [ ! -e /etc/postgresql-common/createcluster.conf ]; then
		sfc_root mkdir -p /etc/postgresql-common
		echo 'create_main_cluster = false' | sfc_root tee /etc/postgresql-common/createcluster.conf >/dev/null
	fi
	sfc_root env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null
	# shellcheck disable=SC2086
	sfc_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing >/dev/null
}

# The user that builds and runs servers: ourselves, or "postgres" under root.
sfc_run_user() {
	if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

# Run a command as the unprivileged user, keeping the environment we need.
sfc_as_user() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- env PATH="$PATH" PG_CONFIG="$PG_CONFIG" CI="${CI:-}" \
			SFCACHE_ORACLE_MINUTES="${SFCACHE_ORACLE_MINUTES:-}" SFCACHE_ORACLE_SEEDS="${SFCACHE_ORACLE_SEEDS:-}" \
			SFCACHE_PGSRC="${SFCACHE_PGSRC:-}" SFCACHE_MAJOR="${SFCACHE_MAJOR:-}" \
			SFCACHE_UPGRADE_FROM="${SFCACHE_UPGRADE_FROM:-}" SFCACHE_ADVISOR_VALGRIND="${SFCACHE_ADVISOR_VALGRIND:-}" "$@"
	else
		"$@"
	fi
}

# Print the tree to build and test MAJOR in: under root, a copy the
# unprivileged user owns; otherwise the tree itself for 15 and a copy for
# each other major (one build per tree).
sfc_work_tree() {
	local src=$1 major=${2:-15} dst
	if [ "$(id -u)" -ne 0 ] && [ "$major" = 15 ]; then echo "$src"; return; fi
	dst=$(mktemp -d "${TMPDIR:-/tmp}/sfcache-work-pg$major.XXXXXX")
	(cd "$src" && tar --exclude=./.git --exclude='./tmp_check*' --exclude='*.o' --exclude='*.so' \
		--exclude='*.bc' --exclude=./advisor/sfcache-advisor -cf - .) | (cd "$dst" && tar -xf -)
	if [ "$(id -u)" -eq 0 ]; then chown -R postgres: "$dst"; fi
	echo "$dst"
}

# The major of a pg_config: "PostgreSQL 17.10" -> 17, "PostgreSQL 19beta2" -> 19.
sfc_pg_major() {
	"$1" --version | sed -E 's/^PostgreSQL ([0-9]+).*/\1/'
}

# Print "MAJOR PG_CONFIG" for every major to test, 15 first: $PG_CONFIG,
# then SFCACHE_PG_CONFIGS, or else one build per tarball in ../shared/pg/
# beside the clone (built with its build.sh into $SFCACHE_PG_CACHE/MAJOR if
# not there yet; root only). SFCACHE_MAJORS, when set, keeps only those (and
# builds no other).
sfc_pg_configs() {
	local src=$1 shared cache=${SFCACHE_PG_CACHE:-/var/cache/sfcache-pg} list=() t v m pc t0
	list+=("$PG_CONFIG")
	if [ -n "${SFCACHE_PG_CONFIGS:-}" ]; then
		for pc in ${SFCACHE_PG_CONFIGS//:/ }; do list+=("$pc"); done
	elif shared=$(cd "$src/../shared/pg" 2>/dev/null && pwd); then
		for t in "$shared"/postgresql-*.tar.xz; do
			[ -f "$t" ] || continue
			v=$(basename "$t" .tar.xz); v=${v#postgresql-}
			m=${v%%.*}; m=${m%%beta*}; m=${m%%rc*}
			sfc_major_wanted "$m" || continue	# not built when not tested
			pc=$cache/$m/bin/pg_config
			if [ ! -x "$pc" ] && [ -x "$shared/build.sh" ]; then
				sfc_log "building PostgreSQL $v into $cache/$m (once per machine)"
				sfc_root mkdir -p "$cache"
				sfc_root chmod 755 "$cache"
				t0=$(date +%s)
				sfc_root "$shared/build.sh" "$v" "$cache/$m" >&2 || { sfc_log "PostgreSQL $v did not build"; continue; }
				sfc_log "PostgreSQL $v ready in $cache/$m after $(($(date +%s) - t0)) s"
			fi
			[ -x "$pc" ] && { sfc_pg_contrib "$t" "$pc" pg_trgm auto_explain || true; list+=("$pc"); }
		done
	fi
	for pc in "${list[@]}"; do
		m=$(sfc_pg_major "$pc") || continue
		sfc_major_wanted "$m" && echo "$m $pc"
	done
	return 0
}

# Whether SFCACHE_MAJORS (unset: every major) names MAJOR.
sfc_major_wanted() {
	[ -z "${SFCACHE_MAJORS:-}" ] || [[ " $SFCACHE_MAJORS " == *" $1 "* ]]
}

# The contrib modules the tests use that build.sh leaves out (pg_trgm: the
# trigram advice), built from TARBALL with PGXS into PG_CONFIG's prefix once.
sfc_pg_contrib() {	# sfc_pg_contrib TARBALL PG_CONFIG MODULE...
	local tarball=$1 pc=$2 dir top m
	shift 2
	for m in "$@"; do
		[ -f "$("$pc" --pkglibdir)/$m.so" ] && continue
		dir=$(mktemp -d)
		top=$(basename "$tarball" .tar.xz)
		tar -xJf "$tarball" -C "$dir" "$top/contrib/$m" &&
			sfc_root make -s -C "$dir/$top/contrib/$m" USE_PGXS=1 PG_CONFIG="$pc" install >/dev/null ||
			{ rm -rf "$dir"; sfc_log "contrib/$m did not build against $pc"; return 1; }
		rm -rf "$dir"
	done
}

# Build as the unprivileged user, install as root. With SFC_BITCODE=no (the
# demo) the LLVM bitcode that PGXS builds beside each object for JIT inlining
# is skipped (it is half of the build's CPU time, and only lets JIT inline
# sfcache's own C functions), and an older install's bitcode is removed, as
# it would no longer match the library.
sfc_build_install() {
	local tree=$1 llvm=()
	[ "${SFC_BITCODE:-yes}" = no ] && llvm=(with_llvm=no)
	sfc_log "building in $tree"
	sfc_as_user make -C "$tree" -s -j"$(nproc)" PG_CONFIG="$PG_CONFIG" "${llvm[@]}" >/dev/null
	sfc_log "installing into $($PG_CONFIG --pkglibdir)"
	sfc_root make -C "$tree" -s install PG_CONFIG="$PG_CONFIG" "${llvm[@]}" >/dev/null
	if [ ${#llvm[@]} -gt 0 ]; then
		sfc_root rm -rf "$($PG_CONFIG --pkglibdir)/bitcode/sfcache" "$($PG_CONFIG --pkglibdir)/bitcode/sfcache.index.bc"
	fi
}

# scripts/lib.sh: what the README's two commands (scripts/demo, scripts/test)
# share: installing the Debian packages they need, building and installing
# sfcache, and running as an unprivileged user, since PostgreSQL refuses to
# run as root.
# shellcheck shell=bash

SFC_PACKAGES="make gcc postgresql-15 postgresql-server-dev-15 postgresql-contrib
	libhiredis-dev redis-server prometheus-postgres-exporter libipc-run-perl cppcheck valgrind python3-psycopg dpkg-dev
	python3-django python3-psycopg2
	pg-bsd-indent pgbouncer"
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
			SFCACHE_PGSRC="${SFCACHE_PGSRC:-}" "$@"
	else
		"$@"
	fi
}

# Under root, copy the source tree to a directory the unprivileged user owns,
# and print it; otherwise print the tree itself.
sfc_work_tree() {
	local src=$1 dst
	if [ "$(id -u)" -ne 0 ]; then echo "$src"; return; fi
	dst=$(mktemp -d /tmp/sfcache-work.XXXXXX)
	(cd "$src" && tar --exclude=./.git --exclude='./tmp_check*' -cf - .) | (cd "$dst" && tar -xf -)
	chown -R postgres: "$dst"
	echo "$dst"
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
	sfc_as_user make -C "$tree" -s -j"$(nproc)" "${llvm[@]}" >/dev/null
	sfc_log "installing into $($PG_CONFIG --pkglibdir)"
	sfc_root make -C "$tree" -s install PG_CONFIG="$PG_CONFIG" "${llvm[@]}" >/dev/null
	if [ ${#llvm[@]} -gt 0 ]; then
		sfc_root rm -rf "$($PG_CONFIG --pkglibdir)/bitcode/sfcache" "$($PG_CONFIG --pkglibdir)/bitcode/sfcache.index.bc"
	fi
}

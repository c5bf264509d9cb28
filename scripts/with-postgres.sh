#!/usr/bin/env bash
# Runs a command with ROPGEN_TEST_PG_URL naming a throwaway PostgreSQL server, so that the
# history store's tests run against PostgreSQL as well as SQLite (perf/history/historytest).
# The server is a new cluster in a temporary directory, listening on a unix socket there only
# (no TCP port), with fsync off: it holds nothing worth keeping. It is stopped and removed when
# the command ends. When ROPGEN_TEST_PG_URL is set already, that server is used. When
# PostgreSQL is not installed or does not start, the command runs without it, and this says
# so: the PostgreSQL tests then skip, saying why.
set -u
if [ -n "${ROPGEN_TEST_PG_URL:-}" ]; then
	exec "$@"
fi
bindir=""
for d in "$(pg_config --bindir 2>/dev/null)" /usr/lib/postgresql/*/bin; do
	if [ -n "$d" ] && [ -x "$d/initdb" ] && [ -x "$d/pg_ctl" ]; then bindir=$d; fi
done
if [ -z "$bindir" ]; then
	echo "PostgreSQL is not installed (no initdb): the history store's PostgreSQL tests are skipped (.ci/run installs it: apt-get install postgresql)" >&2
	exec "$@"
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/ropgen-pg.XXXXXX")
as=()
if [ "$(id -u)" = 0 ]; then
	# The server refuses to run as root: run it as the postgres user the package creates.
	if ! id postgres >/dev/null 2>&1; then
		echo "running as root and there is no postgres user to run the server as: the history store's PostgreSQL tests are skipped" >&2
		rmdir "$dir"
		exec "$@"
	fi
	chown postgres "$dir"
	as=(runuser -u postgres --)
fi
started=""
if "${as[@]}" "$bindir/initdb" -D "$dir/data" -A trust -U ropgen --no-sync >"$dir/initdb.log" 2>&1 &&
	"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
		-o "-k $dir -c listen_addresses= -p 5432 -c fsync=off -c max_connections=100" start >/dev/null; then
	started=1
	export ROPGEN_TEST_PG_URL="postgres://ropgen@/postgres?host=$dir&port=5432&sslmode=disable"
	echo "PostgreSQL $("$bindir/postgres" --version | awk '{print $3}'): a throwaway server for the history store's tests ($dir)" >&2
else
	echo "PostgreSQL did not start (logs below): the history store's PostgreSQL tests are skipped" >&2
	tail -5 "$dir/initdb.log" "$dir/server.log" 2>/dev/null >&2
fi
"$@"
status=$?
if [ -n "$started" ]; then
	"${as[@]}" "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1
fi
rm -rf "$dir"
exit $status

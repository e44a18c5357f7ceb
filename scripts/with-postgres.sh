#!/usr/bin/env bash
# Runs a command beside a private PostgreSQL cluster: made in a temporary folder with Debian's
# `postgresql` package, listening on a Unix socket only (no TCP port), removed afterwards. The
# command finds it in COUNTERSIGN_TEST_POSTGRES (a sqlx URL) and the usual PG* variables.
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
if [[ -z $bin || ! -x $bin/initdb ]]; then
  echo "PostgreSQL's server is not installed (make deps installs Debian's postgresql)" >&2
  exit 1
fi

dir=$(mktemp -d /tmp/countersign-pg.XXXXXX)
# The server refuses to run as root: as root, the cluster belongs to the `postgres` user.
as=()
if [[ $(id -u) -eq 0 ]]; then
  chown postgres: "$dir"
  as=(runuser -u postgres --)
fi
stop() {
  "${as[@]}" "$bin/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
  rm -rf "$dir"
}
trap stop EXIT

"${as[@]}" "$bin/initdb" -D "$dir/data" -U countersign --auth=trust --no-sync -E UTF8 \
  --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; exit 1; }
# A socket in the cluster's folder, no TCP; fsync off (a test's cluster is thrown away).
"${as[@]}" "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
  -o "-k $dir -c listen_addresses= -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
  start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
# The socket's folder must be reachable by the test's user.
chmod 755 "$dir"

export PGHOST=$dir PGUSER=countersign PGDATABASE=postgres
export COUNTERSIGN_TEST_POSTGRES="postgres://countersign@localhost/postgres?host=$dir"
"$@"

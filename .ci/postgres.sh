#!/usr/bin/env bash
# Sourced by .ci/test.sh: makes sure a PostgreSQL server is there for the storage tests
# and exports PALMAPLAN_TEST_POSTGRES (an admin URL; each test creates its own database).
# Given PALMAPLAN_TEST_POSTGRES already, it uses that server and starts nothing.
# Otherwise it installs Debian's postgresql if needed and starts a private throw-away
# cluster on a free loopback port, stopped when the test command exits.
if [ -n "${PALMAPLAN_TEST_POSTGRES:-}" ]; then
  echo "using the PostgreSQL server given in PALMAPLAN_TEST_POSTGRES"
  return 0
fi
pgbin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
if [ -z "$pgbin" ] || [ ! -x "$pgbin/initdb" ]; then
  echo "installing Debian's postgresql"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  pgbin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
fi
pgdir=$(mktemp -d /tmp/palmaplan-pg.XXXXXX)
chmod 755 "$pgdir"
pgport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
# PostgreSQL refuses to run as root: run the cluster as the postgres user when we are root.
as_pg=()
if [ "$(id -u)" = 0 ]; then
  id postgres >/dev/null 2>&1 || useradd --system --no-create-home postgres
  chown postgres "$pgdir"
  as_pg=(runuser -u postgres --)
fi
"${as_pg[@]}" "$pgbin/initdb" -D "$pgdir/data" -A trust -U palmaplan >/dev/null
"${as_pg[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -l "$pgdir/log" -w \
  -o "-p $pgport -k $pgdir -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
stop_postgres() { "${as_pg[@]}" "$pgbin/pg_ctl" -D "$pgdir/data" -m fast stop >/dev/null 2>&1 || true; rm -rf "$pgdir"; }
trap stop_postgres EXIT
export PALMAPLAN_TEST_POSTGRES="postgres://palmaplan@127.0.0.1:$pgport/postgres"
echo "PostgreSQL $("$pgbin/postgres" --version | awk '{print $3}') started on 127.0.0.1:$pgport"

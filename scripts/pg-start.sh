# Sourced: starts a throwaway PostgreSQL cluster on 127.0.0.1 (a temp directory, trust auth, run as the
# `postgres` OS user when root, since postgres refuses to run as root) and exports DATABASE_URL and
# `pg_stop` (stops the server and removes the directory). Installs PostgreSQL with apt when absent.
PGPORT="${PGPORT:-54329}"
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1; }
if [ -z "$(pg_bin)" ] || [ ! -x "$(pg_bin)/initdb" ]; then
  echo "pg-start: installing PostgreSQL with apt" >&2
  apt-get update -q >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql </dev/null >&2
fi
PGBIN="$(pg_bin)"
PGDATA_DIR="$(mktemp -d -t pgdata.XXXXXX)"
if [ "$(id -u)" = 0 ]; then
  chown postgres:postgres "$PGDATA_DIR"
  pg_as() { runuser -u postgres -- "$@"; }
else
  pg_as() { "$@"; }
fi
pg_as "$PGBIN/initdb" -D "$PGDATA_DIR" -U postgres --auth=trust -E UTF8 --no-locale >/dev/null
pg_as "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -l "$PGDATA_DIR/server.log" -w -t 60 \
  -o "-c listen_addresses=127.0.0.1 -p $PGPORT -k $PGDATA_DIR -c fsync=off -c max_connections=200" start >/dev/null
export PGDATA_DIR DATABASE_URL="postgres://postgres@127.0.0.1:${PGPORT}/postgres"
pg_stop() { pg_as "$PGBIN/pg_ctl" -D "$PGDATA_DIR" -m fast -w stop >/dev/null 2>&1 || true; rm -rf "$PGDATA_DIR"; }

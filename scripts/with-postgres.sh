#!/usr/bin/env bash
# Runs a command with a throwaway PostgreSQL server on 127.0.0.1 and DATABASE_URL pointing at it, then
# stops the server: `scripts/with-postgres.sh pnpm exec vitest run --project session-store-postgres`.
# PGPORT picks the port (default 54329). Needs PostgreSQL installed, or root to install it with apt.
set -euo pipefail
. "$(dirname "$0")/pg-start.sh"
trap pg_stop EXIT
"$@"

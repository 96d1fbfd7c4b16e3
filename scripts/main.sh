#!/usr/bin/env bash
# The main job on embedded defaults: offline, no API key. Installs pnpm and the dependencies, builds every
# package, and runs `arbor tour` from the built CLI: a scripted session through the real harness, coding
# tools (in a temporary folder) and session store ($ARBOR_HOME, else ~/.arbor) — tool calls, compaction, a
# label, a branch summary — then the session tree and how to continue it with a real model.
# Arguments are passed to the tour (e.g. `--pace 0`).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
pnpm exec turbo run build --output-logs=errors-only >&2
exec node apps/cli/dist/arbor.js tour "$@"

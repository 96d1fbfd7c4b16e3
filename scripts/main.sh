#!/usr/bin/env bash
# The main job on embedded defaults: offline, no API key. Installs pnpm and the dependencies, builds every
# package, and runs `arbor tour` from the built CLI: a scripted session through the real harness, coding
# tools (in a temporary folder) and session store ($ARBOR_HOME, else ~/.arbor) — tool calls, compaction, a
# label, a branch summary — then the session tree and how to continue it with a real model.
# Arguments are passed to the tour (e.g. `--pace 0`). Afterwards `scripts/arbor` runs the built CLI.
# The first run on a fresh clone takes about two minutes (installing, then building); later runs seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
step() { echo "main.sh: $*" >&2; }
if [ -d node_modules/.pnpm ]; then
  step "1/3 checking the dependencies"
else
  step "1/3 installing pnpm and the dependencies (first run: about a minute)"
fi
. scripts/bootstrap.sh
if [ -f apps/cli/dist/arbor.js ]; then
  step "2/3 building the packages (only what changed)"
else
  step "2/3 building the packages (first run: about a minute)"
fi
pnpm exec turbo run build --output-logs=errors-only >&2
step "3/3 ready in $((SECONDS - started)) s; the tour (\`scripts/arbor\` runs this CLI from the clone):"
ARBOR_COMMAND="$PWD/scripts/arbor" exec node apps/cli/dist/arbor.js tour "$@"

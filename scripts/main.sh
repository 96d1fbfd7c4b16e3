#!/usr/bin/env bash
# The main job on embedded defaults: offline, no API key. Installs pnpm and the dependencies, builds
# every package, and runs the minimal example against the built output.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/bootstrap.sh
pnpm exec turbo run build --output-logs=errors-only >&2
exec pnpm exec tsx examples/01-minimal.ts "$@"

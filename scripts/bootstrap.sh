# Sourced by scripts/main.sh and .ci/run: installs the pinned pnpm (with npm, which Node 20 ships)
# and the workspace's dependencies from the lockfile. Idempotent; about a second when already done.
PNPM_VERSION="$(node -p "require('./package.json').packageManager.replace(/^pnpm@/, '').split('+')[0]")"
export TURBO_TELEMETRY_DISABLED=1 DO_NOT_TRACK=1
export npm_config_nodedir="${npm_config_nodedir:-/usr}"   # node-gyp builds against the local headers
if [ "$(pnpm --version 2>/dev/null)" != "$PNPM_VERSION" ]; then
  echo "bootstrap: installing pnpm@$PNPM_VERSION with npm" >&2
  npm install --global --no-fund --no-audit --loglevel=error "pnpm@$PNPM_VERSION" </dev/null >&2
  hash -r
fi
if ! pnpm install --frozen-lockfile --reporter=silent </dev/null; then
  # The silent reporter hides why: say it (an outdated lockfile, no registry), then fail.
  echo "bootstrap: installing the locked dependencies failed:" >&2
  pnpm install --frozen-lockfile --reporter=append-only </dev/null >&2 || true
  return 1 2>/dev/null || exit 1
fi

#!/usr/bin/env bash
# e2e/run.sh — the acceptance run in one command, from a fresh clone: installs the npm
# packages when node_modules is missing or older than package-lock.json (npm ci),
# builds the server (cargo build -p palmaplan-server --locked, into $CARGO_TARGET_DIR or
# target/), installs Debian's chromium when /usr/bin/chromium is missing (never a
# downloaded browser), installs trunk for the debug build's console test, makes the
# Python venv of the OAuth test (e2e/oauth/venv.sh), then runs the tests (all of
# e2e/tests/, or the files given).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(dirname "$HERE")"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
start=$(date +%s)

cd "$HERE"
stamp=node_modules/.e2e-lock.sha256
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [ ! -d node_modules ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "e2e: npm ci"
  npm ci --no-audit --no-fund
  echo "$want" > "$stamp"
fi

echo "e2e: cargo build -p palmaplan-server --locked (CARGO_TARGET_DIR=$CARGO_TARGET_DIR)"
(cd "$ROOT" && cargo build -p palmaplan-server --locked)
export PALMAPLAN_BIN="$CARGO_TARGET_DIR/debug/palmaplan"

export CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "e2e: installing Debian's chromium"
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update
  $SUDO apt-get install -y chromium
fi

# The console test of the view's debug build (tests/25-trunk-console) runs it under
# `trunk serve`: trunk 0.21.14 from crates.io, built once (~7 minutes), in cargo's own
# temporary target folder rather than the project's.
if ! trunk --version 2>/dev/null | grep -q "0\.21\.14"; then
  echo "e2e: cargo install trunk --version 0.21.14 --locked"
  env -u CARGO_TARGET_DIR cargo install trunk --version 0.21.14 --locked
fi

# The OAuth test's real client: the MCP Python SDK in a venv under e2e/ (skipped when
# it is there and up to date).
PALMAPLAN_OAUTH_PYTHON="$(bash "$HERE/oauth/venv.sh")"
export PALMAPLAN_OAUTH_PYTHON

echo "e2e: tests"
status=0
if [ "$#" -gt 0 ]; then
  node --test --test-concurrency=1 "$@" || status=$?
else
  node --test --test-concurrency=1 tests/ || status=$?
fi
echo "e2e: done in $(( $(date +%s) - start )) s (exit $status)"
exit $status

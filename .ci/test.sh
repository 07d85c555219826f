#!/usr/bin/env bash
# PalmaPlan's one test command: installs what the checks need (skipping what is already
# there), then runs every check and test. CI runs exactly this (see .ci/run); it must pass
# on a fresh machine as well as on one that ran it before.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

# --- installs (each one checks first, so a second run costs nothing) -------------------
step "toolchain"
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
for c in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$c"; then rustup component add "$c"; fi
done
# Node runs the view's packer (binaryen's wasm2js, esbuild) and the browser tests.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
  apt-get update && apt-get install -y nodejs npm
fi

# --- static checks --------------------------------------------------------------------
step "cargo fmt --check"
cargo fmt --all -- --check

step "cargo clippy -D warnings"
cargo clippy --workspace --all-targets --locked -- -D warnings

step "the model crate is pure"
# The model is compiled into the wasm view: it may depend on serde and serde_json, and on
# unicode-normalization (Unicode's tables, for the filter's fold) with its tinyvec, only.
# `cargo tree` lists what it really pulls in (not what its manifest claims).
deps=$(cargo tree -p palmaplan-model -e normal --prefix none --locked | awk '{print $1}' | sort -u)
allowed='^(palmaplan-model|serde|serde_core|serde_derive|serde_json|itoa|memchr|ryu|zmij|proc-macro2|quote|syn|unicode-ident|unicode-normalization|tinyvec)$'
if bad=$(printf '%s\n' "$deps" | grep -Ev "$allowed"); then
  echo "palmaplan-model pulls in crates it must not (IO, async, clock or randomness?):"
  printf '  %s\n' $bad
  exit 1
fi

step "the view page is built from its sources (wasm32, wasm2js, one HTML file within budget)"
# Installs the wasm-bindgen CLI and the npm build tools if missing; fails when the
# committed view-wasm/dist differs from what the sources give.
bash view-wasm/build.sh --check

# --- tests ----------------------------------------------------------------------------
step "PostgreSQL for the storage tests"
# shellcheck source=postgres.sh
source .ci/postgres.sh

step "unit and integration tests"
cargo test --workspace --locked

step "hostile input against the release build"
# The same test as in the suite above, on the optimised binary, whose stack frames
# differ: 100,000 levels of nesting must still be refused without a crash.
cargo test --release --locked -p palmaplan-server --test hostile

step "browser tests: the MCP Apps test host in Debian's Chromium (e2e/)"
# Installs the npm packages and Chromium if missing, builds the server, runs e2e/tests.
bash e2e/run.sh

step "all checks passed"

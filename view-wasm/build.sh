#!/usr/bin/env bash
# Builds the view into ONE self-contained HTML file, view-wasm/dist/planning.html, and its
# manifest (sizes raw and gzip -9, SHA-256), which the server embeds. Installs what it
# needs first (wasm target, the wasm-bindgen CLI of the version in Cargo.lock, the npm
# build tools), skipping what is there. `--check` then fails when the committed files
# differ from what the sources give (CI runs it that way).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
check=0
[[ "${1:-}" == "--check" ]] && check=1

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
# The CLI must be exactly the wasm-bindgen crate's version (their schemas must match).
want=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/version = |"/, ""); print; exit}' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [[ "$have" != "$want" ]]; then
  echo "installing wasm-bindgen-cli $want (found: ${have:-none}); a few minutes"
  # Not --locked: one of its locked dependencies is missing from the registry.
  cargo install wasm-bindgen-cli --version "$want"
fi
if [[ ! -x view-wasm/node_modules/.bin/wasm-opt || view-wasm/package-lock.json -nt view-wasm/node_modules/.package-lock.json ]]; then
  (cd view-wasm && npm ci --no-audit --no-fund)
fi

# Its own target dir: the flags differ from every other build (no reference types for
# wasm2js; paths remapped so that the output does not depend on where the checkout is).
target="${CARGO_TARGET_DIR:-$root/target}/view"
cargo_home="${CARGO_HOME:-$HOME/.cargo}"
RUSTFLAGS="--remap-path-prefix=$root=/palmaplan --remap-path-prefix=$cargo_home=/cargo -C target-feature=-reference-types,-multivalue" \
  CARGO_TARGET_DIR="$target" \
  cargo build -p palmaplan-view --target wasm32-unknown-unknown --profile view --locked

node view-wasm/pack/pack.mjs "$target/wasm32-unknown-unknown/view/palmaplan_view.wasm" "$target/pack"

if (( check )); then
  if ! git diff --quiet -- view-wasm/dist || [[ -n "$(git status --porcelain -- view-wasm/dist)" ]]; then
    echo "view-wasm/dist differs from what the sources build:"
    git status --short -- view-wasm/dist
    echo "run 'bash view-wasm/build.sh' and commit view-wasm/dist"
    exit 1
  fi
  echo "view-wasm/dist matches the sources"
fi

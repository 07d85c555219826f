#!/usr/bin/env bash
# e2e/oauth/venv.sh — the Python venv of the OAuth SDK test (e2e/.venv-oauth, inside the
# checkout, ignored by git), made with python3 -m venv and PyPI's packages listed in
# requirements.txt beside this file. Skipped when it is there and its stamp matches
# requirements.txt. Prints the venv's python.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VENV="$(dirname "$HERE")/.venv-oauth"
want="$(sha256sum "$HERE/requirements.txt" | cut -d' ' -f1)"
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.stamp" 2>/dev/null)" != "$want" ]; then
  echo "e2e: python venv for the OAuth SDK test ($VENV)" >&2
  rm -rf "$VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/requirements.txt" >&2
  echo "$want" > "$VENV/.stamp"
fi
echo "$VENV/bin/python"

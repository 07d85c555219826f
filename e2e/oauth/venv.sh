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
  # Debian ships venv apart from python3 (python3-venv): installed when missing, as
  # run.sh does for chromium.
  if ! command -v python3 >/dev/null || ! python3 -c "import ensurepip, venv" 2>/dev/null; then
    echo "e2e: installing Debian's python3-venv" >&2
    SUDO=""
    [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update >&2
    $SUDO apt-get install -y python3 python3-venv >&2
  fi
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check -r "$HERE/requirements.txt" >&2
  echo "$want" > "$VENV/.stamp"
fi
echo "$VENV/bin/python"

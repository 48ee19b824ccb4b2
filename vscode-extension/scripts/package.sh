#!/usr/bin/env bash
# Packages the extension. Usage: scripts/package.sh [--no-build] [TARGET ...]
#   no TARGET or "universal": easel-ls-<version>.vsix, no server inside (it needs easel-ls
#     installed, or easel-ls.server.path);
#   a VS Code target (linux-x64, darwin-arm64, win32-x64, ...): easel-ls-<target>-<version>.vsix
#     with the server and its dependencies in bundled/libs (scripts/bundle-server.py).
# --no-build: skip `npm run build` (the caller just ran it). PYTHON: the Python whose pip
# fetches the wheels (default: the repo's .venv, else python3).
set -euo pipefail
cd "$(dirname "$0")/.."
build=1
if [ "${1:-}" = --no-build ]; then build=0 && shift; fi
[ $# -gt 0 ] || set -- universal
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  [ -x ../.venv/bin/python ] && PYTHON=../.venv/bin/python
fi
vsce=(npx --no-install vsce package --allow-missing-repository --skip-license --no-rewrite-relative-links)

[ $build -eq 0 ] || npm run -s build
wheel=
for target in "$@"; do
  if [ "$target" = universal ]; then
    rm -rf bundled # another target's server must not end up in the universal package
    "${vsce[@]}"
    continue
  fi
  if [ -z "$wheel" ]; then
    wheels=$(mktemp -d)
    trap 'rm -rf "$wheels"' EXIT
    wheel=$("$PYTHON" scripts/bundle-server.py --build-wheel "$wheels")
  fi
  "$PYTHON" scripts/bundle-server.py --target "$target" --wheel "$wheel"
  "${vsce[@]}" --target "$target"
done

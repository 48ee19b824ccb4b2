#!/usr/bin/env bash
# Installs what the real-editor end-to-end tests need, then builds the VS Code extension:
#   apt  neovim 0.7.2, chromium, ripgrep + libkrb5-dev (code-server's native builds),
#        fonts-wqy-microhei (legible CJK in screenshots)
#   npm  code-server 4.100.3 and playwright-core 1.65.1, from the locks in tests/e2e/tools/,
#        into $EASEL_E2E_TOOLS (default ~/.cache/easel-ls-e2e, outside the repo)
#   vscode-extension: npm ci, strict tsc, esbuild, unit tests, vsce -> easel-ls-<version>.vsix
#   and easel-ls-linux-x64-<version>.vsix with the server inside (its wheels fetched by pip)
# Idempotent: installs are skipped when already done; only the .vsix is rebuilt (~5-10 s).
# A tool that cannot be installed is reported and left out (its e2e test then skips, saying why);
# a broken extension build fails the script.
set -uo pipefail
cd "$(dirname "$0")/.."
REPO=$(pwd)
TOOLS=${EASEL_E2E_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/easel-ls-e2e}
mkdir -p "$TOOLS"
STATUS="$TOOLS/status.txt"
exec 3>&2 # timings go to the console even when a step's own output goes to a log
: >"$STATUS"

note() { echo "e2e-setup: $*" | tee -a "$STATUS" >&3; }
timed() { # timed <label> <command...>: runs it, prints the seconds it took, returns its status
  local label=$1 start=$SECONDS rc=0
  shift
  "$@" || rc=$?
  echo "e2e-setup: $label $((SECONDS - start))s (rc=$rc)" >&3
  return $rc
}
# A stamp records the lock file an npm tree was installed from, so a changed lock reinstalls.
stamp_matches() { [ -f "$1/.installed-from" ] && cmp -s "$2" "$1/.installed-from"; }

# -- 1. Debian packages ----------------------------------------------------------------------
missing=()
command -v nvim >/dev/null || missing+=(neovim)
[ -x /usr/bin/chromium ] || missing+=(chromium)
command -v rg >/dev/null || missing+=(ripgrep)
[ -f /usr/include/gssapi/gssapi.h ] || missing+=(libkrb5-dev)
# A small CJK font, so the skills' Chinese text is legible in screenshots.
[ -d /usr/share/fonts/truetype/wqy ] || missing+=(fonts-wqy-microhei)
if [ ${#missing[@]} -gt 0 ]; then
  SUDO=
  [ "$(id -u)" -eq 0 ] || SUDO=$(command -v sudo || true)
  if [ "$(id -u)" -eq 0 ] || [ -n "$SUDO" ]; then
    timed apt-get-update $SUDO apt-get update -qq >/dev/null
    timed "apt-get-install ${missing[*]}" env DEBIAN_FRONTEND=noninteractive \
      $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null ||
      note "apt-get could not install: ${missing[*]}"
  else
    note "not root and no sudo: cannot install ${missing[*]}"
  fi
fi

# -- 2. code-server (VS Code 1.100.3) --------------------------------------------------------
CS="$TOOLS/code-server"
CS_LOCK="$REPO/tests/e2e/tools/code-server/package-lock.json"
if [ -x "$CS/node_modules/.bin/code-server" ] && stamp_matches "$CS" "$CS_LOCK"; then
  :
elif ! command -v rg >/dev/null || [ ! -f /usr/include/gssapi/gssapi.h ]; then
  note "code-server not installed: needs ripgrep and libkrb5-dev"
else
  rm -rf "$CS" && mkdir -p "$CS"
  cp "$REPO/tests/e2e/tools/code-server/package.json" "$CS_LOCK" "$CS/"
  # @vscode/ripgrep's postinstall downloads rg from GitHub; a cached asset short-circuits it,
  # so seed the cache with Debian's rg (the names follow code-server's pinned @vscode/ripgrep).
  tmp=${TMPDIR:-/tmp}
  mkdir -p "$tmp/easel-rgpkg" "$tmp/vscode-ripgrep-cache-1.15.11"
  cp "$(command -v rg)" "$tmp/easel-rgpkg/rg"
  tar czf "$tmp/vscode-ripgrep-cache-1.15.11/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" \
    -C "$tmp/easel-rgpkg" rg
  # unsafe_perm: postinstall.sh refuses root otherwise; yes: node-pty runs `npx node-gyp`;
  # nodedir: node-gyp would fetch Node headers from nodejs.org.
  nodedir=$(npm config get nodedir 2>/dev/null || true)
  if [ -z "$nodedir" ] || [ "$nodedir" = undefined ] || [ "$nodedir" = null ]; then
    [ -f /usr/include/node/node.h ] && export npm_config_nodedir=/usr
  fi
  if (cd "$CS" && timed npm-ci-code-server env npm_config_unsafe_perm=true npm_config_yes=true \
    npm ci --no-audit --no-fund -s >"$CS/install.log" 2>&1) &&
    "$CS/node_modules/.bin/code-server" --config "$CS/config.yaml" --version >/dev/null 2>&1; then
    cp "$CS_LOCK" "$CS/.installed-from"
  else
    note "code-server could not be installed (log: $CS/install.log)"
  fi
fi

# -- 3. playwright-core (drives Debian's chromium; `playwright install` is never run) ---------
DRIVER="$TOOLS/driver"
DRIVER_LOCK="$REPO/tests/e2e/tools/driver/package-lock.json"
if ! stamp_matches "$DRIVER" "$DRIVER_LOCK"; then
  rm -rf "$DRIVER" && mkdir -p "$DRIVER"
  cp "$REPO/tests/e2e/tools/driver/package.json" "$DRIVER_LOCK" "$DRIVER/"
  if (cd "$DRIVER" && timed npm-ci-playwright-core npm ci --no-audit --no-fund -s \
    >"$DRIVER/install.log" 2>&1); then
    cp "$DRIVER_LOCK" "$DRIVER/.installed-from"
  else
    note "playwright-core could not be installed (log: $DRIVER/install.log)"
  fi
fi

# -- 4. the extension: npm ci, typecheck, bundle, package -------------------------------------
EXT="$REPO/vscode-extension"
if ! command -v npm >/dev/null; then
  note "npm not found: the VS Code extension was not built"
  exit 0
fi
if ! stamp_matches "$EXT/node_modules" "$EXT/package-lock.json"; then
  (cd "$EXT" && timed npm-ci-extension npm ci --no-audit --no-fund -s) || exit 1
  cp "$EXT/package-lock.json" "$EXT/node_modules/.installed-from"
fi
(cd "$EXT" && timed build-vsix npm run -s package) || exit 1
# -- 5. the linux-x64 package: the server and its wheels in bundled/libs (pip's cache keeps it quick)
(cd "$EXT" && timed build-vsix-linux-x64 bash scripts/package.sh --no-build linux-x64 >/dev/null) ||
  exit 1
ls "$EXT"/easel-ls-*.vsix >&2
exit 0

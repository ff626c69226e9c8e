#!/usr/bin/env bash
# Installs what the in-VS-Code test suite needs on a machine with no internet beyond npm and
# Debian: Chromium, and the VS Code 1.100 server carried by the code-server@4.100.3 npm package
# (newer code-server needs Node 24). The server is cached outside the repository and the whole
# step is skipped when the cache is complete. See ../shared/TESTING.md section 1.
set -euo pipefail

CODE_SERVER_VERSION=4.100.3
CACHE_ROOT="${TASKLOOM_CACHE:-${HOME}/.cache/taskloom}"
TARGET="${CACHE_ROOT}/vscode-server-${CODE_SERVER_VERSION}"
DONE_MARKER="${TARGET}/.installed"

need_apt=()
command -v chromium >/dev/null || need_apt+=(chromium)
command -v rg >/dev/null || need_apt+=(ripgrep)
dpkg -s libkrb5-dev >/dev/null 2>&1 || need_apt+=(libkrb5-dev)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "installing Debian packages: ${need_apt[*]}"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ -f "$DONE_MARKER" ]; then
  echo "VS Code server ${CODE_SERVER_VERSION}: cached at ${TARGET}"
  exit 0
fi

echo "VS Code server ${CODE_SERVER_VERSION}: installing into ${TARGET} (once; a few minutes)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "code-server@${CODE_SERVER_VERSION}" >/dev/null && tar xzf "code-server-${CODE_SERVER_VERSION}.tgz")
vscode="$work/package/lib/vscode"
(
  cd "$vscode"
  # Install scripts off: @vscode/ripgrep would download its binary from GitHub; Debian's rg stands in.
  npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
  mkdir -p node_modules/@vscode/ripgrep/bin && ln -sf "$(command -v rg)" node_modules/@vscode/ripgrep/bin/rg
  npm_config_yes=true npm rebuild --loglevel=error >/dev/null
  ln -sfn node_modules node_modules.asar
  cd extensions && npm install --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error
)
rm -rf "$TARGET"
mkdir -p "$CACHE_ROOT"
mv "$vscode" "$TARGET"
touch "$DONE_MARKER"
echo "VS Code server ${CODE_SERVER_VERSION}: ready"

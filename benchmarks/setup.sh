#!/usr/bin/env bash
# Installs the benchmark's peers (capture-website, browserless) without downloading any browser:
# both are pointed at the system Chromium (CAPTURE_CHROMIUM_PATH, default /usr/bin/chromium).
# `.npmrc` here already disables install scripts and browser downloads; the variables below
# cover an npm that ignores the project .npmrc.
set -euo pipefail
cd "$(dirname "$0")"
export PUPPETEER_SKIP_DOWNLOAD=true PUPPETEER_SKIP_CHROMIUM_DOWNLOAD=true
export npm_config_ignore_scripts=true
if [ -f package-lock.json ]; then npm ci --no-audit --no-fund; else npm install --no-audit --no-fund; fi
chromium="${CAPTURE_CHROMIUM_PATH:-/usr/bin/chromium}"
if [ ! -x "$chromium" ]; then
  echo "warning: no Chromium at $chromium; install it (Debian: apt-get install chromium) or set CAPTURE_CHROMIUM_PATH" >&2
fi
if [ ! -f ../dist/src/index.js ]; then
  echo "note: ../dist is missing; run 'npm run build' at the repository root, or library/http will be skipped" >&2
fi

#!/usr/bin/env bash
# Installs the benchmark's peers (capture-website, browserless) without downloading any browser:
# both are pointed at the system Chromium (CAPTURE_CHROMIUM_PATH, default /usr/bin/chromium).
# Then fetches the real-pages benchmark's pages (see below).
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
# The real-pages benchmark's pages: Debian documentation packages, downloaded and unpacked into
# test/.artifacts/real-pages/, never installed (installing nodejs-doc would remove Node).
# python3.11-doc, not python3-doc: python3-doc only holds symlinks to python3.11-doc's pages.
if ! bash ../scripts/fetch-real-pages.sh nodejs-doc python3.11-doc python-django-doc debian-reference-en; then
  echo "warning: could not fetch the real pages (apt-get download); real-pages/real-pages.js will say what is missing" >&2
fi
if [ ! -f ../dist/src/index.js ]; then
  echo "note: ../dist is missing; run 'npm run build' at the repository root, or library/http will be skipped" >&2
fi

#!/usr/bin/env bash
# Installs everything capture-engine needs on a fresh Debian machine, then builds it.
# Idempotent and non-interactive: system packages only when missing, npm dependencies from the lock file.
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

missing=()
# The headless shell is what captures run on (a third of the full browser's CPU per capture); the
# full chromium stays for the benchmarks' floor and for anyone who points CAPTURE_CHROMIUM_PATH at it.
[ -x /usr/bin/chromium ] || command -v chromium >/dev/null 2>&1 || [ -n "${CAPTURE_CHROMIUM_PATH:-}" ] || missing+=(chromium)
[ -x /usr/lib/chromium/chromium-headless-shell ] || [ -n "${CAPTURE_CHROMIUM_PATH:-}" ] || missing+=(chromium-headless-shell)
command -v ffmpeg >/dev/null 2>&1 || [ -n "${CAPTURE_FFMPEG_PATH:-}" ] || missing+=(ffmpeg)
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
# pdf_a is made by Ghostscript (with its sRGB profile), pdf_password by qpdf.
command -v gs >/dev/null 2>&1 || [ -n "${CAPTURE_GHOSTSCRIPT_PATH:-}" ] || missing+=(ghostscript)
command -v qpdf >/dev/null 2>&1 || [ -n "${CAPTURE_QPDF_PATH:-}" ] || missing+=(qpdf)
# PDFs are checked with poppler's pdfinfo and pdftotext in the tests.
command -v pdfinfo >/dev/null 2>&1 || missing+=(poppler-utils)
# The pdf_sign tests make their signing certificate with openssl.
command -v openssl >/dev/null 2>&1 || missing+=(openssl)
# The Helm chart's test renders it with Helm's template engine: Go's text/template and Sprig, built
# from Debian's packages (no Helm download).
command -v go >/dev/null 2>&1 || missing+=(golang-go)
[ -d /usr/share/gocode/src/github.com/Masterminds/sprig ] || missing+=(golang-github-masterminds-sprig-dev)
[ -d /usr/share/gocode/src/sigs.k8s.io/yaml ] || missing+=(golang-k8s-sigs-yaml-dev)
# EasyList and EasyPrivacy for offline ad blocking ship with Debian's uBlock Origin package.
[ -d /usr/share/chromium/extensions/ublock-origin ] || [ -d /usr/share/webext/ublock-origin ] || missing+=(webext-ublock-origin-chromium)
# Read once into a variable: `fc-list | grep -q` fails under pipefail whenever grep quits before
# fc-list has written everything (SIGPIPE), and the fonts were installed again on every run.
fonts=$(fc-list 2>/dev/null || true)
grep -qi 'dejavu\|liberation' <<<"$fonts" || missing+=(fonts-dejavu-core fonts-liberation)
# Emoji and CJK text render as empty boxes without fonts that have their glyphs.
grep -qi 'Noto Color Emoji' <<<"$fonts" || missing+=(fonts-noto-color-emoji)
grep -qi 'Noto Sans CJK' <<<"$fonts" || missing+=(fonts-noto-cjk)

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  if [ "$(id -u)" -eq 0 ]; then sudo=""; else sudo="sudo"; fi
  $sudo apt-get update -qq
  # --no-remove: a package that would take the machine's Node.js away fails instead.
  $sudo apt-get install -y -qq --no-install-recommends --no-remove "${missing[@]}"
fi

# As root, the engine runs Chromium as this unprivileged user, so that Chromium's sandbox can be on.
if [ "$(id -u)" -eq 0 ] && ! id capture-browser >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin capture-browser
fi

# Downloads that need nothing npm ci installs run meanwhile, each with its log shown once it is done:
# Node 22, 24 and 26 besides this machine's, which `npm test` also runs on (scripts/node-lines.mjs):
# official binaries from the npm registry's `node` package in .node-lines/, each installed once;
# real documentation pages the fidelity tests capture (downloaded, unpacked, never installed).
logs=$(mktemp -d)
# A failed step leaves no download running behind it.
trap 'jobs -p | xargs -r kill 2>/dev/null; rm -rf "$logs"' EXIT
node scripts/node-lines.mjs install >"$logs/node-lines" 2>&1 &
node_lines=$!
bash scripts/fetch-real-pages.sh nodejs-doc pdfjs=libjs-pdf,pdf.js-common >"$logs/real-pages" 2>&1 &
real_pages=$!

# Never download a browser: the system Chromium is used.
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
# `npm ci` installs exactly what package-lock.json records and never rewrites it, so a fresh clone
# stays clean. Its lock check demands every platform's optional packages; the lock lists them all
# because package.json "overrides" pins rollup and unrs-resolver to versions whose platform
# packages the registry mirror holds for every platform.
npm ci --no-audit --no-fund
# The build `npm test` then uses as it is (scripts/build-once.mjs), unless something changed since.
node scripts/build-once.mjs
for job in node-lines:$node_lines real-pages:$real_pages; do
  status=0
  wait "${job#*:}" || status=$?
  cat "$logs/${job%%:*}"
  [ "$status" -eq 0 ] || { echo "setup: ${job%%:*} failed ($status)" >&2; exit "$status"; }
done
echo "setup: done ($(chromium --version 2>/dev/null || echo chromium), $(ffmpeg -version 2>/dev/null | head -1 | cut -d' ' -f1-3))"

#!/usr/bin/env bash
# Real pages nobody here wrote, for the fidelity tests and the "real pages" benchmark: Debian's
# documentation packages, downloaded with `apt-get download` and unpacked with `dpkg -x`, never
# installed (installing nodejs-doc would remove the machine's Node). Idempotent; offline once done.
#   scripts/fetch-real-pages.sh [PACKAGE | NAME=PACKAGE,PACKAGE...]...   (default: nodejs-doc)
# NAME=... unpacks several packages into one tree NAME, so the relative symlinks between them resolve
# (pdf.js's viewer in libjs-pdf links its images and locale in pdf.js-common).
# The benchmark (benchmarks/setup.sh, benchmarks/real-pages/real-pages.js) uses nodejs-doc python3.11-doc
# python-django-doc debian-reference-en (python3-doc only holds symlinks to python3.11-doc's pages).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=test/.artifacts/real-pages
trees=("$@")
[ ${#trees[@]} -gt 0 ] || trees=(nodejs-doc)
mkdir -p "$dest/debs"
for tree in "${trees[@]}"; do
  name=${tree%%=*}
  IFS=, read -r -a packages <<<"${tree#*=}"
  [ -d "$dest/$name" ] && continue
  rm -rf "$dest/$name.partial"
  for package in "${packages[@]}"; do
    ( cd "$dest/debs" && { apt-get download -qq "$package" 2>/dev/null || { apt-get update -qq && apt-get download -qq "$package"; }; } )
    dpkg -x "$dest"/debs/"${package}"_*.deb "$dest/$name.partial"
    rm -f "$dest"/debs/"${package}"_*.deb
  done
  mv "$dest/$name.partial" "$dest/$name"
done

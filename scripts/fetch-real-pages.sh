#!/usr/bin/env bash
# Real pages nobody here wrote, for the fidelity tests and the "real pages" benchmark: Debian's
# documentation packages, downloaded with `apt-get download` and unpacked with `dpkg -x`, never
# installed (installing nodejs-doc would remove the machine's Node). Idempotent; offline once done.
#   scripts/fetch-real-pages.sh [PACKAGE...]   (default: nodejs-doc)
# The benchmark (benchmarks/setup.sh, benchmarks/real-pages/real-pages.js) uses nodejs-doc python3.11-doc
# python-django-doc debian-reference-en (python3-doc only holds symlinks to python3.11-doc's pages).
set -euo pipefail
cd "$(dirname "$0")/.."
dest=test/.artifacts/real-pages
packages=("$@")
[ ${#packages[@]} -gt 0 ] || packages=(nodejs-doc)
mkdir -p "$dest/debs"
for package in "${packages[@]}"; do
  [ -d "$dest/$package" ] && continue
  ( cd "$dest/debs" && { apt-get download -qq "$package" 2>/dev/null || { apt-get update -qq && apt-get download -qq "$package"; }; } )
  dpkg -x "$dest"/debs/"${package}"_*.deb "$dest/$package.partial"
  mv "$dest/$package.partial" "$dest/$package"
  rm -f "$dest"/debs/"${package}"_*.deb
done

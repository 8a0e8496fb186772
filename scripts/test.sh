#!/usr/bin/env bash
# `npm test`: the whole suite on this machine's Node, then the unit project and the smoke set on
# Node 22, 24 and 26 (scripts/node-lines.mjs). Arguments go to vitest, which then runs on this Node alone.
set -euo pipefail
cd "$(dirname "$0")/.."
vitest run "$@"
[ $# -gt 0 ] || node scripts/node-lines.mjs test

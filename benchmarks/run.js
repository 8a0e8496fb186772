#!/usr/bin/env node
// Entry point for `npm run bench` at the repository root: the static capture benchmark
// (static/static.js).
// Arguments are passed through, e.g. `npm run bench -- --quick`.
await import('./static/static.js');

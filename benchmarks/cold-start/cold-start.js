#!/usr/bin/env node
// Cold start: one screenshot by a process that starts from nothing, as a CLI user, a serverless
// function or a freshly scaled worker pays it, against the floor: a seven-line Playwright script
// (launch, newPage, goto, screenshot, close) on the same Chromium binary, the headless shell.
//
//   node benchmarks/cold-start/cold-start.js [--rounds=7] [--baseline=<another checkout>] [--node=<node binary>,...]
//   (from benchmarks/: npm run cold-start)
//
// Environment equivalents: BENCH_ROUNDS, BENCH_BASELINE; BENCH_HEADLESS_SHELL_PATH (default
// Debian's /usr/lib/chromium/chromium-headless-shell) is the binary of every contender. Tables to
// stdout, progress to stderr; the first table's header names the binary and its `--version`.
// `npm run build` first (in the baseline's checkout too).
//
// `--baseline` adds `cli-baseline` and `library-baseline`, the same two runs on the build of
// another checkout (an earlier commit, its own `npm run build`): before and after in the same
// interleaved rounds, where two runs of the suite apart differ by more than most changes.
//
// `--node` (BENCH_NODE) adds `floor@<major>`, `cli@<major>` and `library@<major>` for each Node
// binary named, e.g. `--node=.node-lines/24/node_modules/.bin/node` (what `npm run setup` installs):
// the same three runs on another Node line, in the same rounds, against the same floor.
//
// Method: a page server with a small page; each round runs, in an order that rotates from round
// to round, (1) `node floor-shot.mjs`, (2) `node dist/src/cli.js shot <url> -o <file> --width 1280
// --height 720 --allow-private-networks` and (3) `node library-shot.mjs`: createCaptureEngine() with
// its defaults, one capture, close(). Each is timed from spawn to exit; every output is checked to
// be a 1280x720 PNG. Medians of `rounds` rounds (at least 5), and the ratio of each median to the
// floor's. The library's run also reports, from inside, when the import, the engine, the first
// capture (and its phases) and close() were done.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { HEADLESS_SHELL_PATH as shell, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { ENGINE_ENTRY, missing, ROOT } from '../lib/dist.js';
import { html, startFixtureServer } from '../lib/fixture-server.js';
import { median, rotate } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';

const opts = readOptions(import.meta.url, { rounds: { env: 'BENCH_ROUNDS' }, baseline: { env: 'BENCH_BASELINE' }, node: { env: 'BENCH_NODE' } });
const rounds = Math.max(5, opts.number('rounds', 7));
const baseline = opts.text('baseline');
const here = path.dirname(fileURLToPath(import.meta.url));
const log = (...a) => console.error(...a);
const baselineEntry = baseline && path.resolve(baseline, 'dist/src/index.js');
/** The other Node lines: binary and the version it reports. */
const otherNodes = opts.list('node', '').map((binary) => {
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8' });
  if (run.status !== 0) {
    log(`--node: ${binary} does not run (${run.error?.message ?? run.stderr})`);
    process.exit(2);
  }
  return { binary: path.resolve(binary), version: run.stdout.trim() };
});
const notBuilt = missing() ?? (baselineEntry && missing(baselineEntry));
if (notBuilt) {
  log(notBuilt);
  process.exit(1);
}

const PAGE = '<!doctype html><html><head><title>cold</title></head><body style="margin:0;font-family:sans-serif;background:#f4f7fb"><h1 style="padding:40px;color:#10213a">A cold start</h1><p style="padding:0 40px">One screenshot from a process that starts from nothing.</p></body></html>';
const fixtures = await startFixtureServer({ '/page': html(PAGE) });
const url = fixtures.url('/page');
const scratch = await mkdtemp(path.join(os.tmpdir(), 'bench-cold-'));
const env = { ...process.env, CAPTURE_CHROMIUM_PATH: shell, BENCH_HEADLESS_SHELL_PATH: shell };

/** The CLI and the library of the build under `root`. */
const engineRuns = (root, entry) => ({
  cli: (out) => [path.join(root, 'dist/src/cli.js'), 'shot', url, '-o', out, '--width', '1280', '--height', '720', '--allow-private-networks'],
  library: (out) => [path.join(here, 'library-shot.mjs'), pathToFileURL(entry).href, url, out],
});
const baselineRuns = baseline ? engineRuns(path.resolve(baseline), baselineEntry) : undefined;
const floorRun = (out) => [path.join(here, 'floor-shot.mjs'), url, out];
const ownRuns = { floor: floorRun, ...engineRuns(ROOT, ENGINE_ENTRY) };
/** name → [node binary, arguments of an output file]. */
const CONTENDERS = {
  ...Object.fromEntries(Object.entries(ownRuns).map(([name, run]) => [name, [process.execPath, run]])),
  ...(baselineRuns ? { 'cli-baseline': [process.execPath, baselineRuns.cli], 'library-baseline': [process.execPath, baselineRuns.library] } : {}),
  ...Object.fromEntries(otherNodes.flatMap(({ binary, version }) => Object.entries(ownRuns).map(([name, run]) => [`${name}@${version.slice(1).split('.')[0]}`, [binary, run]]))),
};

/** Runs a contender once: wall ms from spawn to exit, and what it printed. */
function runOnce(name, out) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // Run from the root, so that the floor's `playwright-core` is the package's own.
    const [node, args] = CONTENDERS[name];
    const child = spawn(node, args(out), { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve({ ms: performance.now() - started, stdout }) : reject(new Error(`${name} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

async function checkPng(file) {
  const data = await readFile(file);
  const png = data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
  const [width, height] = [data.readUInt32BE(16), data.readUInt32BE(20)];
  if (!png || width !== 1280 || height !== 720) throw new Error(`${file}: not a 1280x720 PNG (${png ? `${width}x${height}` : 'no PNG signature'})`);
}

const names = Object.keys(CONTENDERS);
const samples = Object.fromEntries(names.map((name) => [name, []]));
const inside = [];
try {
  // One unmeasured run each: the page cache holds the binaries and modules, as on any machine that ran them once.
  for (const name of names) await runOnce(name, path.join(scratch, `warm-${name}.png`));
  for (let round = 0; round < rounds; round++) {
    for (const name of rotate(names, round)) {
      const out = path.join(scratch, `${name}-${round}.png`);
      const { ms, stdout } = await runOnce(name, out);
      await checkPng(out);
      samples[name].push(ms);
      if (name.startsWith('library')) inside.push({ name, ...JSON.parse(stdout.trim().split('\n').at(-1)) });
      log(`round ${round + 1}/${rounds} ${name}: ${Math.round(ms)} ms`);
    }
  }
} finally {
  await rm(scratch, { recursive: true, force: true });
  await fixtures.close();
}

const floor = median(samples.floor);
const fmt = (ms) => String(Math.round(ms));
const nodes = [`Node ${process.version}`, ...otherNodes.map(({ version }) => `@${version.slice(1).split('.')[0]}: Node ${version}`)].join(', ');
console.log(`## Cold start: one 1280x720 PNG from a fresh process (${rounds} interleaved rounds, ${os.cpus().length} cores, ${nodes})\n`);
console.log(`${binaryLines(Object.fromEntries(names.map((name) => [name, shell]))).join('\n')}\n`);
console.log(
  markdownTable(
    ['contender', 'median ms', 'min', 'max', 'ratio to floor (median)'],
    names.map((name) => [name, fmt(median(samples[name])), fmt(Math.min(...samples[name])), fmt(Math.max(...samples[name])), (median(samples[name]) / floor).toFixed(2)]),
  ),
);
const libraries = names.filter((name) => name.startsWith('library'));
const runsOf = (name) => inside.filter((run) => run.name === name);
const step = (name, key) => median(runsOf(name).map((run) => run.marks[key]));
const STEPS = [
  ['node started, script running', 'start'],
  ['import capture-engine', 'imported'],
  ['createCaptureEngine() (egress guard, browser launch, warm contexts)', 'created'],
  ['first capture', 'captured'],
  ['close()', 'closed'],
];
console.log('\n## The library\'s cold path, from inside (median ms since the process started: done at / took)\n');
console.log(
  markdownTable(
    ['step', ...libraries],
    STEPS.map(([label, key], i) => [label, ...libraries.map((name) => `${fmt(step(name, key))} / ${fmt(step(name, key) - (i === 0 ? 0 : step(name, STEPS[i - 1][1])))}`)]),
  ),
);
for (const name of libraries) {
  const phases = Object.keys(runsOf(name)[0]?.phases ?? {});
  console.log(`\nThe first capture's phases, ${name} (median ms): ` + phases.map((phase) => `${phase} ${median(runsOf(name).map((run) => run.phases[phase])).toFixed(1)}`).join(', '));
}

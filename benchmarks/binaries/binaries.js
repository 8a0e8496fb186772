#!/usr/bin/env node
// Chromium binaries (issue 49): the capture service and a bare Playwright loop, each on Debian's
// headless shell and on the full Chromium, in one run: latency at rest, throughput at 1, 2 and 4
// at once, memory at rest and at peak, and where memory and CPU go by process kind.
//
//   node benchmarks/binaries/binaries.js [--quick] [--binaries=shell,full] [--contenders=service,loop]
//        [--rounds=3] [--captures=40] [--rest=15] [--gap=1500] [--idle=3000] [--levels=1,2,4] [--page=simple]
//        [--shell-path=...] [--full-path=...]
//        [--concurrency=N] [--warm-contexts=N] [--engine-args=--flag,--flag=a,b] [--engine-options=JSON]
//        [--unguarded] [--loop-args=--flag,...] [--verbose]
//   (from benchmarks/: npm run binaries, npm run binaries:quick)
//
//   --quick           2 rounds, bursts of 12, 6 captures at rest (about 2-3 minutes); default 3, 40, 15.
//   --binaries        which binaries, in table order: `shell` (--shell-path, default
//                     BENCH_HEADLESS_SHELL_PATH or /usr/lib/chromium/chromium-headless-shell: what the
//                     engine finds by default), `full` (--full-path, default CAPTURE_CHROMIUM_PATH or
//                     /usr/bin/chromium), or name=/path/to/binary. A binary not found is skipped with a note.
//   --contenders      service (the engine behind its HTTP service), loop (bare Playwright); both by default.
//   --rounds          interleaved rounds; each has a memory reading at rest, rest/rounds captures at rest
//                     and one burst per level for every (binary, contender), the order rotating per round.
//   --captures        captures per burst (every level, every round).
//   --rest            captures at rest per (binary, contender) in all, --gap ms of idle before each.
//   --idle            ms of idle before the memory reading at rest (after waiting for a quiet tree).
//   --levels          concurrency of the bursts; the highest gets the peak RSS and the CPU breakdown.
//   --page            the fixture page (lib/fixture-pages.js: simple, heavy, images).
//   Engine variants (the service only): --concurrency, --warm-contexts (engine options of those names),
//   --engine-args (extra Chromium flags, browserArgs; split on commas before `--`, so
//   --disable-features=A,B stays one flag), --engine-options (JSON merged into createCaptureEngine's
//   options, e.g. '{"contextReuse":true}'), --unguarded (allowPrivateNetworks: no egress proxy; by
//   default the guard is on, as in production, with the fixture's address and port allowed);
//   `captureParams` in --engine-options are added to every request's query (e.g. '{"captureParams":{"settle":"false"}}').
//   --loop-args       extra Chromium flags for the loop (same splitting).
//   --verbose         the workers' stderr (and the engine's log lines) on stderr.
//
// Environment equivalents: BENCH_QUICK=1, BENCH_BINARIES, BENCH_CONTENDERS, BENCH_ROUNDS, BENCH_CAPTURES,
// BENCH_REST, BENCH_LEVELS, BENCH_PAGE, BENCH_ENGINE_ARGS, BENCH_ENGINE_OPTIONS, BENCH_VERBOSE=1.
// Tables to stdout, progress to stderr. `npm run build` at the root first (the service is dist/).
//
// Method: a page server in this process serves the page; each (binary, contender) runs in a worker
// process of its own (worker.js), all started at the start and set up one after the other, then
// warmed (3 captures and a burst at the highest level). The service is createCaptureEngine({
// executablePath }) with createCaptureHttp (one ENTERPRISE key, limits out of reach) on
// createNodeListener, driven over loopback from its worker: GET /api/v1/capture?url=&viewport_width=1280
// &viewport_height=720 (PNG), its HTTP client's CPU counting as node. The loop is playwright-core's
// chromium.launch({ executablePath }) (Playwright's defaults: no sandbox, as root), then per capture
// newContext({ viewport: 1280x720 }), newPage, goto (load), screenshot() (PNG), context.close(). As
// root the engine runs Chromium as another user with its sandbox on (zygotes, namespaces).
// Each round: every tree quiet, --idle ms, then RSS (VmRSS) and PSS (smaps_rollup) of every
// worker's tree, by process kind (process-kinds.js); then the captures at rest, one unit after the
// other (order rotating per capture), each after --gap ms of idle; then per level a burst of
// --captures captures per unit (order rotating), the tree quiet before each. Captures/s = completed
// / (first start to last end), median over rounds; peak RSS: the tree's summed VmRSS sampled every
// 100 ms during the top-level bursts, the highest; CPU: /proc ticks of every process of the tree
// before and after each top-level burst, by kind, reaped children included (a process that exits
// during the burst counts as its kind, as last seen by a 100 ms sampling; what was not seen of it,
// as its reaper's: renderer for a zygote's), summed over rounds / captures. The memory at rest reported is the
// round with the median tree RSS. Every capture at rest is checked to be a 1280x720 PNG. While one
// unit is measured the others sit idle, their browsers open. At the end every worker closes its
// browser; processes left in their trees 5 s later are killed (and listed).

import { fork } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { FULL_CHROMIUM_PATH, HEADLESS_SHELL_PATH } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { missing } from '../lib/dist.js';
import { startPageServer } from '../lib/fixture-pages.js';
import { ChildChannel } from '../lib/ipc.js';
import { cleanupOnSignal, once, startWatchdog } from '../lib/shutdown.js';
import { rotate } from '../lib/stats.js';
import { TreeSampler } from '../lib/tree-sampler.js';
import { waitQuiet } from '../lib/wait-quiet.js';
import { KindTicks, memoryByKind } from './process-kinds.js';
import { report } from './report.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const CONTENDERS = ['service', 'loop'];

// ------------------------------------------------------------------------------------ options
const opts = readOptions(import.meta.url, {
  quick: { flag: true, env: 'BENCH_QUICK' },
  binaries: { env: 'BENCH_BINARIES' },
  contenders: { env: 'BENCH_CONTENDERS' },
  rounds: { env: 'BENCH_ROUNDS' },
  captures: { env: 'BENCH_CAPTURES' },
  rest: { env: 'BENCH_REST' },
  gap: {},
  idle: {},
  levels: { env: 'BENCH_LEVELS' },
  page: { env: 'BENCH_PAGE' },
  'shell-path': {},
  'full-path': {},
  concurrency: {},
  'warm-contexts': {},
  'engine-args': { env: 'BENCH_ENGINE_ARGS' },
  'engine-options': { env: 'BENCH_ENGINE_OPTIONS' },
  unguarded: { flag: true },
  'loop-args': {},
  verbose: { flag: true, env: 'BENCH_VERBOSE' },
});
const QUICK = opts.flag('quick');
/** Chromium flags, comma-separated; a comma not followed by `--` stays in its flag. */
const flags = (text) => (text ? text.split(/,(?=--)/).map((s) => s.trim()).filter(Boolean) : []);
const whole = (name, value, min = 1) => {
  if (!(Number.isInteger(value) && value >= min)) throw new Error(`--${name} must be a whole number of at least ${min}`);
  return value;
};
const cfg = {
  quick: QUICK,
  rounds: whole('rounds', opts.number('rounds', QUICK ? 2 : 3)),
  captures: whole('captures', opts.number('captures', QUICK ? 12 : 40)),
  rest: whole('rest', opts.number('rest', QUICK ? 6 : 15)),
  gapMs: whole('gap', opts.number('gap', 1500), 0),
  idleMs: whole('idle', opts.number('idle', 3000), 0),
  levels: opts.list('levels', '1,2,4').map(Number),
  page: opts.text('page', 'simple'),
  width: 1280,
  height: 720,
  contenders: opts.list('contenders', CONTENDERS.join(',')),
  verbose: opts.flag('verbose'),
  engineOptions: {
    ...(opts.text('concurrency') !== undefined ? { concurrency: whole('concurrency', opts.number('concurrency')) } : {}),
    ...(opts.text('warm-contexts') !== undefined ? { warmContexts: whole('warm-contexts', opts.number('warm-contexts'), 0) } : {}),
    ...JSON.parse(opts.text('engine-options', '{}')),
    ...(opts.flag('unguarded') ? { unguarded: true } : {}),
  },
  engineArgs: flags(opts.text('engine-args')),
  loopArgs: flags(opts.text('loop-args')),
};
for (const l of cfg.levels) whole('levels', l);
for (const c of cfg.contenders) if (!CONTENDERS.includes(c)) throw new Error(`unknown contender ${c} (service, loop)`);
cfg.top = Math.max(...cfg.levels);
cfg.restPerRound = Math.ceil(cfg.rest / cfg.rounds);
const DEFAULT_PATHS = { shell: opts.text('shell-path', HEADLESS_SHELL_PATH), full: opts.text('full-path', FULL_CHROMIUM_PATH) };
cfg.binaries = opts.list('binaries', 'shell,full').map((entry) => {
  const [name, given] = entry.includes('=') ? entry.split(/=(.*)/s) : [entry, DEFAULT_PATHS[entry]];
  if (!given) throw new Error(`unknown binary ${name}: shell, full, or name=/path/to/chromium`);
  return { name, path: given };
});

const log = (...a) => console.error(...a);
const sampler = new TreeSampler({ intervalMs: 100 });

// ------------------------------------------------------------------------------------ workers
/** One (binary, contender) in a worker process: worker.js over lib/ipc.js. */
class Unit {
  constructor(binary, contender) {
    this.binary = binary;
    this.contender = contender;
    this.label = `${binary.name} ${contender}`;
    this.tail = [];
    this.child = fork(path.join(HERE, 'worker.js'), [], { cwd: path.resolve(HERE, '..'), stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    this.pid = this.child.pid;
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        for (const line of chunk.split('\n').filter((l) => l.trim())) {
          if (cfg.verbose) log(`  [${this.label}] ${line}`);
          this.tail.push(line);
          if (this.tail.length > 20) this.tail.shift();
        }
      });
    }
    this.channel = new ChildChannel(this.child, { name: `${this.label} worker`, detail: () => (this.tail.length ? `: ${this.tail.at(-1)}` : '') });
    this.r = { lat: [], images: new Map(), tput: Object.fromEntries(cfg.levels.map((l) => [l, []])), cpu: {}, cpuCaptures: 0, peak: 0, rest: [], errors: [] };
  }

  call(op, body, timeoutMs = 120_000) {
    return this.channel.call(op, body, timeoutMs);
  }

  async stop() {
    if (this.channel.dead) return;
    sampler.sample([this.pid]); // remember its children for the leftover check
    await this.channel.close({ timeoutMs: 20_000, graceMs: 5000 });
  }
}

let units = [];
const stopAll = once(async () => {
  sampler.stop();
  await Promise.all(units.map((u) => u.stop().catch(() => {})));
  return sampler.leftovers.end({ waitMs: 5000, pollMs: 100 });
});
cleanupOnSignal(async (sig) => {
  log(`\n${sig}: stopping workers and their browsers...`);
  const killed = await stopAll();
  if (killed.length) log(`killed leftover processes: ${killed.join(' ')}`);
});
startWatchdog((QUICK ? 10 : 60) * 60_000, async () => {
  log('watchdog: the run took too long; stopping workers and their browsers');
  await stopAll();
});

/** Every tree quiet: this process's, i.e. all workers and their browsers. */
let quietMs = 0; // time spent waiting for it
const quiet = async () => {
  quietMs += await waitQuiet(process.pid, { timeoutMs: 3000 });
};

// ------------------------------------------------------------------------------------ phases
async function restCapture(u) {
  await sleep(cfg.gapMs);
  try {
    const r = await u.call('capture', {}, 60_000);
    u.r.lat.push(r.ms);
    const shape = `${r.image.format} ${r.image.width}x${r.image.height}`;
    u.r.images.set(shape, (u.r.images.get(shape) ?? 0) + 1);
  } catch (err) {
    u.r.errors.push(`rest: ${err.message}`);
  }
}

async function burstOf(u, level) {
  await quiet();
  const top = level === cfg.top;
  if (top) {
    sampler.resetWindow(u.pid);
    sampler.active.add(u.pid);
    sampler.sample([u.pid]);
  }
  const cpu = new KindTicks(u.pid);
  if (top) cpu.start();
  try {
    const r = await u.call('burst', { count: cfg.captures, concurrency: level }, 600_000);
    if (top) {
      for (const [kind, ticks] of Object.entries(cpu.stop())) u.r.cpu[kind] = (u.r.cpu[kind] ?? 0) + ticks;
      u.r.cpuCaptures += r.completed;
    }
    u.r.tput[level].push(r.elapsedMs > 0 ? (r.completed / r.elapsedMs) * 1000 : NaN);
    if (r.errors) u.r.errors.push(`c${level}: ${r.errors} failed (${r.firstError})`);
  } catch (err) {
    u.r.errors.push(`c${level}: ${err.message}`);
  } finally {
    clearInterval(cpu.timer);
    if (top) {
      sampler.sample([u.pid]);
      sampler.active.delete(u.pid);
      u.r.peak = Math.max(u.r.peak, sampler.windowPeak.get(u.pid) ?? 0);
    }
  }
}

async function round(k, active) {
  const t0 = Date.now();
  await quiet();
  await sleep(cfg.idleMs);
  for (const u of active) u.r.rest.push(memoryByKind(u.pid));
  for (let i = 0; i < cfg.restPerRound && k * cfg.restPerRound + i < cfg.rest; i++) {
    for (const u of rotate(active, k * cfg.restPerRound + i)) await restCapture(u);
  }
  for (const [li, level] of cfg.levels.entries()) {
    for (const u of rotate(active, k + li)) await burstOf(u, level);
  }
  log(`  round ${k + 1}/${cfg.rounds} (${((Date.now() - t0) / 1000).toFixed(0)} s): ` +
    active.map((u) => `${u.label} c${cfg.top} ${u.r.tput[cfg.top].at(-1)?.toFixed(1) ?? '–'}/s`).join(', '));
}

// ---------------------------------------------------------------------------------------- main
async function main() {
  const started = new Date();
  const fx = await startPageServer();
  const url = fx.url(`/${cfg.page}`);
  const notes = [];
  const binaries = cfg.binaries.filter((b) => {
    if (fs.existsSync(b.path)) return true;
    notes.push(`${b.name}: skipped, no binary at ${b.path}`);
    return false;
  });
  const contenders = cfg.contenders.filter((c) => {
    const why = c === 'service' ? missing() : null;
    if (why) notes.push(`service: skipped, ${why}`);
    return !why;
  });
  for (const n of notes) log(`- ${n}`);
  log(`binaries benchmark: ${cfg.quick ? 'quick' : 'full'} mode, ${cfg.rounds} rounds, bursts of ${cfg.captures} at ` +
    `c=${cfg.levels.join('/')}, ${cfg.rest} captures at rest, page ${url}`);

  sampler.start();
  units = binaries.flatMap((b) => contenders.map((c) => new Unit(b, c)));
  const versions = {};
  const active = [];
  for (const u of units) {
    const t0 = Date.now();
    try {
      const { version } = await u.call('setup', {
        contender: u.contender, executablePath: u.binary.path, url, width: cfg.width, height: cfg.height,
        engineOptions: cfg.engineOptions, engineArgs: cfg.engineArgs, loopArgs: cfg.loopArgs, verbose: cfg.verbose,
      });
      if (version) versions[u.binary.name] = version;
      sampler.sample([u.pid]);
      active.push(u);
      log(`- ${u.label}: ready in ${Date.now() - t0} ms${version ? ` (${version})` : ''}`);
    } catch (err) {
      notes.push(`${u.label}: skipped, setup failed: ${err.message}`);
      log(`- ${u.label}: SKIPPED (${err.message})${u.tail.length ? `\n    ${u.tail.slice(-5).join('\n    ')}` : ''}`);
      await u.stop().catch(() => {});
    }
  }
  if (!active.length) throw new Error('no contender could start');

  log('- warm-up');
  for (const u of active) {
    for (let i = 0; i < 3; i++) await u.call('capture', {}, 60_000).catch((err) => log(`  warm-up ${u.label}: ${err.message}`));
    await u.call('burst', { count: cfg.top * 2, concurrency: cfg.top }, 120_000).catch((err) => log(`  warm-up ${u.label}: ${err.message}`));
  }
  for (let k = 0; k < cfg.rounds; k++) await round(k, active);

  const killed = await stopAll();
  await fx.close();
  report({ cfg, url, binaries, versions, units: active, notes, killed, started, quietMs, seconds: (Date.now() - started.getTime()) / 1000 });
}

main().catch(async (err) => {
  log(`benchmark failed: ${err.stack || err}`);
  const killed = await stopAll();
  if (killed.length) log(`killed leftover processes: ${killed.join(' ')}`);
  process.exit(1);
});

#!/usr/bin/env node
// Static capture benchmark: our engine (as a library and behind Express) against the raw
// Playwright floor and two open-source peers, capture-website and browserless.
//
//   node benchmarks/static/static.js [--quick] [--iterations=N] [--peer-iterations=N] [--window=MS] [--bursts=N]
//        [--contenders=floor,floor-fast,floor-fast-shell,library,http,capture-website,browserless] (and cdp-shell when named)
//        [--pages=simple,heavy] [--viewports=1280x720,1920x1080]
//        [--outputs=png,jpg,webp,fullpage,dpr2,selector,device,thumb,noimages] [--levels=1,2,4]
//        [--throughput=one|first|all|none] [--quality=90] [--verbose]
//   (from benchmarks/: npm run static, npm run static:quick; from the root: npm run bench)
//
// Environment equivalents: BENCH_QUICK=1, BENCH_ITERATIONS, BENCH_PEER_ITERATIONS,
// BENCH_WINDOW_MS, BENCH_BURSTS, BENCH_CONTENDERS, BENCH_PAGES, BENCH_VIEWPORTS, BENCH_OUTPUTS, BENCH_LEVELS,
// BENCH_THROUGHPUT, BENCH_QUALITY, BENCH_VERBOSE=1. Every contender drives the binary the engine
// finds (lib/chromium.js: CAPTURE_CHROMIUM_PATH, else the headless shell when installed) but
// floor-fast-shell and cdp-shell, which drive the headless shell (BENCH_HEADLESS_SHELL_PATH); the
// report names each contender's binary and says so above its ratios when they differ.
// The tables go to stdout, progress to stderr.
//
// Method (benchmarks/README.md has the details): every unit (floor; library + http sharing one engine;
// capture-website; browserless) runs in its own child process (worker.js, driven through
// static-workers.js; the contenders are in contenders/, the report in static-report.js). For each
// page x viewport x output, latency is measured sequentially with the contenders interleaved
// round-robin, the order rotating every iteration; the peers take part in the first
// `peer-iterations` rounds only (they are 3-10x slower). Between two measurements the previous
// worker's process tree must be quiet (<= 2 CPU ticks in 150 ms, waiting at most 3 s). Then,
// for the throughput cases, each contender runs `bursts` bursts per concurrency level (order
// rotating again): at least c captures (quick) or 2 x c (full) and at least `window` ms each;
// captures/s = completed / elapsed, and the median burst counts.
// Peak RSS is the largest sum of VmRSS over a worker and all its descendants (Chromium),
// sampled every 100 ms while that worker runs.

import { CONTENDER_NAMES, DEFAULT_CONTENDERS, UNITS, unavailable, unitOf } from './contenders/index.js';
import { CHROMIUM_PATH } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { startPageServer } from '../lib/fixture-pages.js';
import { fixed as fmt } from '../lib/format.js';
import { cleanupOnSignal } from '../lib/shutdown.js';
import { median, rotate } from '../lib/stats.js';
import { report } from './static-report.js';
import { WorkerPool } from './static-workers.js';
import { OUTPUTS } from './outputs.js';

const PEERS = new Set(['capture-website', 'browserless']);

// ------------------------------------------------------------------------------------ options
const opts = readOptions(import.meta.url, {
  quick: { flag: true, env: 'BENCH_QUICK' },
  iterations: { env: 'BENCH_ITERATIONS' },
  'peer-iterations': { env: 'BENCH_PEER_ITERATIONS' },
  window: { env: 'BENCH_WINDOW_MS' },
  bursts: { env: 'BENCH_BURSTS' },
  contenders: { env: 'BENCH_CONTENDERS' },
  pages: { env: 'BENCH_PAGES' },
  viewports: { env: 'BENCH_VIEWPORTS' },
  outputs: { env: 'BENCH_OUTPUTS' },
  levels: { env: 'BENCH_LEVELS' },
  throughput: { env: 'BENCH_THROUGHPUT' },
  quality: { env: 'BENCH_QUALITY' },
  verbose: { flag: true, env: 'BENCH_VERBOSE' },
});
const QUICK = opts.flag('quick');
const cfg = {
  quick: QUICK,
  iterations: opts.number('iterations', QUICK ? 3 : 5),
  peerIterations: opts.number('peer-iterations', 2),
  windowMs: opts.number('window', QUICK ? 1000 : 1500),
  minRounds: QUICK ? 1 : 2,
  bursts: opts.number('bursts', 1),
  contenders: opts.list('contenders', DEFAULT_CONTENDERS.join(',')),
  pages: opts.list('pages', 'simple,heavy'),
  viewports: opts.list('viewports', QUICK ? '1280x720' : '1280x720,1920x1080').map((v) => {
    const [width, height] = v.split('x').map(Number);
    if (!(width > 0 && height > 0)) throw new Error(`bad viewport ${v}`);
    return { width, height, label: `${width}x${height}` };
  }),
  outputs: opts.list('outputs', QUICK ? 'png,fullpage' : 'png,jpg,webp,fullpage'),
  levels: opts.list('levels', '1,2,4').map(Number),
  throughput: opts.text('throughput', QUICK ? 'one' : 'first'),
  quality: opts.number('quality', 90),
  verbose: opts.flag('verbose'),
};
for (const c of cfg.contenders) if (!CONTENDER_NAMES.includes(c)) throw new Error(`unknown contender ${c}`);
for (const o of cfg.outputs) if (!Object.hasOwn(OUTPUTS, o)) throw new Error(`unknown output ${o}`);
if (!(Number.isInteger(cfg.bursts) && cfg.bursts >= 1)) throw new Error('--bursts must be a whole number of at least 1');
if (!['one', 'first', 'all', 'none'].includes(cfg.throughput)) throw new Error(`--throughput must be one, first, all or none`);
cfg.peerIterations = Math.min(cfg.peerIterations, cfg.iterations);

const log = (...a) => console.error(...a);
const pool = new WorkerPool({ verbose: cfg.verbose, log });

async function shutdown() {
  const killed = await pool.shutdown();
  if (killed.length) log(`killed leftover processes: ${killed.join(' ')}`);
  return killed;
}
cleanupOnSignal((sig) => {
  log(`\n${sig}: stopping workers and their browsers...`);
  return shutdown();
});

/** Every page x viewport x output, and which of them get throughput bursts. */
function makeCases(fx) {
  const cases = [];
  for (const page of cfg.pages) {
    for (const vp of cfg.viewports) {
      for (const output of cfg.outputs) {
        const job = { url: fx.url(`/${page}`), width: vp.width, height: vp.height, fullPage: false, scale: 1, quality: cfg.quality, ...OUTPUTS[output] };
        cases.push({ key: `${page} ${vp.label} ${output}`, page, viewport: vp.label, output, job });
      }
    }
  }
  // Throughput cases: all; none; one (the first case; quick default); first (the first output of
  // each page x viewport; full default).
  const seenPair = new Set();
  for (const [i, c] of cases.entries()) {
    const pair = `${c.page} ${c.viewport}`;
    c.throughput = cfg.throughput === 'all' || (cfg.throughput === 'one' && i === 0) ||
      (cfg.throughput === 'first' && !seenPair.has(pair));
    seenPair.add(pair);
  }
  return cases;
}

/** Starts one worker per unit with the wanted contenders that can run here. */
async function startUnits(skipped, infos) {
  for (const [unit, def] of Object.entries(UNITS)) {
    const ok = [];
    for (const c of def.contenders.filter((x) => cfg.contenders.includes(x))) {
      const why = unavailable(c);
      if (why) {
        skipped.set(c, why);
        log(`- ${c}: SKIPPED (${why})`);
      } else ok.push(c);
    }
    if (!ok.length) continue;
    try {
      const { info } = await pool.start(unit, ok);
      for (const c of ok) infos.set(c, info || {});
      log(`- ${ok.join(' + ')}: ready${info?.version ? ` (${info.version})` : ''}`);
    } catch (err) {
      for (const c of ok) skipped.set(c, `setup failed: ${err.message}`);
      log(`- ${ok.join(' + ')}: SKIPPED (setup failed: ${err.message})` +
        `${err.tail.length ? `\n    ${err.tail.slice(-5).join('\n    ')}` : ''}`);
    }
  }
}

/** One case: latency rounds (order rotating), then the throughput bursts. Returns the row per contender. */
async function runCase(c, active, workerOf) {
  const row = Object.fromEntries(active.map((n) => [n, { lat: [], byIter: [], outside: [], serverOutside: [], bytes: [], images: [], errors: [], tput: {}, cpu: {} }]));
  for (const w of pool.workers.values()) pool.sampler.resetWindow(w.pid);

  // Latency, sequential, interleaved round-robin with a rotating order.
  for (let i = 0; i < cfg.iterations; i++) {
    const round = rotate(active, i).filter((n) => i < cfg.peerIterations || !PEERS.has(n));
    for (const name of round) {
      try {
        const r = await workerOf(name).measured('capture', { contender: name, job: c.job });
        row[name].lat.push(r.ms);
        row[name].byIter[i] = r.ms;
        if (r.outsideMs !== undefined) row[name].outside.push(r.outsideMs);
        if (r.serverOutsideMs !== undefined) row[name].serverOutside.push(r.serverOutsideMs);
        row[name].bytes.push(r.bytes);
        row[name].images.push(r.image);
      } catch (err) {
        row[name].errors.push(err.message);
      }
    }
  }

  // Throughput: `bursts` bursts per contender and level, interleaved, the order rotating per
  // level and per repetition; the median of each contender's bursts counts.
  if (c.throughput) {
    for (const [li, level] of cfg.levels.entries()) {
      const measured = Object.fromEntries(active.map((n) => [n, { tput: [], cpu: [] }]));
      for (let b = 0; b < cfg.bursts; b++) {
        for (const name of rotate(active, li + b)) {
          try {
            const burst = { contender: name, jobs: [c.job], concurrency: level, minCount: level * cfg.minRounds, windowMs: cfg.windowMs };
            const r = await workerOf(name).measured('burst', burst, 600000);
            measured[name].tput.push(r.elapsedMs > 0 ? (r.completed / r.elapsedMs) * 1000 : NaN);
            measured[name].cpu.push(r.completed > 0 ? r.cpuMs / r.completed : NaN);
            if (r.errors) row[name].errors.push(`c${level}: ${r.errors} failed (${r.firstError})`);
          } catch (err) {
            row[name].errors.push(`c${level}: ${err.message}`);
          }
        }
      }
      for (const name of active) {
        row[name].tput[level] = median(measured[name].tput);
        row[name].cpu[level] = median(measured[name].cpu);
      }
    }
  }
  for (const n of active) row[n].peak = pool.sampler.windowPeak.get(workerOf(n).pid);
  return row;
}

// -------------------------------------------------------------------------------------- main
async function main() {
  const started = Date.now();
  const fx = await startPageServer();
  const cases = makeCases(fx);
  log(`static capture benchmark: ${cfg.quick ? 'quick' : 'full'} mode, ${cases.length} cases, ` +
    `${cfg.iterations} iterations (peers ${cfg.peerIterations}), throughput on ` +
    `${cases.filter((c) => c.throughput).length} cases at c=${cfg.levels.join('/')}, chromium ${CHROMIUM_PATH}`);

  const skipped = new Map();
  const infos = new Map();
  pool.sampler.start();
  await startUnits(skipped, infos);
  const workerOf = (c) => pool.workers.get(unitOf(c));
  const active = cfg.contenders.filter((c) => workerOf(c)?.contenders.includes(c));
  if (!active.length) throw new Error('no contender could start');

  // Warm-up: one unmeasured capture of each page per contender.
  for (const page of cfg.pages) {
    const c = cases.find((x) => x.page === page);
    for (const name of active) {
      await workerOf(name).measured('capture', { contender: name, job: c.job })
        .catch((err) => log(`  warm-up ${name}: ${err.message}`));
    }
  }

  // results[caseKey][contender] = { lat, byIter, bytes, images, errors, tput, peak }
  const results = new Map();
  for (const [i, c] of cases.entries()) {
    const t0 = Date.now();
    const quiet0 = pool.quietMs;
    const row = await runCase(c, active, workerOf);
    results.set(c.key, row);
    log(`  [${i + 1}/${cases.length}] ${c.key}: ${active.map((n) => `${n} ${fmt(median(row[n].lat), 0)} ms`).join(', ')} ` +
      `(${((Date.now() - t0) / 1000).toFixed(1)} s, of which ${((pool.quietMs - quiet0) / 1000).toFixed(1)} s waiting for quiet)`);
  }

  const killed = await pool.shutdown();
  await fx.close();
  report({ cfg, cases, results, active, skipped, killed, seconds: (Date.now() - started) / 1000, pool });
}

main().catch(async (err) => {
  log(`benchmark failed: ${err.stack || err}`);
  await shutdown();
  process.exit(1);
});

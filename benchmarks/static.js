#!/usr/bin/env node
// Static capture benchmark: our engine (as a library and behind Express) against the raw
// Playwright floor and two open-source peers, capture-website and browserless.
//
//   node static.js [--quick] [--iterations=N] [--peer-iterations=N] [--window=MS]
//                  [--contenders=floor,library,http,capture-website,browserless]
//                  [--pages=simple,heavy] [--viewports=1280x720,1920x1080]
//                  [--outputs=png,jpg,webp,fullpage] [--levels=1,2,4]
//                  [--throughput=one|first|all|none] [--quality=90] [--verbose]
//
// Environment equivalents: BENCH_QUICK=1, BENCH_ITERATIONS, BENCH_PEER_ITERATIONS,
// BENCH_WINDOW_MS, BENCH_CONTENDERS, BENCH_PAGES, BENCH_VIEWPORTS, BENCH_OUTPUTS, BENCH_LEVELS,
// BENCH_THROUGHPUT, BENCH_QUALITY, BENCH_VERBOSE=1. CAPTURE_CHROMIUM_PATH overrides the browser.
// The tables go to stdout, progress to stderr.
//
// Method (README.md has the details): every unit (floor; library + http sharing one engine;
// capture-website; browserless) runs in its own child process (worker.js). For each
// page x viewport x output, latency is measured sequentially with the contenders interleaved
// round-robin, the order rotating every iteration; the peers take part in the first
// `peer-iterations` rounds only (they are 3-10x slower). Between two measurements the previous
// worker's process tree must be quiet (<= 2 CPU ticks in 150 ms, waiting at most 3 s). Then,
// for the throughput cases, each contender runs a burst per concurrency level (order rotating
// again): at least c captures (quick) or 2 x c (full) and at least `window` ms;
// captures/s = completed / elapsed.
// Peak RSS is the largest sum of VmRSS over a worker and all its descendants (Chromium),
// sampled every 100 ms while that worker runs.

import { fork } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startFixtureServer } from './fixtures.js';
import { CHROMIUM_PATH, CONTENDER_NAMES, ROOT, UNITS, unavailable, unitOf } from './contenders.js';
import { TreeSampler, killLeftovers, stillRunning, waitQuiet } from './proc.js';
import { parseArgs } from './args.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const PEERS = new Set(['capture-website', 'browserless']);

// ------------------------------------------------------------------------------------ options

const argv = parseArgs(process.argv.slice(2));
const opt = (name, env, dflt) => argv[name] ?? process.env[env] ?? dflt;
const truthy = (v) => /^(1|true|yes)$/i.test(String(v ?? ''));
const list = (v) => String(v).split(',').map((s) => s.trim()).filter(Boolean);

if (argv.help || argv.h) {
  const src = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
  console.log(src.slice(1, 15).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}

const QUICK = truthy(opt('quick', 'BENCH_QUICK', 'false'));
const cfg = {
  quick: QUICK,
  iterations: Number(opt('iterations', 'BENCH_ITERATIONS', QUICK ? 3 : 5)),
  peerIterations: Number(opt('peer-iterations', 'BENCH_PEER_ITERATIONS', 2)),
  windowMs: Number(opt('window', 'BENCH_WINDOW_MS', QUICK ? 1000 : 1500)),
  minRounds: QUICK ? 1 : 2,
  contenders: list(opt('contenders', 'BENCH_CONTENDERS', CONTENDER_NAMES.join(','))),
  pages: list(opt('pages', 'BENCH_PAGES', 'simple,heavy')),
  viewports: list(opt('viewports', 'BENCH_VIEWPORTS', QUICK ? '1280x720' : '1280x720,1920x1080')).map((v) => {
    const [width, height] = v.split('x').map(Number);
    if (!(width > 0 && height > 0)) throw new Error(`bad viewport ${v}`);
    return { width, height, label: `${width}x${height}` };
  }),
  outputs: list(opt('outputs', 'BENCH_OUTPUTS', QUICK ? 'png,fullpage' : 'png,jpg,webp,fullpage')),
  levels: list(opt('levels', 'BENCH_LEVELS', '1,2,4')).map(Number),
  throughput: opt('throughput', 'BENCH_THROUGHPUT', QUICK ? 'one' : 'first'),
  quality: Number(opt('quality', 'BENCH_QUALITY', 90)),
  verbose: truthy(opt('verbose', 'BENCH_VERBOSE', 'false')),
};
for (const c of cfg.contenders) if (!CONTENDER_NAMES.includes(c)) throw new Error(`unknown contender ${c}`);
for (const o of cfg.outputs) if (!['png', 'jpg', 'webp', 'fullpage'].includes(o)) throw new Error(`unknown output ${o}`);
if (!['one', 'first', 'all', 'none'].includes(cfg.throughput)) throw new Error(`--throughput must be one, first, all or none`);
cfg.peerIterations = Math.min(cfg.peerIterations, cfg.iterations);

const log = (...a) => console.error(...a);

// ---------------------------------------------------------------------------------- workers
const sampler = new TreeSampler({ intervalMs: 100 });
const workers = new Map(); // unit -> Worker
let quietMs = 0; // time spent waiting for quiet between measurements

class Worker {
  constructor(unit, contenders) {
    this.unit = unit;
    this.seq = 0;
    this.pending = new Map();
    this.tail = [];
    this.child = fork(path.join(HERE, 'worker.js'), [unit, contenders.join(',')], {
      cwd: HERE,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env: { ...process.env, CAPTURE_CHROMIUM_PATH: CHROMIUM_PATH },
    });
    this.pid = this.child.pid;
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream.setEncoding('utf8');
      stream.on('data', (chunk) => {
        for (const line of chunk.split('\n')) {
          if (!line.trim()) continue;
          if (cfg.verbose) log(`  [${unit}] ${line}`);
          this.tail.push(line);
          if (this.tail.length > 30) this.tail.shift();
        }
      });
    }
    this.child.on('message', (msg) => {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      clearTimeout(p.timer);
      if (msg.ok) p.resolve(msg);
      else p.reject(new Error(msg.error));
    });
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        this.dead = true;
        for (const p of this.pending.values()) {
          clearTimeout(p.timer);
          p.reject(new Error(`worker exited (${signal || code})${this.tail.length ? `: ${this.tail.at(-1)}` : ''}`));
        }
        this.pending.clear();
        resolve();
      });
    });
  }

  call(op, body = {}, timeoutMs = 120000) {
    if (this.dead) return Promise.reject(new Error('worker is not running'));
    const id = ++this.seq;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`${op} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, { resolve, reject, timer });
      this.child.send({ id, op, ...body });
    });
  }

  /** Run `op` with this worker's process tree sampled for memory, then wait until it is quiet. */
  async measured(op, body, timeoutMs) {
    sampler.active.add(this.pid);
    sampler.sample([this.pid]);
    try {
      return await this.call(op, body, timeoutMs);
    } finally {
      sampler.sample([this.pid]);
      quietMs += await waitQuiet(this.pid);
      sampler.active.delete(this.pid);
    }
  }

  async stop() {
    if (this.dead) return;
    sampler.sample([this.pid]); // remember its current children for the leftover check
    try {
      await this.call('close', {}, 20000);
    } catch {
      // fall through to the kill
    }
    const t = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await this.exited;
    clearTimeout(t);
  }
}

let shuttingDown = false;
async function shutdown() {
  if (shuttingDown) return { killed: [] };
  shuttingDown = true;
  sampler.stop();
  await Promise.all([...workers.values()].map((w) => w.stop().catch(() => {})));
  // Browsers exit shortly after their worker; give them 5 s, then end what is left of them.
  for (let i = 0; i < 50 && stillRunning(sampler.seen).length; i++) await new Promise((r) => setTimeout(r, 100));
  return { killed: killLeftovers(sampler.seen) };
}

for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    log(`\n${sig}: stopping workers and their browsers...`);
    const { killed } = await shutdown();
    if (killed.length) log(`killed leftover processes: ${killed.join(' ')}`);
    process.exit(130);
  });
}

// ------------------------------------------------------------------------------- statistics
const percentile = (xs, p) => {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const median = (xs) => {
  const v = xs.filter(Number.isFinite);
  if (!v.length) return NaN;
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const geomean = (xs) => {
  const v = xs.filter((x) => Number.isFinite(x) && x > 0);
  return v.length ? Math.exp(v.reduce((a, x) => a + Math.log(x), 0) / v.length) : NaN;
};
const rotate = (arr, k) => arr.map((_, i) => arr[(i + k) % arr.length]);

// -------------------------------------------------------------------------------------- main
async function main() {
  const started = Date.now();
  const fx = await startFixtureServer();

  const cases = [];
  for (const page of cfg.pages) {
    for (const vp of cfg.viewports) {
      for (const output of cfg.outputs) {
        cases.push({
          key: `${page} ${vp.label} ${output}`,
          page,
          viewport: vp.label,
          output,
          job: {
            url: fx.url(page),
            format: output === 'fullpage' ? 'png' : output,
            width: vp.width,
            height: vp.height,
            fullPage: output === 'fullpage',
            quality: cfg.quality,
          },
        });
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

  log(`static capture benchmark: ${cfg.quick ? 'quick' : 'full'} mode, ${cases.length} cases, ` +
    `${cfg.iterations} iterations (peers ${cfg.peerIterations}), throughput on ` +
    `${cases.filter((c) => c.throughput).length} cases at c=${cfg.levels.join('/')}, chromium ${CHROMIUM_PATH}`);

  // Start the units.
  const skipped = new Map();
  const infos = new Map();
  sampler.start();
  for (const [unit, def] of Object.entries(UNITS)) {
    const wanted = def.contenders.filter((c) => cfg.contenders.includes(c));
    const ok = [];
    for (const c of wanted) {
      const why = unavailable(c);
      if (why) {
        skipped.set(c, why);
        log(`- ${c}: SKIPPED (${why})`);
      } else ok.push(c);
    }
    if (!ok.length) continue;
    const w = new Worker(unit, ok);
    try {
      const { info } = await w.measured('setup', {}, 120000);
      w.contenders = ok;
      workers.set(unit, w);
      for (const c of ok) infos.set(c, info || {});
      log(`- ${ok.join(' + ')}: ready${info?.version ? ` (${info.version})` : ''}`);
    } catch (err) {
      for (const c of ok) skipped.set(c, `setup failed: ${err.message}`);
      log(`- ${ok.join(' + ')}: SKIPPED (setup failed: ${err.message})` +
        `${w.tail.length ? `\n    ${w.tail.slice(-5).join('\n    ')}` : ''}`);
      await w.stop();
    }
  }
  const active = cfg.contenders.filter((c) => workers.get(unitOf(c))?.contenders.includes(c));
  if (!active.length) throw new Error('no contender could start');
  const workerOf = (c) => workers.get(unitOf(c));

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
  let caseNo = 0;
  for (const c of cases) {
    caseNo++;
    const row = Object.fromEntries(active.map((n) => [n, { lat: [], byIter: [], outside: [], serverOutside: [], bytes: [], images: [], errors: [], tput: {} }]));
    results.set(c.key, row);
    for (const w of workers.values()) sampler.resetWindow(w.pid);
    const t0 = Date.now();
    const quiet0 = quietMs;

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

    // Throughput: one burst per contender and level, the order rotating per level.
    if (c.throughput) {
      for (const [li, level] of cfg.levels.entries()) {
        for (const name of rotate(active, li)) {
          try {
            const r = await workerOf(name).measured('burst', {
              contender: name,
              jobs: [c.job],
              concurrency: level,
              minCount: level * cfg.minRounds,
              windowMs: cfg.windowMs,
            }, 600000);
            row[name].tput[level] = r.elapsedMs > 0 ? (r.completed / r.elapsedMs) * 1000 : NaN;
            if (r.errors) row[name].errors.push(`c${level}: ${r.errors} failed (${r.firstError})`);
          } catch (err) {
            row[name].errors.push(`c${level}: ${err.message}`);
          }
        }
      }
    }
    for (const n of active) row[n].peak = sampler.windowPeak.get(workerOf(n).pid);
    log(`  [${caseNo}/${cases.length}] ${c.key}: ${active.map((n) => `${n} ${fmt(median(row[n].lat), 0)} ms`).join(', ')} ` +
      `(${((Date.now() - t0) / 1000).toFixed(1)} s, of which ${((quietMs - quiet0) / 1000).toFixed(1)} s waiting for quiet)`);
  }

  const { killed } = await shutdown();
  await fx.close();

  report({ cases, results, active, skipped, infos, killed, seconds: (Date.now() - started) / 1000 });
}

// ----------------------------------------------------------------------------------- report
function fmt(x, digits = 1) {
  if (x === undefined || x === null || !Number.isFinite(x)) return '–';
  return x.toFixed(digits);
}
const mb = (b) => (Number.isFinite(b) ? (b / 2 ** 20).toFixed(0) : '–');

function version(pkg) {
  for (let dir = HERE; ; dir = path.dirname(dir)) {
    const p = path.join(dir, 'node_modules', pkg, 'package.json');
    try {
      return JSON.parse(fs.readFileSync(p, 'utf8')).version;
    } catch {
      if (dir === path.dirname(dir)) return '?';
    }
  }
}

function rootVersion() {
  try {
    return JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  } catch {
    return '?';
  }
}

function checkImage(c, imgs) {
  // Same pixels for everyone: width = viewport width; height = viewport height unless full page.
  const problems = new Set();
  for (const im of imgs) {
    if (im.format !== c.job.format) problems.add(`got ${im.format}`);
    else if (im.width !== undefined && im.width !== c.job.width) problems.add(`${im.width}x${im.height}`);
    else if (!c.job.fullPage && im.height !== undefined && im.height !== c.job.height) problems.add(`${im.width}x${im.height}`);
  }
  return [...problems];
}

function report({ cases, results, active, skipped, infos, killed, seconds }) {
  const out = [];
  const p = (s = '') => out.push(s);
  const browserVersion = infos.get('floor')?.version || infos.get('browserless')?.version || '?';
  p(`## Static capture benchmark (${cfg.quick ? 'quick' : 'full'} mode)`);
  p();
  p(`Node ${process.version}, ${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM, ` +
    `Chromium ${browserVersion}. Latency: ${cfg.iterations} sequential captures per case ` +
    `(capture-website and browserless: ${cfg.peerIterations}), interleaved. Throughput: bursts of ` +
    `≥ ${cfg.windowMs} ms and ≥ ${cfg.minRounds}×c captures. Quality ${cfg.quality}. Run took ${(seconds / 60).toFixed(1)} min.`);
  p();
  const versions = {
    floor: `raw playwright-core ${version('playwright-core')}: one browser, a new context per capture`,
    library: `capture-engine ${rootVersion()} in process (\`engine.capture()\`)`,
    http: `the same engine behind Express ${version('express')} (\`GET /api/v1/capture\` over loopback)`,
    'capture-website': `capture-website ${version('capture-website')} (puppeteer ${version('puppeteer')}): a browser launch per call, its default`,
    browserless: `browserless ${version('browserless')} (puppeteer ${version('puppeteer')}): one browser, a context per capture`,
  };
  for (const name of cfg.contenders) {
    p(`- **${name}**: ${versions[name]}${skipped.has(name) ? ` — **skipped**: ${skipped.get(name)}` : ''}`);
  }
  p();

  // Main table.
  const shared = active.includes('library') && active.includes('http');
  p(`| page | viewport | output | contender | p50 ms | p95 ms | n | size KB | c1 /s | c2 /s | c4 /s | peak RSS MB${shared ? ' ¹' : ''} | notes |`);
  p('|---|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|---|');
  for (const c of cases) {
    const row = results.get(c.key);
    for (const name of active) {
      const r = row[name];
      const notes = [...checkImage(c, r.images).map((s) => `output ${s}`), ...new Set(r.errors.map((e) => e.slice(0, 120)))];
      for (const l of cfg.levels.filter((x) => ![1, 2, 4].includes(x))) notes.push(`c${l} ${fmt(r.tput[l], 2)}/s`);
      p(`| ${c.page} | ${c.viewport} | ${c.output} | ${name} | ${fmt(median(r.lat), 0)} | ${fmt(percentile(r.lat, 95), 0)} | ` +
        `${r.lat.length} | ${fmt(median(r.bytes) / 1024, 0)} | ${fmt(r.tput[1], 2)} | ${fmt(r.tput[2], 2)} | ${fmt(r.tput[4], 2)} | ` +
        `${mb(r.peak)} | ${notes.join('; ')} |`);
    }
  }
  if (shared) p('\n¹ library and http share one process and one engine, hence one memory figure.');
  p();

  // Ratios per case.
  const has = (n) => active.includes(n);
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
  const per = cases.map((c) => {
    const row = results.get(c.key);
    const p50 = (n) => (has(n) ? median(row[n].lat) : NaN);
    const c4 = (n) => (has(n) ? row[n].tput[4] : NaN);
    const paired = has('http') && has('library')
      ? median(row.http.byIter.map((h, i) => h - row.library.byIter[i]))
      : NaN;
    return {
      c,
      p50Ratio: ratio(p50('library'), p50('floor')),
      c4Floor: ratio(c4('library'), c4('floor')),
      c4Cw: ratio(c4('library'), c4('capture-website')),
      c4Bl: ratio(c4('library'), c4('browserless')),
      httpMs: p50('http') - p50('library'),
      pairedMs: paired,
      // Time outside engine.run(): for http the whole HTTP round trip (client, Express, auth,
      // policy, parse, response); for library the parameter parsing. Their difference is the
      // HTTP overhead with the browser's noise taken out.
      inRequestMs: has('http') && has('library') ? median(row.http.outside) - median(row.library.outside) : NaN,
      serverMs: has('http') ? median(row.http.serverOutside) : NaN,
    };
  });
  p('| page | viewport | output | library p50 / floor p50 | library c4 / floor c4 | library c4 / capture-website c4 | library c4 / browserless c4 | HTTP overhead ms: p50 http − p50 library | paired ² | in-request ³ | server side ⁴ |');
  p('|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|');
  for (const r of per) {
    p(`| ${r.c.page} | ${r.c.viewport} | ${r.c.output} | ${fmt(r.p50Ratio, 2)} | ${fmt(r.c4Floor, 2)} | ${fmt(r.c4Cw, 2)} | ` +
      `${fmt(r.c4Bl, 2)} | ${fmt(r.httpMs, 1)} | ${fmt(r.pairedMs, 1)} | ${fmt(r.inRequestMs, 2)} | ${fmt(r.serverMs, 2)} |`);
  }
  p();
  if (has('http') && has('library')) p('² median over iterations of (http − library) in the same round. ' +
    '³ median time outside `engine.run()` of an http capture minus that of a library capture, ' +
    'measured inside each call: the HTTP layer alone, without the browser\'s run-to-run noise; the client shares its event loop ' +
    'with the engine\'s browser pool, whose background work (closing the used context, warming the next) delays it. ' +
    '⁴ median time the server spent on an http capture outside `engine.run()`, from the request reaching Express to the response\'s `end()`: ' +
    'keys, limits, parameters, the response; without the transfer and the client.');
  p();

  // Targets: geometric mean of the ratios over the cases; median of the HTTP overheads.
  const agg = {
    p50Ratio: geomean(per.map((r) => r.p50Ratio)),
    c4Floor: geomean(per.map((r) => r.c4Floor)),
    c4Cw: geomean(per.map((r) => r.c4Cw)),
    c4Bl: geomean(per.map((r) => r.c4Bl)),
    httpMs: median(per.map((r) => r.httpMs)),
    inRequestMs: median(per.map((r) => r.inRequestMs)),
    serverMs: median(per.map((r) => r.serverMs)),
  };
  const verdict = (x, ok) => (Number.isFinite(x) ? (ok(x) ? 'PASS' : 'FAIL') : 'n/a');
  const worst = (k, dir) => {
    const v = per.map((r) => r[k]).filter(Number.isFinite);
    return v.length ? (dir > 0 ? Math.max(...v) : Math.min(...v)) : NaN;
  };
  p('| target | measured (geometric mean over cases; HTTP: median) | worst case | result |');
  p('|---|--:|--:|---|');
  p(`| library p50 ≤ floor p50 | ${fmt(agg.p50Ratio, 2)}× | ${fmt(worst('p50Ratio', 1), 2)}× | ${verdict(agg.p50Ratio, (x) => x <= 1)} |`);
  p(`| library c4 throughput ≥ 1.3 × floor | ${fmt(agg.c4Floor, 2)}× | ${fmt(worst('c4Floor', -1), 2)}× | ${verdict(agg.c4Floor, (x) => x >= 1.3)} |`);
  p(`| library c4 throughput ≥ 4 × capture-website | ${fmt(agg.c4Cw, 2)}× | ${fmt(worst('c4Cw', -1), 2)}× | ${verdict(agg.c4Cw, (x) => x >= 4)} |`);
  p(`| library c4 throughput ≥ 2 × browserless | ${fmt(agg.c4Bl, 2)}× | ${fmt(worst('c4Bl', -1), 2)}× | ${verdict(agg.c4Bl, (x) => x >= 2)} |`);
  p(`| HTTP overhead < 5 ms (p50 http − p50 library) | ${fmt(agg.httpMs, 1)} ms | ${fmt(worst('httpMs', 1), 1)} ms | ${verdict(agg.httpMs, (x) => x < 5)} |`);
  p(`| HTTP overhead < 5 ms (in-request ³) | ${fmt(agg.inRequestMs, 2)} ms | ${fmt(worst('inRequestMs', 1), 2)} ms | ${verdict(agg.inRequestMs, (x) => x < 5)} |`);
  p(`| HTTP overhead < 5 ms (server side ⁴) | ${fmt(agg.serverMs, 2)} ms | ${fmt(worst('serverMs', 1), 2)} ms | ${verdict(agg.serverMs, (x) => x < 5)} |`);
  p();

  const peaks = [...workers.values()].map((w) => `${w.contenders.join(' + ')} ${mb(sampler.peak.get(w.pid))} MB`);
  p(`Peak RSS over the whole run (worker + its Chromium processes, summed VmRSS; shared pages count once per process): ${peaks.join(', ')}.`);
  p(`Cleanup: ${killed.length ? `ended ${killed.length} leftover process(es): ${killed.join(' ')}` : 'no browser process left behind'}.`);
  p();
  p('Same pixels for all: viewport at device scale factor 1 (or the full page), same format and quality. ' +
    'capture-website launches a browser per call (its default) and always waits for `networkidle2` ' +
    '(≥ 500 ms of network quiet, not configurable); for full pages it scrolls the page first, as does browserless. ' +
    "browserless runs with `waitUntil: 'domcontentloaded'` and `adblock: false` (the floor's work). " +
    "The floor's WebP is CDP `Page.captureScreenshot` (Playwright's `screenshot()` has no WebP). `–`: not measured.");
  console.log(out.join('\n'));
}

main().catch(async (err) => {
  log(`benchmark failed: ${err.stack || err}`);
  const { killed } = await shutdown();
  if (killed.length) log(`killed leftover processes: ${killed.join(' ')}`);
  process.exit(1);
});

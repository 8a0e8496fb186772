#!/usr/bin/env node
// Soak run of the built service under mixed plain, heavy and hostile pages: does it stay flat
// (memory, CPU, renderers) for minutes on end, and does it leave nothing behind when it stops?
//
//   node benchmarks/soak/soak.js [--minutes=20] [--seed=1] [--in-flight=4] [--timeout-ms=10000]
//                                [--interval=10] [--keep-tmp] [--verbose]
//   (from benchmarks/: npm run soak)
//
// Environment equivalents: SOAK_MINUTES, SOAK_SEED, SOAK_IN_FLIGHT, SOAK_TIMEOUT_MS,
// SOAK_INTERVAL, SOAK_KEEP_TMP=1, SOAK_VERBOSE=1. The tables go to stdout, progress to stderr.
//
// Method: `node dist/src/cli.js serve --adapter node` (the repository's build) on free loopback
// ports with its metrics port, `CAPTURE_ALLOW_PRIVATE_NETWORKS=true`, ENTERPRISE keys,
// `CAPTURE_TIMEOUT_MS` = the timeout option and `TMPDIR` = a fresh folder (world-writable and
// sticky like /tmp: Chromium runs as an unprivileged user when the service runs as root), so that
// every temporary file of the service lands where it can be inspected at the end. Pages come from the hostile-page corpus
// (`fixtures/hostile/pages.js`) on its own loopback server. `in-flight` lanes each send one
// POST /api/v1/capture (JSON body, X-API-Key) after the other for `minutes`; each lane draws from
// its own random stream (seed + lane): 50 % a plain solid-colour page (1280x720 png; 1 in 10 jpg,
// 1 in 10 webp, 1 in 10 full-page png), 30 % the heavy page (full-page png), 20 % a random hostile
// page with its own parameters. Each lane has a key of its own (ENTERPRISE allows 150 requests a
// minute per key, fewer than 4 lanes of quick captures make); a 429 still counts and the lane waits
// its Retry-After. A request not answered within the budget + 30 s is aborted (`client_timeout`).
//
// Every `interval` seconds, from /proc: the summed VmRSS of the service's process tree (Node,
// Chromium and its helpers, ffmpeg), its CPU (utime + stime of the live processes plus what they
// reaped) over the interval in % of one core, the number of renderers (`--type=renderer`), and from
// /metrics `capture_renderers_killed_total{reason}` (busy, memory) and `capture_browser_memory_bytes`
// (a missing metric counts 0). Flatness: the mean RSS and mean CPU of the last third of the run
// against the middle third (the first third is warm-up): FLAT when both ratios are at most 1.25.
// At the end the service gets SIGTERM and must exit by itself (SIGKILL after 60 s, reported); then
// the processes of its tree still alive and what is left in its TMPDIR are listed, the processes
// ended and the folder removed (kept with --keep-tmp).

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { ROOT } from '../lib/dist.js';
import { fixed, integer, mebibytes } from '../lib/format.js';
import { freePort } from '../lib/free-port.js';
import { Leftovers } from '../lib/leftovers.js';
import { rssBytes, sumOver } from '../lib/process-memory.js';
import { HAS_PROC, processTable, TICKS_PER_SECOND, treePids } from '../lib/process-tree.js';
import { cleanupOnSignal, once, startWatchdog } from '../lib/shutdown.js';
import { percentile } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';

const opts = readOptions(import.meta.url, {
  minutes: { env: 'SOAK_MINUTES' },
  seed: { env: 'SOAK_SEED' },
  'in-flight': { env: 'SOAK_IN_FLIGHT' },
  'timeout-ms': { env: 'SOAK_TIMEOUT_MS' },
  interval: { env: 'SOAK_INTERVAL' },
  'keep-tmp': { flag: true, env: 'SOAK_KEEP_TMP' },
  verbose: { flag: true, env: 'SOAK_VERBOSE' },
});
const cfg = {
  minutes: opts.number('minutes', 20),
  seed: opts.number('seed', 1),
  inFlight: opts.number('in-flight', 4),
  budgetMs: opts.number('timeout-ms', 10_000),
  intervalS: opts.number('interval', 10),
  keepTmp: opts.flag('keep-tmp'),
  verbose: opts.flag('verbose'),
};
for (const [name, value] of Object.entries({ minutes: cfg.minutes, 'in-flight': cfg.inFlight, 'timeout-ms': cfg.budgetMs, interval: cfg.intervalS })) {
  if (!(value > 0)) {
    console.error(`--${name} must be a positive number`);
    process.exit(2);
  }
}

const CLI = path.join(ROOT, 'dist/src/cli.js');
const HOSTILE_MODULE = path.join(ROOT, 'fixtures/hostile/pages.js');
const CLIENT_TIMEOUT_MS = cfg.budgetMs + 30_000;
const EXIT_GRACE_MS = 60_000;
const VIEWPORT = { viewport_width: 1280, viewport_height: 720 };
const COLOURS = ['#d32f2f', '#1976d2', '#388e3c', '#fbc02d', '#7b1fa2', '#00796b', '#f57c00', '#455a64'];
const log = (...a) => console.error(...a);
const MB = (bytes) => mebibytes(bytes, '–');

// ------------------------------------------------------------------------------------ drawing
/** mulberry32: a small seeded PRNG, one stream per lane so that a lane's draws do not depend on timing. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const pick = (rand, items) => items[Math.floor(rand() * items.length)];

/** One request: { kind, name, params }. */
function draw(rand, pages, hostile) {
  const r = rand();
  if (r < 0.5) {
    const colour = pick(rand, COLOURS);
    const v = rand();
    const variant = v < 0.1 ? { format: 'jpg' } : v < 0.2 ? { format: 'webp' } : v < 0.3 ? { format: 'png', full_page: true } : { format: 'png' };
    const name = `plain ${variant.format}${variant.full_page ? ' full_page' : ''}`;
    return { kind: 'plain', name, params: { url: pages.plainUrl(colour), ...VIEWPORT, ...variant } };
  }
  if (r < 0.8) return { kind: 'heavy', name: 'heavy full_page png', params: { url: pages.heavyUrl(), ...VIEWPORT, format: 'png', full_page: true } };
  const page = pick(rand, hostile);
  return { kind: 'hostile', name: page.name, page, params: { url: pages.url(page.name), ...VIEWPORT, ...page.params } };
}

// ------------------------------------------------------------------------------------ service
/** Keeps the last lines the service wrote (shown when it fails to start); all of them with --verbose. */
function tail(stream, lines, max = 200) {
  let partial = '';
  stream.on('data', (chunk) => {
    if (cfg.verbose) process.stderr.write(chunk);
    const parts = (partial + chunk).split('\n');
    partial = parts.pop();
    lines.push(...parts);
    if (lines.length > max) lines.splice(0, lines.length - max);
  });
}

async function startService({ tmp, keys }) {
  const port = await freePort();
  const metricsPort = await freePort();
  const env = {
    ...process.env,
    CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true',
    CAPTURE_API_KEYS: keys.map((k) => `${k}:ENTERPRISE`).join(','),
    CAPTURE_TIMEOUT_MS: String(cfg.budgetMs),
    TMPDIR: tmp,
  };
  const args = [CLI, 'serve', '--port', String(port), '--host', '127.0.0.1', '--adapter', 'node', '--metrics-port', String(metricsPort)];
  // A process group of its own: Ctrl-C on this script does not reach it before our cleanup does.
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const output = [];
  tail(child.stdout, output);
  tail(child.stderr, output);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })));
  const service = { child, pid: child.pid, port, metricsPort, origin: `http://127.0.0.1:${port}`, output, exited };
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`the service exited at start:\n${output.join('\n')}`);
    if (await fetch(`${service.origin}/readyz`).then((r) => r.ok, () => false)) return service;
    if (Date.now() - started > 60_000) throw new Error(`the service was not ready after 60 s:\n${output.join('\n')}`);
    await sleep(200);
  }
}

const alive = (child) => child.exitCode === null && child.signalCode === null;

// ------------------------------------------------------------------------------------ requests
/** Sends one capture; resolves to { status, code, ms, error? } and never throws. */
async function send(service, key, params) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), CLIENT_TIMEOUT_MS);
  const t0 = performance.now();
  try {
    const response = await fetch(`${service.origin}/api/v1/capture`, {
      method: 'POST',
      headers: { 'X-API-Key': key, 'Content-Type': 'application/json' },
      body: JSON.stringify(params),
      signal: controller.signal,
    });
    const body = Buffer.from(await response.arrayBuffer());
    const ms = performance.now() - t0;
    let code;
    let error;
    if ((response.headers.get('content-type') || '').includes('json')) {
      try {
        const json = JSON.parse(body.toString('utf8'));
        code = json.code;
        error = json.error;
      } catch {
        // not JSON after all: the status alone
      }
    }
    const retryAfter = Number(response.headers.get('retry-after'));
    return { status: response.status, code: response.ok ? undefined : code, error: response.ok ? undefined : error, ms, retryAfter, bytes: body.length };
  } catch (err) {
    const ms = performance.now() - t0;
    if (controller.signal.aborted) return { status: 'client_timeout', ms };
    const cause = err.cause?.code || err.cause?.message || err.message;
    return { status: 'network_error', code: cause, error: String(err.message), ms };
  } finally {
    clearTimeout(timer);
  }
}

const outcomeLabel = (o) => (o.code ? `${o.status} ${o.code}` : String(o.status));

// ------------------------------------------------------------------------------------ sampling
function cmdline(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ').trim();
  } catch {
    return '';
  }
}

/** Counters and gauges of /metrics: { killedBusy, killedMemory, browserMemory }, missing ones 0; `seen*`: the metric is declared. */
async function readMetrics(service) {
  const out = { killedBusy: 0, killedMemory: 0, browserMemory: 0, ok: false, seenKilled: false, seenMemory: false };
  try {
    const response = await fetch(`http://127.0.0.1:${service.metricsPort}/metrics`, { signal: AbortSignal.timeout(5000) });
    if (!response.ok) return out;
    const text = await response.text();
    out.ok = true;
    for (const line of text.split('\n')) {
      if (line.startsWith('# TYPE capture_renderers_killed_total ')) out.seenKilled = true;
      if (line.startsWith('# TYPE capture_browser_memory_bytes ')) out.seenMemory = true;
      if (line.startsWith('#')) continue;
      const m = /^(\w+)(\{[^}]*\})?\s+(\S+)/.exec(line);
      if (!m) continue;
      const value = Number(m[3]);
      if (m[1] === 'capture_renderers_killed_total') {
        const reason = /reason="([^"]*)"/.exec(m[2] || '')?.[1];
        if (reason === 'busy') out.killedBusy += value;
        if (reason === 'memory') out.killedMemory += value;
      } else if (m[1] === 'capture_browser_memory_bytes') out.browserMemory += value;
    }
  } catch {
    // the metrics port did not answer in time: this sample counts the metrics as 0
  }
  return out;
}

/**
 * Samples the service's tree every interval until `deadline`; `series` gets { t, rss, cpu,
 * renderers, processes, metrics }, t being the sample's nominal time (k x interval) in seconds.
 */
function startSampler(service, leftovers, deadline) {
  const series = [];
  let stopped = false;
  const snapshot = () => {
    const table = processTable();
    const pids = treePids(service.pid, table);
    leftovers.addTree(service.pid, pids, table);
    let ticks = 0;
    for (const pid of pids) ticks += table.get(pid).ticks + table.get(pid).childTicks;
    const renderers = pids.filter((pid) => cmdline(pid).includes('--type=renderer')).length;
    return { at: performance.now(), rss: sumOver(pids, rssBytes), ticks, renderers, processes: pids.length };
  };
  const t0 = performance.now();
  const loop = (async () => {
    let previous = snapshot();
    for (let k = 1; ; k++) {
      const due = t0 + k * cfg.intervalS * 1000;
      if (due > deadline + 1000) break;
      await sleep(Math.max(0, due - performance.now()));
      if (stopped || !alive(service.child)) break;
      const now = snapshot();
      const metrics = await readMetrics(service);
      const cpu = (Math.max(0, now.ticks - previous.ticks) / TICKS_PER_SECOND / ((now.at - previous.at) / 1000)) * 100;
      series.push({ t: k * cfg.intervalS, rss: now.rss, cpu, renderers: now.renderers, processes: now.processes, metrics });
      previous = now;
    }
  })();
  return {
    series,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

// ------------------------------------------------------------------------------------ the run
async function drive(service, keys, pages, hostile, { deadline, onDone }) {
  const lane = async (i) => {
    const rand = random(cfg.seed * 1000 + i);
    while (performance.now() < deadline && alive(service.child)) {
      const request = draw(rand, pages, hostile);
      const startedAt = performance.now();
      const outcome = await send(service, keys[i], request.params);
      onDone({ ...request, ...outcome, lane: i, startedAt });
      // A key over its limit (should not happen with a key per lane): wait as told, not in a loop.
      if (outcome.status === 429) await sleep(Math.min(30, outcome.retryAfter || 1) * 1000);
    }
  };
  await Promise.all(Array.from({ length: cfg.inFlight }, (_, i) => lane(i)));
}

/** SIGTERM, then the time until the service exits (SIGKILL after EXIT_GRACE_MS). */
async function stopService(service) {
  if (!alive(service.child)) {
    const gone = await service.exited;
    return { early: true, code: gone.code, signal: gone.signal, killed: false, seconds: NaN };
  }
  const sent = performance.now();
  service.child.kill('SIGTERM');
  const result = await Promise.race([service.exited, sleep(EXIT_GRACE_MS).then(() => null)]);
  if (result) return { seconds: (result.at - sent) / 1000, code: result.code, signal: result.signal, killed: false };
  try {
    process.kill(service.pid, 'SIGKILL');
  } catch {
    // exited just now
  }
  const after = await service.exited;
  return { seconds: (after.at - sent) / 1000, code: after.code, signal: after.signal, killed: true };
}

/** Every entry of `dir` (recursively below `dir` and `dir/capture-engine`, two levels), with sizes. */
function tmpEntries(dir) {
  const size = (p) => {
    let st;
    try {
      st = fs.lstatSync(p);
    } catch {
      return 0;
    }
    if (!st.isDirectory()) return st.size;
    let total = 0;
    for (const name of fs.readdirSync(p)) total += size(path.join(p, name));
    return total;
  };
  const list = (sub) => {
    const abs = path.join(dir, sub);
    let names = [];
    try {
      names = fs.readdirSync(abs);
    } catch {
      return [];
    }
    return names.sort().map((name) => {
      const rel = path.join(sub, name);
      const st = fs.lstatSync(path.join(dir, rel));
      return { rel, dir: st.isDirectory(), bytes: size(path.join(dir, rel)) };
    });
  };
  const out = [];
  for (const entry of list('')) {
    out.push(entry);
    if (entry.rel === 'capture-engine' && entry.dir) out.push(...list('capture-engine'));
  }
  return out;
}

function classify(rel) {
  const base = path.basename(rel);
  if (rel === 'capture-engine') return 'the engine\'s temp folder';
  if (/^capture-engine\/profile-/.test(rel)) return 'LEFTOVER Chromium profile';
  if (/^playwright-artifacts-/.test(base)) return 'LEFTOVER Playwright artifacts';
  if (/^chromium-as-\d+\.sh$/.test(base)) return 'launcher script (rewritten at each launch)';
  if (base === 'adblock') return 'ad-block cache';
  if (base === 'files') return 'file storage';
  return 'other';
}

// ------------------------------------------------------------------------------------ report
function summarize(values) {
  return { p50: percentile(values, 50), p95: percentile(values, 95), max: values.length ? Math.max(...values) : NaN };
}

function countsCell(items) {
  const counts = new Map();
  for (const item of items) counts.set(outcomeLabel(item), (counts.get(outcomeLabel(item)) || 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).map(([label, n]) => `${label} ×${n}`).join(', ') || '–';
}

const mean = (xs) => (xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : NaN);

function report({ outcomes, series, hostile, pages, stop, serviceOutput, leftoverRows, tmpRows, tmp, loadStart, loadEnd, loadStartAt, runSeconds }) {
  const p = (s = '') => console.log(s);
  p('## Soak: the built service under mixed plain, heavy and hostile pages');
  p();
  p(`Node ${process.version}, ${os.cpus().length} CPUs, load average ${loadStart} at the start, ${loadEnd} at the end. `
    + `${fixed(runSeconds / 60, 1)} min of load (\`--minutes=${cfg.minutes}\`), ${cfg.inFlight} requests in flight, seed ${cfg.seed}, `
    + `budget \`CAPTURE_TIMEOUT_MS=${cfg.budgetMs}\` (client timeout ${CLIENT_TIMEOUT_MS / 1000} s), samples every ${cfg.intervalS} s. `
    + `\`capture-engine serve --adapter node\`, ${hostile.length} hostile pages (\`fixtures/hostile/pages.js\`).`);
  p();
  for (const line of binaryLines({ service: CHROMIUM_PATH })) p(line);
  p();

  p('### Outcomes by kind');
  p();
  const kinds = ['plain', 'heavy', 'hostile'];
  p(markdownTable(['kind', 'requests', 'statuses / error codes', 'p50 ms', 'p95 ms', 'max ms'], kinds.map((kind) => {
    const items = outcomes.filter((o) => o.kind === kind);
    const s = summarize(items.map((o) => o.ms));
    return [kind, items.length, countsCell(items), fixed(s.p50, 0), fixed(s.p95, 0), fixed(s.max, 0)];
  }), { align: 'lrlrrr' }));
  p();

  const byPage = hostile.map((page) => {
    const items = outcomes.filter((o) => o.kind === 'hostile' && o.name === page.name);
    const unexpected = items.filter((o) => !page.expect.includes(o.status));
    return [page.name, page.kind, items.length, countsCell(items), unexpected.length ? countsCell(unexpected) : '', fixed(summarize(items.map((o) => o.ms)).max, 0), pages.hits(page.name)];
  }).filter((row) => row[2] > 0);
  if (byPage.length) {
    p(markdownTable(['hostile page', 'kind', 'requests', 'statuses / error codes', 'outside its `expect`', 'max ms', 'server hits'], byPage, { align: 'llrllrr' }));
    p();
  }

  const failures = outcomes.filter((o) => o.status === 500);
  p(failures.length ? `**Status 500: ${failures.length}**` : 'Status 500: none.');
  if (failures.length) {
    p();
    p(markdownTable(['at s', 'kind', 'page', 'code', 'error', 'request'], failures.map((o) => [
      fixed((o.startedAt - loadStartAt) / 1000, 1), o.kind, o.name, o.code || '', (o.error || '').replaceAll('|', '\\|'),
      `\`${JSON.stringify(o.params).replaceAll('|', '\\|')}\``,
    ]), { align: 'rlllll' }));
  }
  p();

  p('### Time series (one row per minute)');
  p();
  const minutes = new Map();
  for (const s of series) {
    const m = Math.max(1, Math.ceil(s.t / 60 - 1e-9));
    if (!minutes.has(m)) minutes.set(m, []);
    minutes.get(m).push(s);
  }
  p(markdownTable(['minute', 'samples', 'RSS MB min', 'RSS MB mean', 'RSS MB max', 'CPU % mean', 'renderers max', 'browser memory MB max ¹', 'renderers killed: busy / memory ²'], [...minutes].map(([m, ss]) => {
    const rss = ss.map((s) => s.rss);
    const last = ss.at(-1).metrics;
    return [`${m - 1}-${m}`, ss.length, MB(Math.min(...rss)), MB(mean(rss)), MB(Math.max(...rss)), fixed(mean(ss.map((s) => s.cpu)), 0),
      Math.max(...ss.map((s) => s.renderers)), MB(Math.max(...ss.map((s) => s.metrics.browserMemory))), `${last.killedBusy} / ${last.killedMemory}`];
  }), { align: 'rrrrrrrrr' }));
  p();
  p('¹ the gauge `capture_browser_memory_bytes`; ² `capture_renderers_killed_total{reason}`, cumulative at the minute\'s last sample. '
    + 'RSS is the sum of VmRSS over the service\'s tree (Chromium\'s shared pages counted in every process); CPU in % of one core.'
    + `${series.some((s) => !s.metrics.ok) ? ' Some samples had no answer from /metrics (counted 0).' : ''}`
    + `${series.some((s) => s.metrics.ok) && !series.some((s) => s.metrics.seenMemory) ? ' `capture_browser_memory_bytes` was not in /metrics (this build does not export it): 0.' : ''}`
    + `${series.some((s) => s.metrics.ok) && !series.some((s) => s.metrics.seenKilled) ? ' `capture_renderers_killed_total` was not in /metrics (this build does not export it): 0.' : ''}`);
  p();

  p('### Flatness (last third against the middle third; the first is warm-up)');
  p();
  const span = series.length ? series.at(-1).t : 0;
  const middle = series.filter((s) => s.t > span / 3 && s.t <= (2 * span) / 3);
  const lastThird = series.filter((s) => s.t > (2 * span) / 3);
  const ratio = (f) => mean(lastThird.map(f)) / mean(middle.map(f));
  const rows = [
    ['RSS MB', MB(mean(middle.map((s) => s.rss))), MB(mean(lastThird.map((s) => s.rss))), fixed(ratio((s) => s.rss), 2)],
    ['CPU %', fixed(mean(middle.map((s) => s.cpu)), 0), fixed(mean(lastThird.map((s) => s.cpu)), 0), fixed(ratio((s) => s.cpu), 2)],
  ];
  p(markdownTable(['mean', `middle third (${middle.length} samples)`, `last third (${lastThird.length} samples)`, 'ratio'], rows, { align: 'lrrr' }));
  p();
  const rRss = ratio((s) => s.rss);
  const rCpu = ratio((s) => s.cpu);
  const verdict = !middle.length || !lastThird.length ? 'UNKNOWN (too few samples)' : rRss <= 1.25 && rCpu <= 1.25 ? 'FLAT' : 'GROWING';
  p(`**${verdict}** (FLAT when both ratios are at most 1.25).`);
  p();

  p('### Shutdown and leftovers');
  p();
  const how = stop.early ? `had **already exited during the run** (${stop.signal ? `signal ${stop.signal}` : `exit code ${stop.code}`})` : stop.killed ? `did **not** exit within ${EXIT_GRACE_MS / 1000} s: killed with SIGKILL, gone after ${fixed(stop.seconds, 1)} s`
    : `exited by itself after **${fixed(stop.seconds, 1)} s** (${stop.signal ? `signal ${stop.signal}` : `exit code ${stop.code}`})`;
  p(`After SIGTERM the service ${how}.`);
  p();
  if (stop.early && serviceOutput.length) {
    p('Its last output:');
    p();
    p(['```', ...serviceOutput.slice(-20), '```'].join('\n'));
    p();
  }
  if (leftoverRows.length) {
    p(`**Processes of its tree still alive: ${leftoverRows.length}** (ended by this script afterwards):`);
    p();
    p(markdownTable(['pid', 'name', 'alive at exit', 'alive 5 s later', 'command'], leftoverRows, { align: 'rlll' }));
  } else {
    p('Processes of its tree still alive after it exited: none.');
  }
  p();
  const leftovers = tmpRows.filter((r) => r.what.startsWith('LEFTOVER') || r.what === 'other');
  p(`Left in its TMPDIR (\`${cfg.keepTmp ? tmp : '$TMPDIR'}\`): ${tmpRows.length ? `${tmpRows.length} entries, ${leftovers.length} of them profiles, Playwright artifacts or unknown` : 'nothing'}.`);
  if (tmpRows.length) {
    p();
    p(markdownTable(['entry', 'type', 'KiB', 'what'], tmpRows.map((r) => [`\`${r.rel}\``, r.dir ? 'dir' : 'file', fixed(r.bytes / 1024, 0), r.what]), { align: 'llrl' }));
  }
}

// ------------------------------------------------------------------------------------ main
const state = { service: null, pages: null, tmp: null, leftovers: new Leftovers() };
const cleanup = once(async () => {
  if (state.service && alive(state.service.child)) {
    try {
      process.kill(-state.service.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  await state.leftovers.end({ waitMs: 2000 });
  await state.pages?.close().catch(() => undefined);
  if (state.tmp && !cfg.keepTmp) fs.rmSync(state.tmp, { recursive: true, force: true });
});
cleanupOnSignal(cleanup);

async function main() {
  if (!fs.existsSync(CLI)) throw new Error('dist/src/cli.js missing: run `npm run build` at the repository root');
  if (!HAS_PROC) throw new Error('soak.js reads process trees from /proc: Linux only');
  if (!fs.existsSync(HOSTILE_MODULE)) throw new Error('fixtures/hostile/pages.js missing: the hostile-page corpus is needed');
  const { HOSTILE_PAGES, startHostileServer } = await import(pathToFileURL(HOSTILE_MODULE).href);
  const hostile = HOSTILE_PAGES;
  if (!hostile?.length) throw new Error('HOSTILE_PAGES is empty');

  // Watchdog: the load, the last requests, the shutdown grace and some margin.
  startWatchdog((cfg.minutes * 60 + CLIENT_TIMEOUT_MS / 1000 + EXIT_GRACE_MS / 1000 + 180) * 1000, () => {
    log('soak: watchdog fired, cleaning up');
    return cleanup();
  });

  state.tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'soak-'));
  // Like /tmp: Chromium runs as an unprivileged user when the service runs as root and writes here too.
  fs.chmodSync(state.tmp, 0o1777);
  state.pages = await startHostileServer();
  const keys = Array.from({ length: cfg.inFlight }, () => `ce_soak_${randomBytes(16).toString('hex')}`);
  log(`soak: ${cfg.minutes} min, ${cfg.inFlight} in flight, seed ${cfg.seed}, budget ${cfg.budgetMs} ms; ${hostile.length} hostile pages on ${state.pages.origin}`);
  state.service = await startService({ tmp: state.tmp, keys });
  const service = state.service;
  log(`soak: service pid ${service.pid} ready on ${service.origin} (metrics :${service.metricsPort}), TMPDIR ${state.tmp}`);

  const loadStart = os.loadavg()[0].toFixed(1);
  const outcomes = [];
  const loadStartAt = performance.now();
  const deadline = loadStartAt + cfg.minutes * 60_000;
  const sampler = startSampler(service, state.leftovers, deadline);
  let nextReport = 1;
  const progress = setInterval(() => {
    const s = sampler.series.at(-1);
    const done = outcomes.length;
    const bad = outcomes.filter((o) => o.status === 500 || o.status === 'client_timeout' || o.status === 'network_error').length;
    log(`soak: minute ${nextReport++}: ${integer(done)} requests (${bad} 500/timeouts/network errors)`
      + (s ? `, tree RSS ${MB(s.rss)} MB, CPU ${fixed(s.cpu, 0)} %, ${s.renderers} renderers, killed busy ${s.metrics.killedBusy} memory ${s.metrics.killedMemory}` : ''));
  }, 60_000);
  progress.unref();
  await drive(service, keys, state.pages, hostile, {
    deadline,
    onDone: (o) => {
      outcomes.push(o);
      if (o.status === 500 || o.status === 'client_timeout' || o.status === 'network_error') log(`soak: ${outcomeLabel(o)} after ${fixed(o.ms, 0)} ms: ${o.kind} ${o.name}`);
    },
  });
  const runSeconds = (performance.now() - loadStartAt) / 1000;
  clearInterval(progress);
  await sampler.stop();
  const loadEnd = os.loadavg()[0].toFixed(1);
  log(`soak: load done, ${outcomes.length} requests in ${fixed(runSeconds, 0)} s; SIGTERM to the service`);

  // Remember every process of the tree as it is now, then stop the service.
  state.leftovers.remember([service.pid]);
  const commands = new Map([...state.leftovers.seen.keys()].map((pid) => [pid, cmdline(pid)]));
  const stop = await stopService(service);
  log(`soak: service ${stop.early ? 'had exited during the run' : stop.killed ? 'killed after 60 s' : `exited after ${fixed(stop.seconds, 1)} s`}`);
  const atExit = new Set(state.leftovers.stillRunning());
  await sleep(5000);
  const later = new Set(state.leftovers.stillRunning());
  const table = processTable();
  const leftoverRows = [...new Set([...atExit, ...later])].sort((a, b) => a - b).map((pid) => {
    const command = commands.get(pid) || cmdline(pid);
    const type = /--type=(\S+)/.exec(command)?.[1];
    const short = command.length > 100 ? `${command.slice(0, 100)}…` : command;
    return [pid, table.get(pid)?.comm ?? state.leftovers.seen.get(pid)?.comm ?? '?', atExit.has(pid) ? 'yes' : 'no', later.has(pid) ? 'yes' : 'no', `${type ? `${type}: ` : ''}\`${short.replaceAll('|', '\\|').replaceAll('`', "'")}\``];
  });
  const tmpRows = tmpEntries(state.tmp).map((e) => ({ ...e, what: classify(e.rel) }));

  report({ outcomes, series: sampler.series, hostile, pages: state.pages, stop, serviceOutput: service.output, leftoverRows, tmpRows, tmp: state.tmp, loadStart, loadEnd, loadStartAt, runSeconds });
  if (cfg.keepTmp) log(`soak: TMPDIR kept: ${state.tmp}`);
}

main()
  .then(() => cleanup())
  .then(() => process.exit(0))
  .catch(async (error) => {
    log(error.stack || String(error));
    await cleanup();
    process.exit(1);
  });

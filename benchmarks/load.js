#!/usr/bin/env node
// Limits under load (issue 5): the HTTP service under concurrent clients.
//
//   npm run build                      # at the repository root: the engine is loaded from ../dist
//   node benchmarks/load.js [--quick]  # tables on stdout, progress on stderr
//
// Quick is about 2 min and full about 10 min on a quiet machine; every part is bounded in count
// and time (part 3 stops issuing captures after --budget seconds and says so), and a watchdog
// ends the run if anything hangs.
//
// Options (argv or env): --quick (BENCH_QUICK=1), --parts=rejected,limiter,memory,
// --adapters=floor,floor-express,floor-fastify,floor-koa,node,node+redis,express,fastify,koa, --duration=S (seconds per rejected scenario), --warmup=S,
// --connections=C, --limit=N and --extra=K (limiter: N allowed of N+K), --rounds=R,
// --captures=M (memory part; sampled every --every=100; at most --budget=S seconds of captures).
//
// 1. Rejected requests/s: the engine mounted with each adapter (node = createNodeListener on bare
//    node:http; <adapter>+redis = limits counted in a local redis-server; floor-* = each framework
//    answering a fixed 401 without the engine, for reference)
//    in a server process of its own (load-server.js), driven by autocannon from this process over loopback: 401 without a key,
//    401 with an unknown key, 429 with a valid key already over its per-minute limit.
//    Target: >= 5,000 rejected requests/s.
// 2. Exact limiter counts: N + K requests with one key of limit N, written at the same instant on
//    N + K pre-opened connections; exactly N must pass the limiter (they then fail validation, a
//    cheap 400) and K must get 429. Once with the memory store, once with two server processes
//    (two engines) sharing one redis-server started here on a free loopback port.
// 3. Memory flat after 1,000 captures: real captures of a solid-colour page served on loopback,
//    4 at a time, RSS of the server process and its Chromium tree after every 100.
//    Target: growth between capture 200 and the last sample < 15 %.
//
// Every process this script starts (servers, their Chromium, redis-server) is ended by pid at
// the end, on Ctrl-C/SIGTERM, and when a watchdog fires. No traffic leaves 127.0.0.1.

import { fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { killLeftovers, processTable, sampleTrees, stillRunning, treePids, waitQuiet } from './proc.js';
import { parseArgs } from './args.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const DIST = path.join(HERE, '..', 'dist', 'src', 'index.js');

// ------------------------------------------------------------------------------------ options
const argv = parseArgs(process.argv.slice(2));
if (argv.help || argv.h) {
  const src = fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n');
  const end = src.findIndex((l, i) => i > 0 && !l.startsWith('//'));
  console.log(src.slice(1, end).map((l) => l.replace(/^\/\/ ?/, '')).join('\n'));
  process.exit(0);
}
const opt = (name, env, dflt) => argv[name] ?? process.env[env] ?? dflt;
const truthy = (v) => /^(1|true|yes)$/i.test(String(v ?? ''));
const list = (v) => String(v).split(',').map((s) => s.trim()).filter(Boolean);

const QUICK = truthy(opt('quick', 'BENCH_QUICK', 'false'));
const cfg = {
  parts: new Set(list(opt('parts', 'BENCH_PARTS', 'rejected,limiter,memory'))),
  adapters: list(opt('adapters', 'BENCH_ADAPTERS', QUICK ? 'floor,fastify' : 'floor,floor-express,floor-fastify,floor-koa,node,node+redis,express,fastify,koa')),
  durationSec: Number(opt('duration', 'BENCH_DURATION', QUICK ? 3 : 8)),
  warmupSec: Number(opt('warmup', 'BENCH_WARMUP', 5)),
  warmupRequests: Number(opt('warmup-requests', 'BENCH_WARMUP_REQUESTS', 3000)),
  connections: Number(opt('connections', 'BENCH_CONNECTIONS', 50)),
  limit: Number(opt('limit', 'BENCH_LIMIT', 50)),
  extra: Number(opt('extra', 'BENCH_EXTRA', 50)),
  rounds: Number(opt('rounds', 'BENCH_ROUNDS', QUICK ? 3 : 10)),
  captures: Number(opt('captures', 'BENCH_CAPTURES', QUICK ? 300 : 1000)),
  every: Number(opt('every', 'BENCH_EVERY', 100)),
  captureConcurrency: 4,
  captureBudgetMs: Number(opt('budget', 'BENCH_CAPTURE_BUDGET', QUICK ? 70 : 300)) * 1000,
  watchdogMs: 0, // below: the parts' own bounds plus a margin
  targetRps: 5000,
  targetGrowth: 0.15,
};
cfg.watchdogMs = cfg.captureBudgetMs + (QUICK ? 6 : 12) * 60 * 1000;

const log = (...a) => console.error('[load]', ...a);
const out = (s = '') => console.log(s);
const MB = (bytes) => (bytes == null ? 'n/a' : (bytes / 1048576).toFixed(0));
const ms = (v) => (v == null || Number.isNaN(v) ? 'n/a' : v < 10 ? v.toFixed(1) : v.toFixed(0));
const fmtInt = (n) => Math.round(n).toLocaleString('en-US');
const sleep = (t) => new Promise((r) => setTimeout(r, t));

// ------------------------------------------------------------------ processes and cleanup
const servers = new Set(); // live server handles
const seen = new Map(); // pid -> { comm, start } of every descendant seen (Chromium...)
let redisProc;
let fixture;
let cannon; // running autocannon instance

function remember() {
  const roots = [...servers].map((s) => s.pid);
  if (redisProc?.pid) roots.push(redisProc.pid);
  if (!roots.length) return;
  for (const s of sampleTrees(roots).seen) seen.set(s.pid, s);
}
const rememberTimer = setInterval(remember, 500);
rememberTimer.unref();

function vmRss(pid) {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'latin1'));
    return m ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** Summed RSS and PSS (bytes) of a process tree, and how many processes it has. */
function treeMemory(root) {
  const table = processTable();
  const pids = treePids(root, table);
  let rss = 0;
  let pss = 0;
  for (const pid of pids) {
    rss += vmRss(pid) ?? 0;
    try {
      const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'latin1'));
      if (m) pss += Number(m[1]) * 1024;
    } catch {
      // gone, or smaps_rollup unavailable
    }
  }
  return { rss, pss: pss || null, processes: pids.length };
}

let seq = 0;
function ipc(child, msg, timeoutMs = 60_000) {
  const id = ++seq;
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (m) => {
      if (!m || m.id !== id) return;
      done();
      if (m.error) reject(new Error(m.error));
      else resolve(m);
    };
    const onExit = (code, signal) => {
      done();
      reject(new Error(`server process exited (${code ?? signal}) during ${msg.type}`));
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no answer to ${msg.type} within ${timeoutMs} ms`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.on('exit', onExit);
    child.send({ ...msg, id });
  });
}

/** Forks load-server.js and mounts an engine with `options` under `adapter`. */
async function startServer(adapter, options, { redisUrl } = {}) {
  const child = fork(path.join(HERE, 'load-server.js'), [], {
    execArgv: ['--expose-gc'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const handle = {
    adapter,
    child,
    pid: child.pid,
    port: 0,
    async close() {
      servers.delete(handle);
      if (child.exitCode === null && child.signalCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        await ipc(child, { type: 'close' }, 20_000).catch(() => child.kill('SIGKILL'));
        await Promise.race([exited, sleep(5000)]);
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      }
    },
    memory: () => ipc(child, { type: 'mem' }, 30_000),
  };
  servers.add(handle);
  try {
    const { port } = await ipc(child, { type: 'start', adapter, options, redisUrl }, 90_000);
    handle.port = port;
    remember();
    return handle;
  } catch (error) {
    await handle.close();
    throw error;
  }
}

let cleaning;
function cleanup() {
  cleaning ??= (async () => {
    try {
      cannon?.stop();
    } catch {
      // already stopped
    }
    remember();
    await Promise.all([...servers].map((s) => s.close()));
    await stopRedis();
    if (fixture) {
      const closed = new Promise((r) => fixture.server.close(() => r()));
      fixture.server.closeAllConnections();
      await closed;
    }
    // Anything a server left behind (a Chromium whose parent died) is ended by pid, if it is
    // still the same process (same pid, name and start time).
    for (let i = 0; i < 20 && stillRunning(seen).length; i++) await sleep(250);
    const killed = killLeftovers(seen);
    if (killed.length) log(`ended ${killed.length} leftover process(es): ${killed.join(' ')}`);
  })();
  return cleaning;
}

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.once(signal, () => {
    log(`${signal}: cleaning up`);
    cleanup().finally(() => process.exit(130));
  });
}
const watchdog = setTimeout(() => {
  log(`watchdog: still running after ${(cfg.watchdogMs / 60000).toFixed(0)} min, stopping`);
  cleanup().finally(() => process.exit(2));
}, cfg.watchdogMs);
watchdog.unref();

// ----------------------------------------------------------------------------- loopback helpers
function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** A tiny page server: one solid-colour page, on 127.0.0.1 and a free port. */
function startFixture() {
  const page = Buffer.from(
    '<!doctype html><html><head><meta charset="utf-8"><title>load</title><link rel="icon" href="data:,"></head>' +
      '<body style="margin:0;background:#2e86de"></body></html>',
  );
  let hits = 0;
  const server = http.createServer((req, res) => {
    hits++;
    if (req.url === '/' || req.url.startsWith('/?')) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': page.length, 'Cache-Control': 'no-store' });
      res.end(page);
    } else {
      res.writeHead(404, { 'Content-Length': 0 }).end();
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}/`, hits: () => hits })),
  );
}

async function startRedis() {
  const port = await freePort();
  const proc = spawn(
    'redis-server',
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--protected-mode', 'yes', '--dir', os.tmpdir(), '--loglevel', 'warning'],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  redisProc = proc;
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const failed = new Promise((_, reject) => {
    proc.once('error', reject);
    proc.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${stderr.trim()}`)));
  });
  failed.catch(() => undefined);
  const t0 = Date.now();
  while (Date.now() - t0 < 10_000) {
    if (await Promise.race([redisPing(port), failed])) return { port, url: `redis://127.0.0.1:${port}` };
    await sleep(100);
  }
  throw new Error('redis-server did not answer PING within 10 s');
}

function redisPing(port) {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    let data = '';
    s.setTimeout(1000, () => s.destroy());
    s.on('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      data += d;
      if (data.includes('\r\n')) s.end();
    });
    s.on('close', () => resolve(data.startsWith('+PONG')));
    s.on('error', () => resolve(false));
  });
}

async function stopRedis() {
  const proc = redisProc;
  redisProc = undefined;
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  const exited = new Promise((r) => proc.once('exit', r));
  proc.kill('SIGTERM');
  await Promise.race([exited, sleep(5000)]);
  if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
}

async function get(port, pathAndQuery, headers = {}) {
  const res = await fetch(`http://127.0.0.1:${port}${pathAndQuery}`, { headers });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, headers: res.headers, body };
}

function percentile(sorted, p) {
  if (!sorted.length) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

function table(header, rows) {
  out(`| ${header.join(' | ')} |`);
  out(`|${header.map(() => '---').join('|')}|`);
  for (const r of rows) out(`| ${r.join(' | ')} |`);
}

// ------------------------------------------------------------------- 1. rejected requests/s
async function runCannon(options, { stopAfterMs } = {}) {
  const { default: autocannon } = await import('autocannon');
  return new Promise((resolve, reject) => {
    let timer;
    cannon = autocannon(options, (error, result) => {
      clearTimeout(timer);
      cannon = undefined;
      if (error) reject(error);
      else resolve(result);
    });
    if (stopAfterMs) timer = setTimeout(() => cannon?.stop(), stopAfterMs);
  });
}

async function rejectedPart(results) {
  const overKey = 'ce_load_over_limit_0123456789abcdef';
  const perMinute = 10;
  const capturePath = `/api/v1/capture?url=${encodeURIComponent(fixture.url)}`;
  const scenarios = [
    { name: '401 no key', expect: 401, headers: {} },
    { name: '401 invalid key', expect: 401, headers: { 'x-api-key': 'ce_load_unknown_key_0123456789abcdef' } },
    { name: '429 key over its limit', expect: 429, headers: { 'x-api-key': overKey }, exhaust: true },
  ];
  for (const adapter of cfg.adapters) {
    log(`rejected: starting ${adapter} server`);
    // `<adapter>+redis`: the same mounting with its limits counted in a redis-server started here.
    const [mounting, store] = adapter.split('+');
    const redis = store === 'redis' ? await startRedis() : undefined;
    // Requests without a valid key are limited per address at the FREE rate (SPEC.md): from one
    // client address they would all be 429 after 20. FREE is raised out of the way so that the
    // 401 scenarios measure the 401 path; the 429 scenario uses an account at BASIC = 10/min.
    const server = await startServer(
      mounting,
      {
        allowPrivateNetworks: true,
        apiKeys: [{ key: overKey, tier: 'BASIC' }],
        tiers: { FREE: { requestsPerMinute: 1e9 }, BASIC: { requestsPerMinute: perMinute } },
      },
      { redisUrl: redis?.url },
    );
    // Let start-up finish (Chromium launching, warm contexts opening: Playwright work in this very
    // process) before measuring anything.
    await waitQuiet(server.pid, { windowMs: 500, maxTicks: 10, timeoutMs: 20_000 });
    try {
      for (const sc of adapter.startsWith('floor') ? scenarios.slice(0, 1) : scenarios) {
        if (sc.exhaust) {
          // Use the key's whole minute (these cheap requests fail validation: no url), then check it is over.
          for (let i = 0; i < perMinute; i++) await get(server.port, '/api/v1/capture', sc.headers);
          const probe = await get(server.port, capturePath, sc.headers);
          if (probe.status !== 429) throw new Error(`expected the key to be over its limit, got ${probe.status}`);
        }
        const base = { url: `http://127.0.0.1:${server.port}${capturePath}`, connections: cfg.connections, pipelining: 1, headers: sc.headers };
        log(`rejected: ${adapter} / ${sc.name}: warm-up ${cfg.warmupRequests} requests (at most ${cfg.warmupSec} s), then ${cfg.durationSec} s`);
        // Warm-up by count, so that the JIT has seen the path even when the machine is slow; bounded in time.
        await runCannon({ ...base, amount: cfg.warmupRequests }, { stopAfterMs: cfg.warmupSec * 1000 });
        const loadAvg = os.loadavg()[0];
        const rssStart = vmRss(server.pid);
        const ticksStart = processTable().get(server.pid)?.ticks ?? NaN;
        const clientStart = process.cpuUsage();
        let rssPeak = rssStart ?? 0;
        const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, vmRss(server.pid) ?? 0)), 100);
        let r;
        try {
          r = await runCannon({ ...base, duration: cfg.durationSec });
        } finally {
          clearInterval(sampler);
        }
        rssPeak = Math.max(rssPeak, vmRss(server.pid) ?? 0);
        const serverCpuMs = ((processTable().get(server.pid)?.ticks ?? NaN) - ticksStart) * 10; // 100 ticks/s
        const client = process.cpuUsage(clientStart);
        const clientCpuMs = (client.user + client.system) / 1000;
        const codes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([c, v]) => [c, v.count]));
        const answered = Object.values(codes).reduce((a, b) => a + b, 0);
        const rps = answered / r.duration;
        const onlyExpected = Object.keys(codes).every((c) => Number(c) === sc.expect) && r.errors === 0 && r.timeouts === 0;
        results.push({
          adapter,
          scenario: sc.name,
          codes,
          errors: r.errors + r.timeouts,
          rps,
          p50: r.latency.p50,
          p99: r.latency.p99,
          loadAvg,
          serverCpuUsPerReq: (serverCpuMs * 1000) / answered,
          serverCpuShare: serverCpuMs / (r.duration * 1000),
          clientCpuShare: clientCpuMs / (r.duration * 1000),
          rssStart,
          rssPeak,
          pass: adapter.startsWith('floor') ? null : rps >= cfg.targetRps && onlyExpected,
          onlyExpected,
        });
        log(`  ${fmtInt(rps)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, codes ${JSON.stringify(codes)}, server CPU ${((serverCpuMs * 1000) / answered).toFixed(0)} µs/req`);
      }
    } finally {
      await server.close();
      if (redis) await stopRedis();
    }
  }
}

function printRejected(results) {
  out(`## 1. Rejected requests/s`);
  out();
  out(
    `autocannon from the coordinating process, ${cfg.connections} keep-alive connections, ${cfg.durationSec} s per scenario after a warm-up of ${fmtInt(cfg.warmupRequests)} requests (at most ${cfg.warmupSec} s); ` +
      `each adapter's server is its own Node process (engine with its Chromium pool started, silent logger). ` +
      `\`GET /api/v1/capture?url=<loopback page>\`. RSS is the server's Node process (VmRSS), at the start of the measured run and its peak. ` +
      `Server CPU is the user + system time of the server's Node process during the run (from /proc) divided by the answers: a figure that ` +
      `depends much less on what else the machine runs than req/s does, and 1,000,000 / that figure estimates what the server would answer with a core of its own; ` +
      `"CPU used" is the server's and the client's (autocannon) CPU time as a share of one core, "load avg" the 1-minute load average when the run started (2 cores). ` +
      `The floor rows are not the engine: a fixed 401 of the same size from bare node:http (floor) and from each framework with one trivial handler (floor-express, floor-fastify, floor-koa), ` +
      `for the same client: the ceiling of this machine at that moment, and what each framework alone costs. ` +
      `Target: >= ${fmtInt(cfg.targetRps)} req/s, and every answer has the expected status.`,
  );
  out();
  table(
    ['adapter', 'scenario', 'answers', 'req/s', 'p50 ms', 'p99 ms', 'server RSS MB (start → peak)', 'server CPU µs/req', '≈ req/s on a whole core', 'CPU used: server / client', 'load avg', 'target'],
    results.map((r) => [
      r.adapter,
      r.scenario,
      Object.entries(r.codes).map(([c, n]) => `${c} × ${fmtInt(n)}`).join(', ') + (r.errors ? `, errors × ${r.errors}` : ''),
      fmtInt(r.rps),
      ms(r.p50),
      ms(r.p99),
      `${MB(r.rssStart)} → ${MB(r.rssPeak)}`,
      Number.isFinite(r.serverCpuUsPerReq) ? fmtInt(r.serverCpuUsPerReq) : 'n/a',
      Number.isFinite(r.serverCpuUsPerReq) && r.serverCpuUsPerReq > 0 ? fmtInt(1e6 / r.serverCpuUsPerReq) : 'n/a',
      `${Math.round(r.serverCpuShare * 100)} % / ${Math.round(r.clientCpuShare * 100)} %`,
      r.loadAvg.toFixed(1),
      r.pass === null ? '(reference)' : r.pass ? 'PASS' : r.onlyExpected ? 'FAIL (rate)' : 'FAIL (status)',
    ]),
  );
  out();
}

// ------------------------------------------------------------------ 2. exact limiter counts
/**
 * Opens `count` connections (spread over `ports`), then writes one request on each in the same
 * tick, and reads every answer. Returns [{ status, code, remaining }].
 */
async function fireTogether(ports, requestPath, headers, count) {
  const sockets = await Promise.all(
    Array.from(
      { length: count },
      (_, i) =>
        new Promise((resolve, reject) => {
          const s = net.connect(ports[i % ports.length], '127.0.0.1');
          s.setNoDelay(true);
          s.once('connect', () => resolve({ socket: s, port: ports[i % ports.length] }));
          s.once('error', reject);
        }),
    ),
  );
  const answers = sockets.map(
    ({ socket }) =>
      new Promise((resolve) => {
        const chunks = [];
        const timer = setTimeout(() => socket.destroy(), 30_000);
        socket.on('data', (d) => chunks.push(d));
        socket.on('error', () => undefined);
        socket.on('close', () => {
          clearTimeout(timer);
          const text = Buffer.concat(chunks).toString('latin1');
          const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1] ?? 0);
          const remaining = /\r\nx-ratelimit-remaining: *(\d+)/i.exec(text)?.[1];
          const code = /"code":"([A-Z_]+)"/.exec(text)?.[1];
          resolve({ status, code, remaining: remaining === undefined ? undefined : Number(remaining) });
        });
      }),
  );
  const extra = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
  for (const { socket, port } of sockets) {
    socket.write(`GET ${requestPath} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}Connection: close\r\n\r\n`);
  }
  return Promise.all(answers);
}

function judgeRound(answers, limit, extra) {
  const passed = answers.filter((a) => a.status !== 429);
  const limited = answers.filter((a) => a.status === 429 && a.code === 'RATE_LIMIT_EXCEEDED');
  const cheap = passed.every((a) => a.status === 400 && a.code === 'INVALID_PARAMETER');
  // Each request that passed saw its own place in the window: remaining = limit-1 ... 0, once each.
  const remaining = new Set(passed.map((a) => a.remaining));
  const distinct = remaining.size === limit && [...remaining].every((v) => v >= 0 && v < limit);
  return {
    passed: passed.length,
    limited: limited.length,
    other: answers.length - passed.length - limited.length,
    cheap,
    distinct,
    exact: passed.length === limit && limited.length === extra && cheap,
  };
}

async function limiterPart(results) {
  const N = cfg.limit;
  const K = cfg.extra;
  const keys = Array.from({ length: cfg.rounds }, (_, i) => ({ key: `ce_load_limit_${String(i).padStart(3, '0')}_abcdef0123456789`, tier: 'BASIC' }));
  // No capture runs in this part: the browser is launched as usual, but no warm contexts are opened.
  const options = { allowPrivateNetworks: true, apiKeys: keys, tiers: { BASIC: { requestsPerMinute: N } }, concurrency: 1, warmContexts: 0 };
  // Cheap requests: no url, so every request that passes the limiter fails validation (400).
  const requestPath = '/api/v1/capture?viewport_width=800';

  const runRounds = async (label, instances, ports) => {
    const rounds = [];
    for (const { key } of keys) {
      const answers = await fireTogether(ports, requestPath, { 'X-API-Key': key }, N + K);
      rounds.push(judgeRound(answers, N, K));
    }
    const r = { label, instances, rounds };
    results.push(r);
    log(`limiter: ${label}: ${rounds.map((x) => `${x.passed}/${x.limited}`).join(' ')}`);
  };

  log(`limiter: memory store, one express server, ${cfg.rounds} rounds of ${N + K} requests, limit ${N}`);
  const one = await startServer('express', options);
  try {
    await runRounds('memory', '1 (express)', [one.port]);
  } finally {
    await one.close();
  }

  let redis;
  try {
    redis = await startRedis();
  } catch (error) {
    log(`limiter: redis part skipped: ${error.message}`);
    results.push({ label: 'redis', instances: 'skipped', rounds: [], skipped: error.message });
    await stopRedis();
    return;
  }
  try {
    log(`limiter: redis store, express + fastify servers sharing redis-server on 127.0.0.1:${redis.port}`);
    const a = await startServer('express', options, { redisUrl: redis.url });
    const b = await startServer('fastify', options, { redisUrl: redis.url });
    try {
      await runRounds('redis', '2 (express + fastify)', [a.port, b.port]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  } finally {
    await stopRedis();
  }
}

function printLimiter(results) {
  const N = cfg.limit;
  const K = cfg.extra;
  out(`## 2. Exact limiter counts`);
  out();
  out(
    `One key per round with a limit of N = ${N}/min; N + k = ${N + K} requests (no \`url\`, so a request that passes the limiter answers 400) ` +
      `written in the same tick on ${N + K} pre-opened connections (alternating between the instances when there are two); a fresh key each round. ` +
      `The servers are express (and fastify for the second instance) with \`concurrency: 1, warmContexts: 0\` (no capture runs here). ` +
      `Exact = exactly ${N} answers other than 429, all \`400 INVALID_PARAMETER\`, and exactly ${K} \`429 RATE_LIMIT_EXCEEDED\`.`,
  );
  out();
  table(
    ['limiter store', 'instances', 'rounds', 'passed per round', '429 per round', 'other', 'X-RateLimit-Remaining 0..N-1 once each', 'exact'],
    results.map((r) => {
      if (r.skipped) return [r.label, 'skipped', '0', '', '', '', '', `SKIPPED (${r.skipped})`];
      const span = (xs) => (Math.min(...xs) === Math.max(...xs) ? String(xs[0]) : `${Math.min(...xs)}–${Math.max(...xs)}`);
      const exact = r.rounds.filter((x) => x.exact).length;
      return [
        r.label,
        r.instances,
        String(r.rounds.length),
        span(r.rounds.map((x) => x.passed)),
        span(r.rounds.map((x) => x.limited)),
        String(r.rounds.reduce((a, x) => a + x.other, 0)),
        `${r.rounds.filter((x) => x.distinct).length}/${r.rounds.length} rounds`,
        exact === r.rounds.length && r.rounds.length > 0 ? `PASS (${exact}/${r.rounds.length})` : `FAIL (${exact}/${r.rounds.length})`,
      ];
    }),
  );
  out();
}

// ------------------------------------------------------------ 3. memory after 1,000 captures
async function memoryPart(result) {
  const key = 'ce_load_enterprise_0123456789abcdef';
  log(`memory: starting express server; ${cfg.captures} captures of ${fixture.url}, ${cfg.captureConcurrency} at a time`);
  const server = await startServer('express', {
    allowPrivateNetworks: true,
    apiKeys: [{ key, tier: 'ENTERPRISE' }],
    tiers: { ENTERPRISE: { requestsPerMinute: 1e9, monthlyQuota: 1e9 } },
    // Browser recycling (default: a fresh Chromium every 1,000 contexts) would replace the
    // browser right at the end of the series and hide any growth: one browser for the whole run.
    recycleAfter: 0,
  });
  const capturePath = `/api/v1/capture?url=${encodeURIComponent(fixture.url)}`;
  const series = [];
  const latencies = [];
  const failures = {};
  let done = 0;
  let busyMs = 0;
  result.series = series;
  result.latencies = latencies;
  result.failures = failures;

  const sample = async () => {
    await waitQuiet(server.pid, { windowMs: 200, maxTicks: 3, timeoutMs: 3000 });
    const node = await server.memory();
    const tree = treeMemory(server.pid);
    series.push({ captures: done, treeRss: tree.rss, treePss: tree.pss, processes: tree.processes, nodeRss: node.rss, heap: node.heapUsed, stats: node.stats });
    log(`memory: ${done} captures: tree RSS ${MB(tree.rss)} MB, node RSS ${MB(node.rss)} MB, heap ${MB(node.heapUsed)} MB`);
  };

  try {
    await sample();
    const t0 = Date.now();
    while (done < cfg.captures) {
      if (Date.now() - t0 > cfg.captureBudgetMs) {
        result.truncated = `stopped after ${done} captures: time budget of ${cfg.captureBudgetMs / 1000} s used`;
        log(`memory: ${result.truncated}`);
        break;
      }
      const batch = Math.min(cfg.every, cfg.captures - done);
      let issued = 0;
      const b0 = performance.now();
      const lane = async () => {
        while (issued < batch && Date.now() - t0 <= cfg.captureBudgetMs) {
          issued++;
          const s = performance.now();
          let status = 0;
          let ok = false;
          try {
            const r = await get(server.port, capturePath, { 'X-API-Key': key });
            status = r.status;
            ok = r.status === 200 && r.headers.get('content-type') === 'image/png' && r.body.length > 0;
          } catch {
            status = 'network error';
          }
          latencies.push(performance.now() - s);
          if (!ok) failures[status] = (failures[status] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: cfg.captureConcurrency }, lane));
      busyMs += performance.now() - b0;
      done += issued;
      await sample();
    }
  } finally {
    result.done = done;
    result.busyMs = busyMs;
    await server.close();
  }
}

function printMemory(r) {
  out(`## 3. Memory after ${fmtInt(r.done ?? 0)} captures`);
  out();
  out(
    `Express server process, \`GET /api/v1/capture?url=<solid-colour page on 127.0.0.1>\` (png, 1920×1080), ${cfg.captureConcurrency} clients back to back, ` +
      `ENTERPRISE key with limits out of the way, browser recycling off (one Chromium for the whole series). ` +
      `After every ${cfg.every} captures the clients pause, the process tree is left to go quiet (≤ 3 s), Node runs a full GC, then: ` +
      `tree RSS = sum of VmRSS over the server and all its descendants (Chromium), from /proc; PSS likewise (shared pages split).`,
  );
  if (r.truncated) out(`\n**${r.truncated}.**`);
  out();
  table(
    ['captures', 'tree RSS MB', 'tree PSS MB', 'processes', 'node RSS MB', 'node heap MB', 'contexts open (warm)'],
    r.series.map((s) => [fmtInt(s.captures), MB(s.treeRss), MB(s.treePss), String(s.processes), MB(s.nodeRss), MB(s.heap), s.stats ? `${s.stats.contexts} (${s.stats.warm})` : 'n/a']),
  );
  out();
  const sorted = [...r.latencies].sort((a, b) => a - b);
  const from = r.series.find((s) => s.captures === 200) ?? r.series[1];
  const last = r.series[r.series.length - 1];
  const growth = (k) => (from && last && from !== last ? (last[k] - from[k]) / from[k] : NaN);
  const pct = (g) => (Number.isNaN(g) ? 'n/a' : `${g >= 0 ? '+' : ''}${(g * 100).toFixed(1)} %`);
  const failed = Object.values(r.failures).reduce((a, b) => a + b, 0);
  const g = growth('treeRss');
  const after = r.series.filter((s) => from && s.captures >= from.captures);
  const peak = from && after.length > 1 ? (Math.max(...after.map((s) => s.treeRss)) - from.treeRss) / from.treeRss : NaN;
  r.growth = g;
  r.pass = !Number.isNaN(g) && g < cfg.targetGrowth && failed === 0 && !r.truncated;
  const verdict = r.pass
    ? 'PASS'
    : r.truncated
      ? `FAIL (incomplete: ${r.done} of ${cfg.captures} captures)`
      : failed
        ? 'FAIL (failed captures)'
        : 'FAIL (growth)';
  table(
    ['captures', 'failed', 'captures/s', 'p50 ms', 'p99 ms', `tree RSS ${from?.captures ?? '?'} → ${last?.captures ?? '?'}`, 'tree RSS, highest after', 'tree PSS', 'node RSS', 'node heap', `target (tree RSS < +${cfg.targetGrowth * 100} %)`],
    [
      [
        fmtInt(r.done ?? 0),
        failed ? `${failed} (${Object.entries(r.failures).map(([c, n]) => `${c} × ${n}`).join(', ')})` : '0',
        r.busyMs ? (r.latencies.length / (r.busyMs / 1000)).toFixed(1) : 'n/a',
        ms(percentile(sorted, 50)),
        ms(percentile(sorted, 99)),
        pct(g),
        pct(peak),
        pct(growth('treePss')),
        pct(growth('nodeRss')),
        pct(growth('heap')),
        verdict,
      ],
    ],
  );
  out();
}

// ------------------------------------------------------------------------------------- main
async function main() {
  if (!fs.existsSync(DIST)) {
    log('dist/ is missing: run `npm run build` at the repository root first');
    process.exit(1);
  }
  const t0 = Date.now();
  const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
  fixture = await startFixture();
  const rejected = [];
  const limiter = [];
  const memory = {};
  let failed = false;
  const step = async (name, fn) => {
    if (!cfg.parts.has(name)) return;
    try {
      await fn();
    } catch (error) {
      failed = true;
      log(`${name}: ${error.stack ?? error}`);
    }
  };
  await step('rejected', () => rejectedPart(rejected));
  await step('limiter', () => limiterPart(limiter));
  await step('memory', () => memoryPart(memory));
  await cleanup();

  out(`# capture-engine: limits under load${QUICK ? ' (quick)' : ''}`);
  out();
  out(`Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average at start ${load}; all traffic on 127.0.0.1.`);
  out();
  if (cfg.parts.has('rejected')) printRejected(rejected);
  if (cfg.parts.has('limiter')) printLimiter(limiter);
  if (cfg.parts.has('memory') && memory.series) printMemory(memory);
  const verdicts = [
    ...rejected.filter((r) => r.pass !== null).map((r) => r.pass),
    ...limiter.filter((r) => !r.skipped).map((r) => r.rounds.length > 0 && r.rounds.every((x) => x.exact)),
    ...(memory.series ? [memory.pass] : []),
  ];
  out(`Finished in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${verdicts.filter(Boolean).length}/${verdicts.length} targets met${failed ? '; a part failed to run (see stderr)' : ''}.`);
  process.exit(failed ? 1 : 0);
}

main().catch(async (error) => {
  log(error.stack ?? error);
  await cleanup();
  process.exit(1);
});

#!/usr/bin/env node
// Limits under load (issue 5): the HTTP service under concurrent clients.
//
//   npm run build                           # at the repository root: the engine is loaded from dist/
//   node benchmarks/load/load.js [--quick]  # tables on stdout, progress on stderr
//   (from benchmarks/: npm run load, npm run load:quick)
//
// Quick is about 2 min and full about 10 min on a quiet machine; every part is bounded in count
// and time (part 3 stops issuing captures after --budget seconds and says so), and a watchdog
// ends the run if anything hangs.
//
// Options (argv or env): --quick (BENCH_QUICK=1), --parts=rejected,limiter,memory (BENCH_PARTS),
// --adapters=floor,floor-express,floor-fastify,floor-koa,node,node+redis,express,fastify,koa
// (BENCH_ADAPTERS), --duration=S (seconds per rejected scenario, BENCH_DURATION), --warmup=S
// (BENCH_WARMUP), --warmup-requests=N (BENCH_WARMUP_REQUESTS), --connections=C (BENCH_CONNECTIONS),
// --limit=N and --extra=K (limiter: N allowed of N+K; BENCH_LIMIT, BENCH_EXTRA), --rounds=R
// (BENCH_ROUNDS), --captures=M (memory part, BENCH_CAPTURES; sampled every --every=100,
// BENCH_EVERY; at most --budget=S seconds of captures, BENCH_CAPTURE_BUDGET).
//
// 1. Rejected requests/s (load-rejected.js): the engine's HTTP service (createCaptureHttp) mounted
//    with each adapter (node = createNodeListener on bare node:http; <adapter>+redis = limits
//    counted in a local redis-server; floor-* = each framework answering a fixed 401 without the
//    engine, for reference) in a server process of its own (load-server.js), driven by autocannon from this
//    process over loopback: 401 without a key, 401 with an unknown key, 429 with a valid key
//    already over its per-minute limit. Target: >= 5,000 rejected requests/s.
// 2. Exact limiter counts (load-limiter.js): N + K requests with one key of limit N, written at the
//    same instant on N + K pre-opened connections; exactly N must pass the limiter (they then fail
//    validation, a cheap 400) and K must get 429. Once with the memory store, once with two server
//    processes (two engines) sharing one redis-server started here on a free loopback port.
// 3. Memory flat after 1,000 captures (load-memory.js): real captures of a solid-colour page served
//    on loopback, 4 at a time, RSS of the server process and its Chromium tree after every 100.
//    Target: growth between capture 200 and the last sample < 15 %.
//
// Every process this script starts (servers, their Chromium, redis-server) is ended by pid at
// the end, on Ctrl-C/SIGTERM, and when a watchdog fires. No traffic leaves 127.0.0.1.

import os from 'node:os';
import { stopCannon } from '../lib/autocannon.js';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { missing } from '../lib/dist.js';
import { html, startFixtureServer } from '../lib/fixture-server.js';
import { stopAllRedis } from '../lib/redis.js';
import { cleanupOnSignal, once, startWatchdog } from '../lib/shutdown.js';
import { limiterVerdicts, printLimiter, runLimiter } from './load-limiter.js';
import { memoryVerdicts, printMemory, runMemory } from './load-memory.js';
import { printRejected, rejectedVerdicts, runRejected } from './load-rejected.js';
import { closeAllServers } from './load-servers.js';

// ------------------------------------------------------------------------------------ options
const opts = readOptions(import.meta.url, {
  quick: { flag: true, env: 'BENCH_QUICK' },
  parts: { env: 'BENCH_PARTS' },
  adapters: { env: 'BENCH_ADAPTERS' },
  duration: { env: 'BENCH_DURATION' },
  warmup: { env: 'BENCH_WARMUP' },
  'warmup-requests': { env: 'BENCH_WARMUP_REQUESTS' },
  connections: { env: 'BENCH_CONNECTIONS' },
  limit: { env: 'BENCH_LIMIT' },
  extra: { env: 'BENCH_EXTRA' },
  rounds: { env: 'BENCH_ROUNDS' },
  captures: { env: 'BENCH_CAPTURES' },
  every: { env: 'BENCH_EVERY' },
  budget: { env: 'BENCH_CAPTURE_BUDGET' },
});
const QUICK = opts.flag('quick');
const cfg = {
  parts: new Set(opts.list('parts', 'rejected,limiter,memory')),
  adapters: opts.list('adapters', QUICK ? 'floor,fastify' : 'floor,floor-express,floor-fastify,floor-koa,node,node+redis,express,fastify,koa'),
  durationSec: opts.number('duration', QUICK ? 3 : 8),
  warmupSec: opts.number('warmup', 5),
  warmupRequests: opts.number('warmup-requests', 3000),
  connections: opts.number('connections', 50),
  limit: opts.number('limit', 50),
  extra: opts.number('extra', 50),
  rounds: opts.number('rounds', QUICK ? 3 : 10),
  captures: opts.number('captures', QUICK ? 300 : 1000),
  every: opts.number('every', 100),
  captureConcurrency: 4,
  captureBudgetMs: opts.number('budget', QUICK ? 70 : 300) * 1000,
  targetRps: 5000,
  targetGrowth: 0.15,
};
// The parts' own bounds plus a margin.
const watchdogMs = cfg.captureBudgetMs + (QUICK ? 6 : 12) * 60 * 1000;

const log = (...a) => console.error('[load]', ...a);
const out = (s = '') => console.log(s);

// ------------------------------------------------------------------------------------- cleanup
let fixture;
const cleanup = once(async () => {
  stopCannon();
  // Anything a server left behind (a Chromium whose parent died) is ended by pid, if it is
  // still the same process (same pid, name and start time).
  const killed = await closeAllServers();
  await stopAllRedis();
  await fixture?.close();
  if (killed.length) log(`ended ${killed.length} leftover process(es): ${killed.join(' ')}`);
});
cleanupOnSignal((signal) => {
  log(`${signal}: cleaning up`);
  return cleanup();
});
startWatchdog(watchdogMs, () => {
  log(`watchdog: still running after ${(watchdogMs / 60000).toFixed(0)} min, stopping`);
  return cleanup();
});

// ------------------------------------------------------------------------------------- main
/** A tiny page for the captures: one solid colour, at / on 127.0.0.1 and a free port. */
const SOLID_PAGE = '<!doctype html><html><head><meta charset="utf-8"><title>load</title><link rel="icon" href="data:,"></head>' +
  '<body style="margin:0;background:#2e86de"></body></html>';

async function main() {
  const why = missing();
  if (why) {
    log(why);
    process.exit(1);
  }
  const t0 = Date.now();
  const load = os.loadavg().map((l) => l.toFixed(1)).join(' ');
  fixture = await startFixtureServer({ '/': html(SOLID_PAGE) });
  const ctx = { cfg, fixture, log };
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
  await step('rejected', () => runRejected(ctx, rejected));
  await step('limiter', () => runLimiter(ctx, limiter));
  await step('memory', () => runMemory(ctx, memory));
  await cleanup();

  out(`# capture-engine: limits under load${QUICK ? ' (quick)' : ''}`);
  out();
  out(`Node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model.trim() ?? 'unknown'}), load average at start ${load}; all traffic on 127.0.0.1.`);
  out();
  for (const line of binaryLines({ 'every engine server: each adapter, with or without redis': CHROMIUM_PATH })) out(line);
  out('- the floor-* servers answer without an engine or a Chromium');
  out();
  if (cfg.parts.has('rejected')) printRejected(rejected, cfg);
  if (cfg.parts.has('limiter')) printLimiter(limiter, cfg);
  if (cfg.parts.has('memory') && memory.series) printMemory(memory, cfg);
  const verdicts = [...rejectedVerdicts(rejected), ...limiterVerdicts(limiter), ...memoryVerdicts(memory, cfg)];
  out(`Finished in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${verdicts.filter(Boolean).length}/${verdicts.length} targets met${failed ? '; a part failed to run (see stderr)' : ''}.`);
  process.exit(failed ? 1 : 0);
}

main().catch(async (error) => {
  log(error.stack ?? error);
  await cleanup();
  process.exit(1);
});

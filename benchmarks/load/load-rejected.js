// Part 1 of load.js, rejected requests/s: each adapter's server in its own process, autocannon
// from this process over loopback: 401 without a key, 401 with an unknown key, 429 with a valid key
// already over its per-minute limit. Target: >= 5,000 rejected requests/s.

import os from 'node:os';
import { runCannon } from '../lib/autocannon.js';
import { integer as fmtInt, mebibytes, millis as ms } from '../lib/format.js';
import { get } from '../lib/http-get.js';
import { rssBytes } from '../lib/process-memory.js';
import { TICKS_PER_SECOND, processTicks } from '../lib/process-tree.js';
import { startRedis } from '../lib/redis.js';
import { markdownTable } from '../lib/tables.js';
import { waitQuiet } from '../lib/wait-quiet.js';
import { startServer } from './load-servers.js';

const MB = (bytes) => mebibytes(bytes, 'n/a');
const OVER_KEY = 'ce_load_over_limit_0123456789abcdef';
const PER_MINUTE = 10;
const SCENARIOS = [
  { name: '401 no key', expect: 401, headers: {} },
  { name: '401 invalid key', expect: 401, headers: { 'x-api-key': 'ce_load_unknown_key_0123456789abcdef' } },
  { name: '429 key over its limit', expect: 429, headers: { 'x-api-key': OVER_KEY }, exhaust: true },
];

/** One scenario against one server: warm-up, then a measured run with the server's RSS and CPU. */
async function measure({ cfg, log }, adapter, server, sc, capturePath) {
  if (sc.exhaust) {
    // Use the key's whole minute (these cheap requests fail validation: no url), then check it is over.
    for (let i = 0; i < PER_MINUTE; i++) await get(server.port, '/api/v1/capture', sc.headers);
    const probe = await get(server.port, capturePath, sc.headers);
    if (probe.status !== 429) throw new Error(`expected the key to be over its limit, got ${probe.status}`);
  }
  const base = { url: `http://127.0.0.1:${server.port}${capturePath}`, connections: cfg.connections, pipelining: 1, headers: sc.headers };
  log(`rejected: ${adapter} / ${sc.name}: warm-up ${cfg.warmupRequests} requests (at most ${cfg.warmupSec} s), then ${cfg.durationSec} s`);
  // Warm-up by count, so that the JIT has seen the path even when the machine is slow; bounded in time.
  await runCannon({ ...base, amount: cfg.warmupRequests }, { stopAfterMs: cfg.warmupSec * 1000 });
  const loadAvg = os.loadavg()[0];
  const rssStart = rssBytes(server.pid);
  const ticksStart = processTicks(server.pid);
  const clientStart = process.cpuUsage();
  let rssPeak = rssStart ?? 0;
  const sampler = setInterval(() => (rssPeak = Math.max(rssPeak, rssBytes(server.pid) ?? 0)), 100);
  let r;
  try {
    r = await runCannon({ ...base, duration: cfg.durationSec });
  } finally {
    clearInterval(sampler);
  }
  rssPeak = Math.max(rssPeak, rssBytes(server.pid) ?? 0);
  const serverCpuMs = ((processTicks(server.pid) - ticksStart) * 1000) / TICKS_PER_SECOND;
  const client = process.cpuUsage(clientStart);
  const clientCpuMs = (client.user + client.system) / 1000;
  const codes = Object.fromEntries(Object.entries(r.statusCodeStats ?? {}).map(([c, v]) => [c, v.count]));
  const answered = Object.values(codes).reduce((a, b) => a + b, 0);
  const rps = answered / r.duration;
  const onlyExpected = Object.keys(codes).every((c) => Number(c) === sc.expect) && r.errors === 0 && r.timeouts === 0;
  log(`  ${fmtInt(rps)} req/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms, codes ${JSON.stringify(codes)}, server CPU ${((serverCpuMs * 1000) / answered).toFixed(0)} µs/req`);
  return {
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
  };
}

/** Runs every adapter of cfg.adapters; pushes one result per adapter and scenario into `results`. */
export async function runRejected(ctx, results) {
  const { cfg, fixture, log } = ctx;
  const capturePath = `/api/v1/capture?url=${encodeURIComponent(fixture.url('/'))}`;
  for (const adapter of cfg.adapters) {
    log(`rejected: starting ${adapter} server`);
    // `<adapter>+redis`: the same mounting with its limits counted in a redis-server started here.
    const [mounting, store] = adapter.split('+');
    const redis = store === 'redis' ? await startRedis() : undefined;
    // Requests without a valid key are limited per address at the FREE rate (SPEC.md): from one
    // client address they would all be 429 after 20. FREE is raised out of the way so that the
    // 401 scenarios measure the 401 path; the 429 scenario uses an account at BASIC = 10/min.
    const options = {
      allowPrivateNetworks: true,
      apiKeys: [{ key: OVER_KEY, tier: 'BASIC' }],
      tiers: { FREE: { requestsPerMinute: 1e9 }, BASIC: { requestsPerMinute: PER_MINUTE } },
    };
    const server = await startServer(mounting, options, { redisUrl: redis?.url }).catch(async (error) => {
      await redis?.stop();
      throw error;
    });
    // Let start-up finish (Chromium launching, warm contexts opening: Playwright work in this very
    // process) before measuring anything.
    await waitQuiet(server.pid, { windowMs: 500, maxTicks: 10, timeoutMs: 20_000 });
    try {
      for (const sc of adapter.startsWith('floor') ? SCENARIOS.slice(0, 1) : SCENARIOS) {
        results.push(await measure(ctx, adapter, server, sc, capturePath));
      }
    } finally {
      await server.close();
      await redis?.stop();
    }
  }
}

export function printRejected(results, cfg) {
  console.log(`## 1. Rejected requests/s

autocannon from the coordinating process, ${cfg.connections} keep-alive connections, ${cfg.durationSec} s per scenario after a warm-up of ${fmtInt(cfg.warmupRequests)} requests (at most ${cfg.warmupSec} s); ` +
    `each adapter's server is its own Node process (engine with its Chromium pool started, silent logger). ` +
    `\`GET /api/v1/capture?url=<loopback page>\`. RSS is the server's Node process (VmRSS), at the start of the measured run and its peak. ` +
    `Server CPU is the user + system time of the server's Node process during the run (from /proc) divided by the answers: a figure that ` +
    `depends much less on what else the machine runs than req/s does, and 1,000,000 / that figure estimates what the server would answer with a core of its own; ` +
    `"CPU used" is the server's and the client's (autocannon) CPU time as a share of one core, "load avg" the 1-minute load average when the run started (2 cores). ` +
    `The floor rows are not the engine: a fixed 401 of the same size from bare node:http (floor) and from each framework with one trivial handler (floor-express, floor-fastify, floor-koa), ` +
    `for the same client: the ceiling of this machine at that moment, and what each framework alone costs. ` +
    `Target: >= ${fmtInt(cfg.targetRps)} req/s, and every answer has the expected status.\n`);
  const perReq = (r) => Number.isFinite(r.serverCpuUsPerReq);
  console.log(markdownTable(
    ['adapter', 'scenario', 'answers', 'req/s', 'p50 ms', 'p99 ms', 'server RSS MB (start → peak)', 'server CPU µs/req', '≈ req/s on a whole core', 'CPU used: server / client', 'load avg', 'target'],
    results.map((r) => [
      r.adapter,
      r.scenario,
      Object.entries(r.codes).map(([c, n]) => `${c} × ${fmtInt(n)}`).join(', ') + (r.errors ? `, errors × ${r.errors}` : ''),
      fmtInt(r.rps),
      ms(r.p50),
      ms(r.p99),
      `${MB(r.rssStart)} → ${MB(r.rssPeak)}`,
      perReq(r) ? fmtInt(r.serverCpuUsPerReq) : 'n/a',
      perReq(r) && r.serverCpuUsPerReq > 0 ? fmtInt(1e6 / r.serverCpuUsPerReq) : 'n/a',
      `${Math.round(r.serverCpuShare * 100)} % / ${Math.round(r.clientCpuShare * 100)} %`,
      r.loadAvg.toFixed(1),
      r.pass === null ? '(reference)' : r.pass ? 'PASS' : r.onlyExpected ? 'FAIL (rate)' : 'FAIL (status)',
    ]),
  ));
  console.log();
}

/** One verdict per engine row (the floor rows are references). */
export const rejectedVerdicts = (results) => results.filter((r) => r.pass !== null).map((r) => r.pass);

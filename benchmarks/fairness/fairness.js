#!/usr/bin/env node
// Fair sharing benchmark: how long account B's lone capture takes while account A floods the
// service, with A's and B's captures in one FIFO line (B under A's account: what one tenant, or
// the engine before fair queues, gets) and with fair queues (B under its own account).
//
//   node benchmarks/fairness/fairness.js [--flood=200] [--page-ms=300] [--concurrency=2] [--rest=5]
//   (from benchmarks/: npm run fairness)
//
// Environment equivalents: BENCH_FLOOD, BENCH_PAGE_MS, BENCH_CONCURRENCY, BENCH_REST. Tables to
// stdout, progress to stderr.
//
// Method: the built library in this process (`npm run build` first): an engine of `concurrency`
// slots, its HTTP service on the node adapter, a redis-server, a BullMQ worker of the same
// concurrency in this process, and a page server whose page answers after `page-ms`. At rest:
// B's capture alone, `rest` times (median). Sync flood: A sends `flood` synchronous captures at
// once (maxQueue above the flood, A's tier with no rate or running cap), and 1 s later B sends
// one; B's latency from its request to its answer. Batch: A queues a `flood`-item batch, and 1 s
// later B queues one async capture; B's latency from its request until its status reads
// `completed` (polled every 20 ms). The target (issue 28): B's latency during the flood at most
// twice its latency at rest plus one of A's captures.

import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { loadEngine, ROOT } from '../lib/dist.js';
import { startRedis, stopAllRedis } from '../lib/redis.js';
import { median } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';

const opts = readOptions(import.meta.url, {
  flood: { env: 'BENCH_FLOOD' },
  'page-ms': { env: 'BENCH_PAGE_MS' },
  concurrency: { env: 'BENCH_CONCURRENCY' },
  rest: { env: 'BENCH_REST' },
});
const cfg = { flood: opts.number('flood', 200), pageMs: opts.number('page-ms', 300), concurrency: opts.number('concurrency', 2), rest: opts.number('rest', 5) };
const KEYS = { a: 'ce_bench_fair_a_0123456789abcdefgh', b: 'ce_bench_fair_b_0123456789abcdefgh' };
const log = (...a) => console.error(...a);

const pages = http.createServer((req, res) => {
  const ms = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('ms') ?? 0);
  setTimeout(() => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<body style="margin:0;background:#0a0;height:100vh"></body>'), ms);
});
await new Promise((resolve) => pages.listen(0, '127.0.0.1', resolve));
const pageUrl = (tag) => `http://127.0.0.1:${pages.address().port}/?ms=${cfg.pageMs}&for=${tag}`;

const { createCaptureEngine, createCaptureHttp, createNodeListener } = await loadEngine();
const { createCaptureJobs, startCaptureWorker } = await import(`${ROOT}/dist/src/jobs/index.js`);
const redis = await startRedis();
const log0 = { info() {}, warn() {}, error() {}, debug() {}, child() { return log0; } };
// A capture's budget counts its wait for a slot: in one FIFO line B waits behind the whole flood.
const engine = await createCaptureEngine({ allowPrivateNetworks: true, concurrency: cfg.concurrency, maxQueue: cfg.flood + 50, timeoutMs: 600_000, log: log0 });
const workerEngine = await createCaptureEngine({ allowPrivateNetworks: true, concurrency: cfg.concurrency, maxQueue: cfg.flood + 50, timeoutMs: 600_000, log: log0 });
const jobs = createCaptureJobs({ connection: redis.url, allowPrivateNetworks: true });
const worker = startCaptureWorker(workerEngine, { connection: redis.url, concurrency: cfg.concurrency, allowPrivateNetworks: true });
const unlimited = { requestsPerMinute: 100_000, monthlyQuota: 1_000_000, maxConcurrent: 0, maxBulkItems: 10_000 };
const service = createCaptureHttp(engine, { tiers: { ENTERPRISE: unlimited }, apiKeys: [KEYS.a, KEYS.b].map((key) => ({ key, tier: 'ENTERPRISE' })), asyncCaptures: jobs, log: log0 });
const server = http.createServer(createNodeListener(service));
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const small = { viewport_width: 400, viewport_height: 300 };
async function call(path, key, body) {
  const response = await fetch(`${origin}/api/v1/${path}`, { method: 'POST', headers: { 'X-API-Key': key, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const bytes = await response.arrayBuffer();
  if (response.status >= 300) throw new Error(`${path} answered ${response.status}: ${Buffer.from(bytes).toString()}`);
  return response.headers.get('content-type')?.includes('json') ? JSON.parse(Buffer.from(bytes).toString()) : undefined;
}
async function syncCapture(key, tag) {
  const started = performance.now();
  await call('capture', key, { ...small, url: pageUrl(tag) });
  return performance.now() - started;
}
async function asyncCapture(key, tag) {
  const started = performance.now();
  const { id } = await call('capture', key, { ...small, url: pageUrl(tag), async: true });
  for (;;) {
    const status = await (await fetch(`${origin}/api/v1/captures/${id}`, { headers: { 'X-API-Key': key } })).json();
    if (status.status === 'completed') return performance.now() - started;
    if (status.status === 'failed') throw new Error(JSON.stringify(status.error));
    await sleep(20);
  }
}

async function syncFlood(bKey) {
  const flood = Array.from({ length: cfg.flood }, (_, i) => syncCapture(KEYS.a, `a${i}`));
  await sleep(1000);
  const lone = await syncCapture(bKey, 'b');
  await Promise.all(flood);
  return lone;
}
async function batchFlood(bKey) {
  const { id } = await call('bulk', KEYS.a, { defaults: small, items: Array.from({ length: cfg.flood }, (_, i) => pageUrl(`a${i}`)) });
  await sleep(1000);
  const lone = await asyncCapture(bKey, 'b');
  for (;;) {
    const status = await (await fetch(`${origin}/api/v1/bulk/${id}?limit=1`, { headers: { 'X-API-Key': KEYS.a } })).json();
    if (status.status === 'completed') break;
    await sleep(200);
  }
  return lone;
}

try {
  log('warming up');
  await syncCapture(KEYS.b, 'warm');
  await asyncCapture(KEYS.b, 'warm');
  const restSync = [];
  const restAsync = [];
  for (let i = 0; i < cfg.rest; i++) restSync.push(await syncCapture(KEYS.b, 'rest'));
  for (let i = 0; i < cfg.rest; i++) restAsync.push(await asyncCapture(KEYS.b, 'rest'));
  const oneOfA = median(restSync);
  const rows = [];
  for (const [scenario, rest, run] of [
    ['sync flood', median(restSync), syncFlood],
    ['batch', median(restAsync), batchFlood],
  ]) {
    const target = 2 * rest + oneOfA;
    for (const [line, key] of [
      ['one FIFO line (B as A)', KEYS.a],
      ['fair queues', KEYS.b],
    ]) {
      log(`${scenario}, ${line}`);
      const ms = await run(key);
      rows.push([scenario, line, cfg.flood, Math.round(rest), Math.round(ms), Math.round(target), ms <= target ? 'yes' : 'no']);
    }
  }
  console.log(`\nB's lone capture while A has ${cfg.flood} queued (${cfg.concurrency} slots, a page answering in ${cfg.pageMs} ms; one of A's captures at rest: ${Math.round(oneOfA)} ms)\n`);
  console.log(`${binaryLines({ 'engine, both queueings': CHROMIUM_PATH }).join('\n')}\n`);
  console.log(markdownTable(['A floods with', 'queueing', "A's captures", 'B at rest (ms)', 'B during flood (ms)', 'target (ms)', 'met'], rows));
} finally {
  // Each step whatever the others did: a failed run must not leave a browser or redis-server behind.
  for (const step of [() => worker.close(), () => jobs.close(), () => engine.close(), () => workerEngine.close(), stopAllRedis]) await step().catch((error) => log(String(error)));
  server.close();
  pages.close();
}

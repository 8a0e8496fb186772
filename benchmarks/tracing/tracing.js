#!/usr/bin/env node
// What traces cost: screenshots through the HTTP service with OpenTelemetry off (the API's no-op,
// what every library user without an SDK gets) and on (`capture-engine/tracing`: the SDK exporting
// every span over OTLP/HTTP to a local stand-in for a collector), in alternating rounds.
//
//   node benchmarks/tracing/tracing.js [--captures=40] [--concurrency=2] [--rounds=3]
//   (from benchmarks/: npm run tracing)
//
// Environment equivalents: BENCH_CAPTURES, BENCH_CONCURRENCY, BENCH_ROUNDS. Tables to stdout,
// progress to stderr.
//
// Method: the built library in this process (`npm run build` first): one engine of `concurrency`
// slots behind its HTTP service on the node adapter, a page server with a small page, and an HTTP
// server that takes OTLP/JSON exports and counts their spans. Ten captures warm up; then each round
// sends `captures` 640x360 PNG captures, `concurrency` at a time, once with tracing off and once on.
// Per mode: captures/s, median latency, this process's CPU per capture (the spans are made here;
// Chromium's CPU does not change) and spans exported per capture. The target: tracing on costs at
// most 5 % of throughput.

import http from 'node:http';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { loadEngine, ROOT } from '../lib/dist.js';
import { median } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';

const opts = readOptions(import.meta.url, {
  captures: { env: 'BENCH_CAPTURES' },
  concurrency: { env: 'BENCH_CONCURRENCY' },
  rounds: { env: 'BENCH_ROUNDS' },
});
const cfg = { captures: opts.number('captures', 40), concurrency: opts.number('concurrency', 2), rounds: opts.number('rounds', 3) };
const KEY = 'ce_bench_tracing_0123456789abcdefgh';
const log = (...a) => console.error(...a);
const listen = (server) => new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${server.address().port}`)));

const pages = http.createServer((_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<body style="margin:0;background:#08f;height:100vh"><h1>traced</h1></body>'));
const pageUrl = `${await listen(pages)}/`;

let spans = 0;
const collector = http.createServer((req, res) => {
  let body = '';
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    for (const resource of JSON.parse(body).resourceSpans ?? []) for (const scope of resource.scopeSpans ?? []) spans += scope.spans?.length ?? 0;
    res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}');
  });
});
process.env.OTEL_EXPORTER_OTLP_ENDPOINT = await listen(collector);

const { createCaptureEngine, createCaptureHttp, createNodeListener } = await loadEngine();
const { startTracing } = await import(`${ROOT}/dist/src/ops/tracing.js`);
const quiet = { info() {}, warn() {}, error() {}, debug() {}, child() { return quiet; } };
const engine = await createCaptureEngine({ allowPrivateNetworks: true, concurrency: cfg.concurrency, log: quiet });
const service = createCaptureHttp(engine, { tiers: { ENTERPRISE: { requestsPerMinute: 100_000, monthlyQuota: 1_000_000 } }, apiKeys: [{ key: KEY, tier: 'ENTERPRISE' }], log: quiet });
const server = http.createServer(createNodeListener(service));
const origin = await listen(server);
const captureUrl = `${origin}/api/v1/capture?url=${encodeURIComponent(pageUrl)}&viewport_width=640&viewport_height=360`;

async function capture() {
  const started = performance.now();
  const response = await fetch(captureUrl, { headers: { 'X-API-Key': KEY } });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`capture answered ${response.status}`);
  return performance.now() - started;
}

/** `count` captures, `concurrency` at a time: wall ms, latencies, this process's CPU ms. */
async function run(count) {
  const latencies = [];
  let next = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: cfg.concurrency }, async () => {
    while (next < count) {
      next++;
      latencies.push(await capture());
    }
  }));
  const wall = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { wall, latencies, cpuMs: (used.user + used.system) / 1000 };
}

const results = { off: [], on: [] };
try {
  log(`warming up (${cfg.concurrency} slots)`);
  await run(10);
  for (let round = 1; round <= cfg.rounds; round++) {
    for (const mode of ['off', 'on']) {
      const stop = mode === 'on' ? await startTracing('service') : undefined;
      spans = 0;
      const measured = await run(cfg.captures);
      // The last batch of spans leaves at shutdown: counted before the next round.
      await stop?.();
      results[mode].push({ ...measured, spans });
      log(`round ${round} ${mode}: ${(cfg.captures / (measured.wall / 1000)).toFixed(2)} captures/s, ${spans} spans`);
    }
  }
} finally {
  await new Promise((resolve) => server.close(resolve));
  await engine.close();
  pages.close();
  collector.close();
}

const rows = ['off', 'on'].map((mode) => {
  const runs = results[mode];
  const total = runs.length * cfg.captures;
  const wall = runs.reduce((sum, each) => sum + each.wall, 0);
  return {
    mode,
    throughput: total / (wall / 1000),
    p50: median(runs.flatMap((each) => each.latencies)),
    cpu: runs.reduce((sum, each) => sum + each.cpuMs, 0) / total,
    spans: runs.reduce((sum, each) => sum + each.spans, 0) / total,
  };
});
const [off, on] = rows;
console.log(`\n### Tracing cost: ${cfg.rounds} rounds of ${cfg.captures} captures per mode, ${cfg.concurrency} at a time, 640x360 PNG\n`);
console.log(`${binaryLines({ 'engine, tracing off and on': CHROMIUM_PATH }).join('\n')}\n`);
console.log(markdownTable(
  ['tracing', 'captures/s', 'p50 ms', 'node CPU ms per capture', 'spans exported per capture'],
  rows.map((row) => [row.mode, row.throughput.toFixed(2), row.p50.toFixed(0), row.cpu.toFixed(1), row.spans.toFixed(1)]),
));
const cost = (1 - on.throughput / off.throughput) * 100;
console.log(`\nthroughput with tracing on: ${cost >= 0 ? '-' : '+'}${Math.abs(cost).toFixed(1)} % (target: at most 5 % less): ${cost <= 5 ? 'pass' : 'FAIL'}; node CPU +${(on.cpu - off.cpu).toFixed(1)} ms per capture`);

// The result cache (render links, cache=true): what a hit costs and what caching adds to a miss.
//
//   node cache/cache.js [--quick] [--adapters=node,express] [--duration=S] [--connections=C] [--pairs=N]
//
// Each server is the built package (../dist) mounted as an app would, in a process of its own
// (../load/load-server.js), driven from this process over loopback:
// 1. Hits: one signed render link of a 1200x630 page (an og:image), captured once, then fetched
//    - one request at a time (--sequential requests, default 1000): latency p50/p99 in ms;
//    - on C kept-alive connections (default 10) for S seconds (default 10): answers/s, p50, p99
//      (../lib/keep-alive-load.js: autocannon's parser caps it at a few hundred PNGs a second).
//    The floor is a bare node:http server answering the same number of bytes from memory
//    (`floor-file`), measured the same way in the same run.
// 2. Miss overhead: N pairs (default 20) of sequential captures on the node listener, alternating
//    `/v1/capture` without cache and with `cache=true` and a new `cache_key` each time (lookup,
//    claim, capture, store, index): p50 of each, their difference, and the p50 of the differences
//    within each pair (less swayed by how long captures take from one minute to the next).
// Prints markdown tables; the numbers of a run go to results/cache.md by hand.

import { loadEngine, missing } from '../lib/dist.js';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { startFixtureServer, html } from '../lib/fixture-server.js';
import { keepAliveLoad } from '../lib/keep-alive-load.js';
import { percentile } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { closeAllServers, startServer } from '../load/load-servers.js';

const opts = readOptions(import.meta.url, {
  quick: { flag: true, env: 'BENCH_QUICK' },
  adapters: { env: 'BENCH_ADAPTERS' },
  duration: { env: 'BENCH_DURATION' },
  connections: { env: 'BENCH_CONNECTIONS' },
  sequential: { env: 'BENCH_SEQUENTIAL' },
  pairs: { env: 'BENCH_PAIRS' },
});
const QUICK = opts.flag('quick');
const cfg = {
  adapters: opts.list('adapters', 'node,express'),
  durationSec: opts.number('duration', QUICK ? 3 : 10),
  connections: opts.number('connections', 10),
  sequential: opts.number('sequential', QUICK ? 200 : 1000),
  pairs: opts.number('pairs', QUICK ? 6 : 20),
};
const KEY = 'bench-cache-key-0123456789abcdef';
const OPTIONS = {
  apiKeys: [{ key: KEY, tier: 'ENTERPRISE' }],
  // The limits are not what is measured: high enough never to refuse.
  tiers: { ENTERPRISE: { requestsPerMinute: 1_000_000_000, monthlyQuota: 1_000_000_000 } },
  // A link's own limits (issue 47) likewise; a build from before them ignores the option.
  linkLimits: { perLink: 1_000_000_000, perAddress: 1_000_000_000 },
  allowPrivateNetworks: true,
};
const PAGE = html(
  '<!doctype html><html><head><meta charset="utf-8"><title>cache</title><link rel="icon" href="data:,"></head>' +
    '<body style="margin:0;font:24px sans-serif;background:linear-gradient(#fde,#def)"><h1 style="padding:40px">A page behind a render link</h1>' +
    `${'<p style="padding:0 40px">Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>'.repeat(12)}</body></html>`,
);

const log = (...a) => console.error('[cache]', ...a);
const ms = (value) => value.toFixed(2);

/** `count` GETs one after another on one connection: latencies in ms, and the statuses seen. */
async function sequential(url, count, headers = {}) {
  const latencies = [];
  const statuses = new Set();
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    statuses.add(`${response.status} ${response.headers.get('x-cache') ?? ''}`.trim());
  }
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99), statuses: [...statuses].join(', ') };
}

async function load(url) {
  const { port, pathname, search } = new URL(url);
  const target = { port: Number(port), path: `${pathname}${search}`, connections: cfg.connections };
  await keepAliveLoad({ ...target, durationMs: Math.min(2, cfg.durationSec) * 1000 });
  const result = await keepAliveLoad({ ...target, durationMs: cfg.durationSec * 1000 });
  const other = Object.entries(result.statuses).filter(([status]) => status !== '200').reduce((sum, [, count]) => sum + count, 0);
  return { rps: result.rps, p50: ms(result.p50), p99: ms(result.p99), non2xx: other };
}

async function hits(fixtures, engine) {
  const rows = [];
  let bytes = 0;
  for (const adapter of cfg.adapters) {
    const server = await startServer(adapter, OPTIONS);
    const link = engine.renderLink({
      baseUrl: `http://127.0.0.1:${server.port}`,
      ...engine.operatorLinkCredentials(KEY),
      params: { url: fixtures.url('/page'), viewport_width: 1200, viewport_height: 630 },
    });
    const first = await fetch(link);
    bytes = (await first.arrayBuffer()).byteLength;
    if (first.status !== 200 || first.headers.get('x-cache') !== 'MISS') throw new Error(`first fetch on ${adapter}: ${first.status} ${first.headers.get('x-cache')}`);
    log(`${adapter}: ${bytes} bytes cached; sequential hits`);
    const one = await sequential(link, cfg.sequential);
    log(`${adapter}: ${cfg.connections} connections`);
    const many = await load(link);
    rows.push([adapter, one.statuses, ms(one.p50), ms(one.p99), Math.round(many.rps), many.p50, many.p99, many.non2xx]);
    await server.close();
  }
  const floor = await startServer('floor-file', { bytes });
  const url = `http://127.0.0.1:${floor.port}/`;
  const one = await sequential(url, cfg.sequential);
  const many = await load(url);
  rows.push(['floor (node:http, same bytes from memory)', one.statuses, ms(one.p50), ms(one.p99), Math.round(many.rps), many.p50, many.p99, many.non2xx]);
  await floor.close();
  return { bytes, rows };
}

async function missOverhead(fixtures) {
  const server = await startServer('node', OPTIONS);
  const base = `http://127.0.0.1:${server.port}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/page'))}&viewport_width=1200&viewport_height=630`;
  const headers = { 'X-API-Key': KEY };
  const plain = [];
  const cached = [];
  const time = async (url, into, expectCache) => {
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    if (response.status !== 200 || response.headers.get('x-cache') !== expectCache) throw new Error(`${url}: ${response.status} ${response.headers.get('x-cache')}`);
    into.push(performance.now() - started);
  };
  // Warm the browser and both paths first.
  await time(base, [], null);
  await time(`${base}&cache=true&cache_key=warm`, [], 'MISS');
  for (let i = 0; i < cfg.pairs; i++) {
    const order = i % 2 === 0 ? ['plain', 'cached'] : ['cached', 'plain'];
    for (const which of order) {
      if (which === 'plain') await time(base, plain, null);
      else await time(`${base}&cache=true&cache_key=miss-${i}`, cached, 'MISS');
    }
  }
  await server.close();
  const p50 = (xs) => percentile(xs, 50);
  return [
    ['/v1/capture, no cache', cfg.pairs, ms(p50(plain)), ms(percentile(plain, 90))],
    ['/v1/capture, cache=true, miss (new cache_key)', cfg.pairs, ms(p50(cached)), ms(percentile(cached, 90))],
    ['overhead of the miss path: difference of the p50s', '', ms(p50(cached) - p50(plain)), ''],
    ['overhead of the miss path: p50 of the differences within each pair', cfg.pairs, ms(p50(cached.map((value, i) => value - plain[i]))), ''],
  ];
}

async function main() {
  const why = missing();
  if (why) throw new Error(why);
  const engine = await loadEngine();
  const fixtures = await startFixtureServer({ '/page': PAGE });
  try {
    const hit = await hits(fixtures, engine);
    console.log(`${binaryLines({ [`engine servers: ${cfg.adapters.join(', ')}`]: CHROMIUM_PATH }).join('\n')}\n- floor-file answers without an engine or a Chromium`);
    console.log(`\n## Cache hits: one render link, ${hit.bytes} bytes (png 1200x630, the size of an og:image)\n`);
    console.log(
      markdownTable(
        ['server', 'answers', `p50 ms, 1 at a time (${cfg.sequential})`, 'p99 ms, 1 at a time', `answers/s, ${cfg.connections} connections (${cfg.durationSec} s)`, `p50 ms, ${cfg.connections} connections`, `p99 ms, ${cfg.connections} connections`, 'non-200'],
        hit.rows,
      ),
    );
    const miss = await missOverhead(fixtures);
    console.log(`\n## Miss overhead: sequential captures on the node listener, ${cfg.pairs} pairs, interleaved\n`);
    console.log(markdownTable(['request', 'n', 'p50 ms', 'p90 ms'], miss));
  } finally {
    await closeAllServers();
    await fixtures.close();
  }
}

main().catch(async (error) => {
  console.error(error);
  await closeAllServers();
  process.exit(1);
});

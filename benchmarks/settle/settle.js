// The default settle step (issue 25): what it costs on a page at rest, and what it buys on pages
// that finish drawing after they load.
//
//   node settle/settle.js [--quick] [--iterations=N] [--burst=N] [--before=ENTRY]
//
// One engine (the built package, ../dist), captures with `settle` on (the default) and off:
// - at rest: the simple page one at a time, on and off interleaved, each once the process tree is
//   quiet: p50 and p95 in ms; then bursts of `burst` captures with 4 in flight: captures/s, best of 2;
// - complete: the fixture pages (fixtures/late-pages: data fetched by the page or by a
//   worker, a fade-in, a slow image, a spinner, a tree from scripts loaded on demand, formulas
//   typeset after load, a side menu following the scroll, a pane folding on resize, a page assigning
//   window.print), each captured with the defaults, with settle=false, and patiently (network
//   idle, then 2 s): the share of pages whose capture is pixel for pixel the patient one.
//   `--before=ENTRY` (the dist/src/index.js of an earlier build, e.g. a worktree of the commit
//   before the issue) adds that engine's default captures of the same pages.
// Prints markdown tables; the numbers of a run go to results/settle.md by hand.

import http from 'node:http';
import sharp from 'sharp';
import { pathToFileURL } from 'node:url';
import { loadEngine, missing } from '../lib/dist.js';
import { readOptions } from '../lib/cli-options.js';
import { percentile, rotate } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { waitQuiet } from '../lib/wait-quiet.js';
import { PAGES } from '../lib/fixture-pages.js';
import { LATE_PAGES, SLOW_MS, serveLatePages } from '../../fixtures/late-pages/pages.js';

const opts = readOptions(import.meta.url, {
  quick: { flag: true, env: 'BENCH_QUICK' },
  iterations: { env: 'BENCH_ITERATIONS' },
  burst: { env: 'BENCH_BURST' },
  before: { env: 'BENCH_SETTLE_BEFORE' },
});
const QUICK = opts.flag('quick');
const cfg = { iterations: opts.number('iterations', QUICK ? 8 : 30), burst: opts.number('burst', QUICK ? 12 : 40) };
const log = (...a) => console.error('[settle]', ...a);

const problem = missing();
if (problem) {
  console.error(problem);
  process.exit(1);
}

async function startServer() {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (serveLatePages(res, path)) return;
    if (PAGES[path]) return res.writeHead(200, { 'content-type': PAGES[path].type, 'cache-control': 'no-store' }).end(PAGES[path].body);
    res.writeHead(404).end();
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: (path) => `http://127.0.0.1:${server.address().port}${path}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

const MODES = { on: {}, off: { settle: false } };

async function main() {
  const { createCaptureEngine, silentLogger } = await loadEngine();
  const server = await startServer();
  const engine = await createCaptureEngine({ concurrency: 4, log: silentLogger, allowPrivateNetworks: true });
  try {
    const shot = (path, params = {}) => engine.capture({ url: server.url(path), viewport_width: 1280, viewport_height: 720, ...params });
    for (const mode of Object.values(MODES)) await shot('/simple', mode);

    const latency = { on: [], off: [] };
    for (let round = 0; round < cfg.iterations; round++) {
      for (const name of rotate(Object.keys(MODES), round)) {
        await waitQuiet(process.pid);
        const started = performance.now();
        await shot('/simple', MODES[name]);
        latency[name].push(performance.now() - started);
      }
    }
    const throughput = {};
    for (let burst = 0; burst < 2; burst++) {
      for (const name of rotate(Object.keys(MODES), burst)) {
        await waitQuiet(process.pid);
        let next = 0;
        const started = performance.now();
        await Promise.all(Array.from({ length: 4 }, async () => {
          while (next++ < cfg.burst) await shot('/simple', MODES[name]);
        }));
        throughput[name] = Math.max(throughput[name] ?? 0, cfg.burst / ((performance.now() - started) / 1000));
      }
    }

    const pixels = async (result) => (await sharp(await result.buffer()).raw().toBuffer()).toString('base64');
    const before = opts.text('before') ? await import(pathToFileURL(opts.text('before')).href) : undefined;
    const earlier = before && (await before.createCaptureEngine({ concurrency: 1, log: before.silentLogger, allowPrivateNetworks: true }));
    const complete = [];
    try {
      for (const { path, params } of LATE_PAGES) {
        const patient = await pixels(await shot(path, { ...params, settle: false, wait_until: 'networkidle0', delay: 2000 }));
        const row = { path };
        const contenders = Object.entries(MODES).map(([name, mode]) => [name, () => shot(path, { ...params, ...mode })]);
        if (earlier) contenders.push(['before', () => earlier.capture({ url: server.url(path), viewport_width: 1280, viewport_height: 720, ...params })]);
        for (const [name, take] of contenders) {
          const started = performance.now();
          const result = await take();
          row[`${name} ms`] = performance.now() - started;
          row[name] = (await pixels(result)) === patient;
        }
        log(JSON.stringify(row));
        complete.push(row);
      }
    } finally {
      await earlier?.close();
    }
    report(latency, throughput, complete);
  } finally {
    await engine.close();
    await server.close();
  }
}

function report(latency, throughput, complete) {
  const ms = (value) => value.toFixed(0);
  console.log(`\n### The simple page at rest (${cfg.iterations} one at a time; bursts of ${cfg.burst} with 4 in flight, best of 2)\n`);
  console.log(
    markdownTable(
      ['settle', 'p50 ms', 'p95 ms', 'captures/s at 4'],
      Object.keys(MODES).map((name) => [name, ms(percentile(latency[name], 50)), ms(percentile(latency[name], 95)), throughput[name].toFixed(2)]),
      { align: 'lrrr' },
    ),
  );
  const columns = ['on', 'off', ...(complete[0]?.before === undefined ? [] : ['before'])];
  const titles = { on: 'settle on', off: 'settle off', before: 'before (--before)' };
  console.log(`\n### The issue's fixture pages: the same pixels as a patient capture (network idle, then 2 s)? Slow parts take ${SLOW_MS} ms\n`);
  console.log(
    markdownTable(
      ['page', ...columns.flatMap((name) => [titles[name], 'ms'])],
      [
        ...complete.map((row) => [row.path, ...columns.flatMap((name) => [row[name] ? 'yes' : 'no', ms(row[`${name} ms`])])]),
        ['**complete**', ...columns.flatMap((name) => [`${complete.filter((row) => row[name]).length} of ${complete.length}`, ''])],
      ],
      { align: `l${'cr'.repeat(columns.length)}` },
    ),
  );
}

await main();

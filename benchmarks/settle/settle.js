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
//   before the issue) adds that engine's default captures of the same pages, on the binary the
//   current engine finds (lib/chromium.js), which the tables name.
// Prints markdown tables; the numbers of a run go to results/settle.md by hand.

import http from 'node:http';
import sharp from 'sharp';
import { pathToFileURL } from 'node:url';
import { loadEngine, missing } from '../lib/dist.js';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
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

async function main() {
  const { createCaptureEngine, silentLogger } = await loadEngine();
  const server = await startServer();
  const engine = await createCaptureEngine({ concurrency: 4, log: silentLogger, allowPrivateNetworks: true });
  const before = opts.text('before') ? await import(pathToFileURL(opts.text('before')).href) : undefined;
  // An earlier build may find another binary: it is given the one this build finds.
  const earlier = before && (await before.createCaptureEngine({ concurrency: 4, log: before.silentLogger, allowPrivateNetworks: true, executablePath: CHROMIUM_PATH }));
  try {
    const take = (on, path, params) => on.capture({ url: server.url(path), viewport_width: 1280, viewport_height: 720, ...params });
    /** How each contender captures a page: settle on (the default), off, and the earlier build's defaults. */
    const contenders = {
      on: (path, params = {}) => take(engine, path, params),
      off: (path, params = {}) => take(engine, path, { ...params, settle: false }),
      ...(earlier ? { before: (path, params = {}) => take(earlier, path, params) } : {}),
    };
    const names = Object.keys(contenders);
    for (const name of names) await contenders[name]('/simple');

    const latency = Object.fromEntries(names.map((name) => [name, []]));
    for (let round = 0; round < cfg.iterations; round++) {
      for (const name of rotate(names, round)) {
        await waitQuiet(process.pid);
        const started = performance.now();
        await contenders[name]('/simple');
        latency[name].push(performance.now() - started);
      }
    }
    const throughput = {};
    for (let burst = 0; burst < 2; burst++) {
      for (const name of rotate(names, burst)) {
        await waitQuiet(process.pid);
        let next = 0;
        const started = performance.now();
        await Promise.all(Array.from({ length: 4 }, async () => {
          while (next++ < cfg.burst) await contenders[name]('/simple');
        }));
        throughput[name] = Math.max(throughput[name] ?? 0, cfg.burst / ((performance.now() - started) / 1000));
      }
    }

    const pixels = async (result) => (await sharp(await result.buffer()).raw().toBuffer()).toString('base64');
    const complete = [];
    for (const { path, params } of LATE_PAGES) {
      const patient = await pixels(await contenders.off(path, { ...params, wait_until: 'networkidle0', delay: 2000 }));
      const row = { path };
      for (const name of names) {
        const started = performance.now();
        const result = await contenders[name](path, params);
        row[`${name} ms`] = performance.now() - started;
        row[name] = (await pixels(result)) === patient;
      }
      log(JSON.stringify(row));
      complete.push(row);
    }
    report(names, latency, throughput, complete);
  } finally {
    await earlier?.close();
    await engine.close();
    await server.close();
  }
}

const TITLES = { on: 'settle on', off: 'settle off', before: 'before (--before)' };

function report(names, latency, throughput, complete) {
  const ms = (value) => value.toFixed(0);
  console.log(binaryLines(Object.fromEntries(names.map((name) => [TITLES[name], CHROMIUM_PATH]))).join('\n'));
  console.log(`\n### The simple page at rest (${cfg.iterations} one at a time; bursts of ${cfg.burst} with 4 in flight, best of 2)\n`);
  console.log(
    markdownTable(
      ['contender', 'p50 ms', 'p95 ms', 'captures/s at 4'],
      names.map((name) => [TITLES[name], ms(percentile(latency[name], 50)), ms(percentile(latency[name], 95)), throughput[name].toFixed(2)]),
      { align: 'lrrr' },
    ),
  );
  console.log(`\n### The issue's fixture pages: the same pixels as a patient capture (network idle, then 2 s)? Slow parts take ${SLOW_MS} ms\n`);
  console.log(
    markdownTable(
      ['page', ...names.flatMap((name) => [TITLES[name], 'ms'])],
      [
        ...complete.map((row) => [row.path, ...names.flatMap((name) => [row[name] ? 'yes' : 'no', ms(row[`${name} ms`])])]),
        ['**complete**', ...names.flatMap((name) => [`${complete.filter((row) => row[name]).length} of ${complete.length}`, ''])],
      ],
      { align: `l${'cr'.repeat(names.length)}` },
    ),
  );
}

await main();

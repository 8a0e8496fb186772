// The default settle step (issue 25): what it costs on a page at rest, and what it buys on pages
// that finish drawing after they load.
//
//   node settle/settle.js [--quick] [--iterations=N] [--burst=N]
//
// One engine (the built package, ../dist), captures with `settle` on (the default) and off:
// - at rest: the simple page one at a time, on and off interleaved, each once the process tree is
//   quiet: p50 and p95 in ms; then bursts of `burst` captures with 4 in flight: captures/s, best of 2;
// - complete: pages that finish after `domcontentloaded` (data fetched by the page or by a worker,
//   a fade-in, a slow image in view, a spinner replaced by fetched content), each captured with the
//   defaults, with settle=false, and patiently (network idle, then 2 s): the share of pages whose
//   default capture is pixel for pixel the patient one.
// Prints markdown tables; the numbers of a run go to results/settle.md by hand.

import http from 'node:http';
import sharp from 'sharp';
import { loadEngine, missing } from '../lib/dist.js';
import { readOptions } from '../lib/cli-options.js';
import { percentile, rotate } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { waitQuiet } from '../lib/wait-quiet.js';
import { PAGES } from '../lib/fixture-pages.js';

const opts = readOptions(import.meta.url, {
  quick: { flag: true, env: 'BENCH_QUICK' },
  iterations: { env: 'BENCH_ITERATIONS' },
  burst: { env: 'BENCH_BURST' },
});
const QUICK = opts.flag('quick');
const cfg = { iterations: opts.number('iterations', QUICK ? 8 : 30), burst: opts.number('burst', QUICK ? 12 : 40) };
const log = (...a) => console.error('[settle]', ...a);

const problem = missing();
if (problem) {
  console.error(problem);
  process.exit(1);
}

const RED = '#ff0000';
const GREEN = '#00ff00';
const page = (body) => `<!doctype html><body style="margin:0;height:100vh;background:${RED}">${body}</body>`;
/** Pages that look finished only some time after `domcontentloaded`. */
const LATE_PAGES = {
  '/filled-by-fetch': page(`<script>fetch('/slow-data').then((r) => r.json()).then(({ colour }) => (document.body.style.background = colour));</script>`),
  '/filled-by-worker': page(`<script>new Worker('/fill-worker.js').onmessage = (event) => (document.body.style.background = event.data);</script>`),
  '/fades-in': page(`<style>@keyframes show { from { opacity: 0 } to { opacity: 1 } }</style><div style="position:fixed;inset:0;background:${GREEN};animation:show 600ms linear"></div>`),
  '/slow-image': page(`<img src="/slow-image.svg" style="position:fixed;inset:0;width:100%;height:100%">`),
  '/spinner-then-content': page(
    `<div id="spinner">Loading...</div><script>fetch('/slow-data').then((r) => r.json()).then(({ colour }) => { spinner.remove(); document.body.insertAdjacentHTML('beforeend', '<main style="height:100vh;background:' + colour + '">Results</main>'); });</script>`,
  ),
};
const SLOW = {
  '/slow-data': { type: 'application/json', body: JSON.stringify({ colour: GREEN }) },
  '/fill-worker.js': { type: 'text/javascript', body: "fetch('/slow-data').then((r) => r.json()).then((data) => postMessage(data.colour));" },
  '/slow-image.svg': { type: 'image/svg+xml', body: `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><rect width="10" height="10" fill="${GREEN}"/></svg>` },
};
/** How long the slow answers take: as a search index, a chart's series or a big image do. */
const SLOW_MS = 400;

async function startServer() {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    const send = (type, body, delay = 0) => setTimeout(() => res.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body), delay);
    if (PAGES[path]) return send(PAGES[path].type, PAGES[path].body);
    if (LATE_PAGES[path]) return send('text/html; charset=utf-8', LATE_PAGES[path]);
    if (SLOW[path]) return send(SLOW[path].type, SLOW[path].body, path === '/fill-worker.js' ? 0 : SLOW_MS);
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
    const complete = [];
    for (const path of Object.keys(LATE_PAGES)) {
      const patient = await pixels(await shot(path, { settle: false, wait_until: 'networkidle0', delay: 2000 }));
      const row = { path };
      for (const [name, mode] of Object.entries(MODES)) {
        const started = performance.now();
        const result = await shot(path, mode);
        row[`${name} ms`] = performance.now() - started;
        row[name] = (await pixels(result)) === patient;
      }
      log(JSON.stringify(row));
      complete.push(row);
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
  console.log('\n### Pages that finish after they load: the same pixels as a patient capture (network idle, then 2 s)?\n');
  console.log(
    markdownTable(
      ['page', 'settle on', 'ms', 'settle off', 'ms'],
      [
        ...complete.map((row) => [row.path, row.on ? 'yes' : 'no', ms(row['on ms']), row.off ? 'yes' : 'no', ms(row['off ms'])]),
        ['**complete**', `${complete.filter((row) => row.on).length} of ${complete.length}`, '', `${complete.filter((row) => row.off).length} of ${complete.length}`, ''],
      ],
      { align: 'lcrcr' },
    ),
  );
}

await main();

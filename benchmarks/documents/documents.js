// Documents: a 3-page HTML invoice to PDF and to PNG, our engine against the floor.
//
//   node documents/documents.js [--quick] [--iterations=N] [--burst=N] [--levels=1,4] [--contenders=floor,library,http,reuse]
//
// Contenders, each with its own Chromium, all on the binary the engine finds (lib/chromium.js:
// CAPTURE_CHROMIUM_PATH, else Debian's headless shell when installed):
// - floor: raw Playwright as Gotenberg's Chromium route works (Gotenberg itself cannot run here: no
//   container registry, no Debian package): per document a new context and page, `page.setContent`
//   (waiting for `load`), `page.pdf({ format: 'A4', printBackground: true })` with the engine's 0.4 in
//   margins, or `page.screenshot()`,
//   then the context closed;
// - library: `engine.capture({ html, format })` of the built package (../dist);
// - http: the same engine behind `createNodeListener`, a JSON POST `{ html, format }` over loopback;
// - reuse: `engine.capture` of a second engine with `contextReuse: true` (a single-tenant converter,
//   as Gotenberg is: one context kept and cleared between documents).
// Latency: `iterations` documents one at a time per contender and format, the contenders
// interleaved round-robin (the order rotating every round), each once the whole process tree (this
// process and every Chromium) is quiet: p50 and p95 in ms. Throughput: for each
// concurrency level, `burst` documents with that many in flight: documents/s; the best of two bursts.
// Prints markdown tables; the numbers of a run go to results/documents.md by hand.

import http from 'node:http';
import { chromium } from 'playwright-core';
import { loadEngine, missing } from '../lib/dist.js';
import { readOptions } from '../lib/cli-options.js';
import { CHROMIUM_PATH, LAUNCH_ARGS, binaryLines } from '../lib/chromium.js';
import { percentile, rotate } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { INVOICE } from './invoice.js';
import { waitQuiet } from '../lib/wait-quiet.js';

const opts = readOptions(import.meta.url, {
  quick: { flag: true, env: 'BENCH_QUICK' },
  iterations: { env: 'BENCH_ITERATIONS' },
  burst: { env: 'BENCH_BURST' },
  levels: { env: 'BENCH_LEVELS' },
  contenders: { env: 'BENCH_CONTENDERS' },
});
const QUICK = opts.flag('quick');
const cfg = {
  iterations: opts.number('iterations', QUICK ? 8 : 30),
  burst: opts.number('burst', QUICK ? 12 : 40),
  levels: opts.list('levels', '1,4').map(Number),
  contenders: opts.list('contenders', 'floor,library,http,reuse'),
};
const FORMATS = ['pdf', 'png'];
/** Chromium's default margins, which the engine (like Gotenberg, 1 cm) keeps: the same document on both sides. */
const MARGINS = { top: '0.4in', right: '0.4in', bottom: '0.4in', left: '0.4in' };
const KEY = 'bench-documents-key-0123456789abcdef';
const log = (...a) => console.error('[documents]', ...a);

const problem = missing();
if (problem) {
  console.error(problem);
  process.exit(1);
}

/** The floor: what a converter built straight on Playwright does for each document. */
async function floorContender() {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS });
  return {
    convert: async (format) => {
      // The engine's default viewport: the same picture on both sides.
      const context = await browser.newContext({ viewport: { width: 1920, height: 1080 } });
      try {
        const page = await context.newPage();
        await page.setContent(INVOICE, { waitUntil: 'load' });
        return format === 'pdf' ? await page.pdf({ format: 'A4', printBackground: true, margin: MARGINS }) : await page.screenshot({ type: 'png' });
      } finally {
        await context.close();
      }
    },
    close: () => browser.close(),
  };
}

async function engineContenders(engine, service, createNodeListener) {
  const server = http.createServer(createNodeListener(service));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/api/v1/capture`;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const post = (format) =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({ html: INVOICE, format });
      const req = http.request(url, { method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body), 'X-API-Key': KEY } }, (res) => {
        const chunks = [];
        res.on('data', (chunk) => chunks.push(chunk));
        res.on('end', () => (res.statusCode === 200 ? resolve(Buffer.concat(chunks)) : reject(new Error(`${res.statusCode} ${Buffer.concat(chunks)}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  return {
    library: { convert: async (format) => (await engine.capture({ html: INVOICE, format })).data, close: async () => undefined },
    http: {
      convert: post,
      close: async () => {
        agent.destroy();
        await new Promise((resolve) => server.close(resolve));
      },
    },
  };
}

async function main() {
  const { createCaptureEngine, createCaptureHttp, createNodeListener, silentLogger } = await loadEngine();
  const engine = await createCaptureEngine({ concurrency: Math.max(...cfg.levels), log: silentLogger, allowPrivateNetworks: true });
  const service = createCaptureHttp(engine, { apiKeys: [{ key: KEY, tier: 'ENTERPRISE' }], tiers: { ENTERPRISE: { requestsPerMinute: 1e9, monthlyQuota: 1e9 } } });
  const reusing = await createCaptureEngine({ concurrency: Math.max(...cfg.levels), log: silentLogger, allowPrivateNetworks: true, contextReuse: true });
  const contenders = {
    floor: await floorContender(),
    ...(await engineContenders(engine, service, createNodeListener)),
    reuse: { convert: async (format) => (await reusing.capture({ html: INVOICE, format })).data, close: () => reusing.close() },
  };
  const names = cfg.contenders.filter((name) => contenders[name]);
  try {
    // Warm-up, and a check that every contender makes the same document.
    for (const name of names) {
      const pdf = await contenders[name].convert('pdf');
      const pages = (pdf.toString('latin1').match(/\/Type\s*\/Page[^s]/g) ?? []).length;
      log(`${name}: ${pdf.length} bytes, ${pages} pages`);
      await contenders[name].convert('png');
    }
    const latency = Object.fromEntries(names.map((name) => [name, Object.fromEntries(FORMATS.map((format) => [format, []]))]));
    for (let round = 0; round < cfg.iterations; round++) {
      for (const format of FORMATS) {
        for (const name of rotate(names, round)) {
          // Each contender's work left from the last document (a context closing, a warm one
          // opening) must not land in the next one's time.
          await waitQuiet(process.pid);
          const started = performance.now();
          await contenders[name].convert(format);
          latency[name][format].push(performance.now() - started);
        }
      }
    }
    const throughput = Object.fromEntries(names.map((name) => [name, {}]));
    for (const level of cfg.levels) {
      for (const format of FORMATS) {
        for (let burst = 0; burst < 2; burst++) {
          for (const name of rotate(names, burst)) {
            await waitQuiet(process.pid);
            const rate = await documentsPerSecond(contenders[name], format, level);
            const key = `${format}@${level}`;
            throughput[name][key] = Math.max(throughput[name][key] ?? 0, rate);
          }
        }
      }
    }
    report(names, latency, throughput);
  } finally {
    for (const name of Object.keys(contenders)) await contenders[name].close();
    await engine.close();
  }
}

/** `burst` documents with `level` in flight at any time: documents per second. */
async function documentsPerSecond(contender, format, level) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: level }, async () => {
      while (next < cfg.burst) {
        next += 1;
        await contender.convert(format);
      }
    }),
  );
  return cfg.burst / ((performance.now() - started) / 1000);
}

function report(names, latency, throughput) {
  const ms = (value) => value.toFixed(0);
  console.log(binaryLines(Object.fromEntries(names.map((name) => [name, CHROMIUM_PATH]))).join('\n'));
  console.log(`\n### Latency, one document at a time (${cfg.iterations} each)\n`);
  console.log(
    markdownTable(
      ['contender', ...FORMATS.flatMap((format) => [`${format} p50 ms`, `${format} p95 ms`])],
      names.map((name) => [name, ...FORMATS.flatMap((format) => [ms(percentile(latency[name][format], 50)), ms(percentile(latency[name][format], 95))])]),
      { align: 'lrrrr' },
    ),
  );
  const keys = cfg.levels.flatMap((level) => FORMATS.map((format) => `${format}@${level}`));
  console.log(`\n### Documents per second (${cfg.burst} per burst, best of 2)\n`);
  console.log(
    markdownTable(
      ['contender', ...keys.map((key) => `${key.replace('@', ' at ')}`)],
      names.map((name) => [name, ...keys.map((key) => throughput[name][key].toFixed(2))]),
      { align: `l${'r'.repeat(keys.length)}` },
    ),
  );
}

await main();

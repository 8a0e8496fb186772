// A large PDF: a 1,000-page document with a different image on every page (issue 54, "Large
// documents"), printed by the built engine (../dist) and read from Chromium as a stream into a
// temporary file. Reports the PDF's pages and bytes, the time, and the peak RSS of this process's
// tree (Node and every Chromium) over its level before the print.
//
//   node large-pdf/large-pdf.js [--pages=1000]
//
// Each image is a 320x240 24-bit BMP of noise (no two alike, none compressible): Chromium embeds
// its pixels, 230,400 bytes a page, so 1,000 pages make a PDF of over 200 MB. Prints a markdown
// table; the numbers of a run go to results/large-pdf.md by hand.

import { stat } from 'node:fs/promises';
import { loadEngine, missing } from '../lib/dist.js';
import { readOptions } from '../lib/cli-options.js';
import { startFixtureServer, html } from '../lib/fixture-server.js';
import { TreeSampler } from '../lib/tree-sampler.js';
import { markdownTable } from '../lib/tables.js';

const opts = readOptions(import.meta.url, { pages: { env: 'BENCH_PAGES' } });
const PAGES = Number(opts.number('pages', 1000));
const WIDTH = 320;
const HEIGHT = 240;
const MB = 1024 ** 2;

/** A 24-bit BMP of noise from a seeded generator: the same bytes every run, different for each seed. */
function noiseBmp(seed) {
  const row = WIDTH * 3; // a multiple of 4 at this width: no padding
  const pixels = row * HEIGHT;
  const bmp = Buffer.alloc(54 + pixels);
  bmp.write('BM', 0, 'latin1');
  bmp.writeUInt32LE(bmp.length, 2);
  bmp.writeUInt32LE(54, 10);
  bmp.writeUInt32LE(40, 14);
  bmp.writeInt32LE(WIDTH, 18);
  bmp.writeInt32LE(HEIGHT, 22);
  bmp.writeUInt16LE(1, 26);
  bmp.writeUInt16LE(24, 28);
  bmp.writeUInt32LE(pixels, 34);
  let state = (seed * 2654435761) >>> 0 || 1;
  for (let i = 54; i < bmp.length; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bmp[i] = state & 0xff;
  }
  return bmp;
}

const images = Object.fromEntries(Array.from({ length: PAGES }, (_, i) => [`/img/${i}.bmp`, { type: 'image/bmp', body: noiseBmp(i + 1) }]));
const pagesHtml = Array.from({ length: PAGES }, (_, i) => `<section><h2>Page ${i + 1}</h2><img src="/img/${i}.bmp" width="${WIDTH}" height="${HEIGHT}"></section>`).join('');
const fixtures = await startFixtureServer({
  '/document': html(`<!doctype html><style>section{break-after:page}img{display:block}</style><body>${pagesHtml}</body>`),
  ...images,
});

const why = missing();
if (why) throw new Error(why);
const { createCaptureEngine, silentLogger } = await loadEngine();
const engine = await createCaptureEngine({ timeoutMs: 900_000, concurrency: 1, log: silentLogger, allowPrivateNetworks: true });
const sampler = new TreeSampler({ intervalMs: 50 });
try {
  // A short print first, so the baseline holds a warm browser, as a service's would.
  await (await engine.capture({ html: '<p>warm</p>', format: 'pdf' })).dispose();
  sampler.sample([process.pid]);
  const before = sampler.peak.get(process.pid);
  sampler.resetWindow(process.pid);
  sampler.active.add(process.pid);
  sampler.start();
  // This process alone as well: what reading the PDF costs here, apart from Chromium's share.
  const nodeBefore = process.memoryUsage.rss();
  let nodePeak = nodeBefore;
  const nodeSampler = setInterval(() => (nodePeak = Math.max(nodePeak, process.memoryUsage.rss())), 50);
  const started = performance.now();
  const result = await engine.capture({ url: fixtures.url('/document'), format: 'pdf', pdf_print_background: true });
  const seconds = (performance.now() - started) / 1000;
  sampler.sample();
  sampler.stop();
  clearInterval(nodeSampler);
  const peak = sampler.windowPeak.get(process.pid);
  const bytes = result.path ? (await stat(result.path)).size : result.data.length;
  const pdf = result.path ? undefined : result.data;
  console.log(
    markdownTable(
      ['pages', 'PDF bytes', 'held as', 'time (s)', 'tree RSS before (MB)', 'peak tree RSS (MB)', 'tree growth (MB)', 'Node growth (MB)'],
      [[PAGES, bytes.toLocaleString('en-US'), pdf ? 'Buffer' : 'temporary file', seconds.toFixed(1), (before / MB).toFixed(0), (peak / MB).toFixed(0), ((peak - before) / MB).toFixed(0), ((nodePeak - nodeBefore) / MB).toFixed(0)]],
    ),
  );
  await result.dispose();
} finally {
  sampler.stop();
  await engine.close();
  await fixtures.close();
}

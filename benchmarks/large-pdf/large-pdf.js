// A large PDF: a 1,000-page document with a different image on every page (issue 54, "Large
// documents"), printed by the built engine (../dist) and read from Chromium as a stream into a
// temporary file, whole in one print and in page ranges joined with qpdf (the engine's
// pdfRangePages), alternated in the same run. Reports the PDF's pages and bytes, the time, and the
// peak RSS of this process's tree (Node, every Chromium, qpdf) over its level before the print.
//
//   node large-pdf/large-pdf.js [--pages=1000] [--range-pages=100] [--runs=2]
//
// Each image is a 320x240 24-bit BMP of noise (no two alike, none compressible): Chromium embeds
// its pixels, 230,400 bytes a page, so 1,000 pages make a PDF of over 200 MB. Prints a markdown
// table; the numbers of a run go to results/large-pdf.md by hand.

import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { loadEngine, missing } from '../lib/dist.js';
import { readOptions } from '../lib/cli-options.js';
import { startFixtureServer, html } from '../lib/fixture-server.js';
import { TreeSampler } from '../lib/tree-sampler.js';
import { processTable, treePids } from '../lib/process-tree.js';
import { rssBytes } from '../lib/process-memory.js';
import { markdownTable } from '../lib/tables.js';

const opts = readOptions(import.meta.url, { pages: { env: 'BENCH_PAGES' }, 'range-pages': { env: 'BENCH_RANGE_PAGES' }, runs: { env: 'BENCH_RUNS' } });
const PAGES = Number(opts.number('pages', 1000));
const RANGE_PAGES = Number(opts.number('range-pages', 100));
const RUNS = Number(opts.number('runs', 2));
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

/** The summed RSS of each kind of process under this one: Chromium's by its --type (none: the browser process), the others by name. */
function rssByKind() {
  const table = processTable();
  const kinds = {};
  for (const pid of treePids(process.pid, table)) {
    if (pid === process.pid) continue;
    let commandLine = '';
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'latin1');
    } catch {
      continue; // exited meanwhile
    }
    const comm = table.get(pid)?.comm ?? '?';
    const kind = /--type=([a-z-]+)/.exec(commandLine)?.[1] ?? (/chrom/i.test(comm) ? 'browser' : comm);
    kinds[kind] = (kinds[kind] ?? 0) + (rssBytes(pid) ?? 0);
  }
  return kinds;
}

/** One print of the document by a fresh engine printing `rangePages` pages at a time; its row of the table. */
async function measure(label, rangePages) {
  const engine = await createCaptureEngine({ timeoutMs: 900_000, concurrency: 1, log: silentLogger, allowPrivateNetworks: true, pdfRangePages: rangePages });
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
    // And each kind of process: which of them grows.
    const kindsBefore = rssByKind();
    const kindPeaks = {};
    const nodeSampler = setInterval(() => {
      nodePeak = Math.max(nodePeak, process.memoryUsage.rss());
      for (const [kind, bytes] of Object.entries(rssByKind())) kindPeaks[kind] = Math.max(kindPeaks[kind] ?? 0, bytes);
    }, 50);
    const started = performance.now();
    const result = await engine.capture({ url: fixtures.url('/document'), format: 'pdf', pdf_print_background: true });
    const seconds = (performance.now() - started) / 1000;
    sampler.sample();
    sampler.stop();
    clearInterval(nodeSampler);
    const peak = sampler.windowPeak.get(process.pid);
    const bytes = result.path ? (await stat(result.path)).size : result.data.length;
    const pages = result.path ? countPages(result.path) : '?';
    await result.dispose();
    const byKind = Object.entries(kindPeaks)
      .map(([kind, bytes]) => [kind, (bytes - (kindsBefore[kind] ?? 0)) / MB])
      .filter(([, grown]) => grown >= 5)
      .map(([kind, grown]) => `${kind} +${grown.toFixed(0)}`)
      .join(', ');
    return [label, pages, bytes.toLocaleString('en-US'), result.path ? 'temporary file' : 'Buffer', seconds.toFixed(1), (before / MB).toFixed(0), (peak / MB).toFixed(0), ((peak - before) / MB).toFixed(0), ((nodePeak - nodeBefore) / MB).toFixed(0), byKind];
  } finally {
    sampler.stop();
    await engine.close();
  }
}

/** The PDF's pages as poppler counts them. */
function countPages(file) {
  const info = spawnSync('pdfinfo', [file], { encoding: 'utf8' }).stdout;
  return Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
}

// Alternated, so that neither way always runs on a machine the other warmed.
const WAYS = [
  ['whole, one print', PAGES + 1],
  [`in ranges of ${RANGE_PAGES} pages`, RANGE_PAGES],
];
const rows = [];
try {
  for (let run = 0; run < RUNS; run++) for (const [label, rangePages] of WAYS) rows.push(await measure(label, rangePages));
  console.log(markdownTable(['print', 'pages', 'PDF bytes', 'held as', 'time (s)', 'tree RSS before (MB)', 'peak tree RSS (MB)', 'tree growth (MB)', 'Node growth (MB)', 'peak growth by process (MB)'], rows));
} finally {
  await fixtures.close();
}

// PDF size stages (issue 54): a 50-page document of invoices with a logo on every page, printed
// plain and through the finishing stages that change its size, in bytes and time.
//
//   node documents/pdf-size.js [--quick] [--iterations=N]
//
// One engine of the built package (../dist), one document: 10 invoices of 5 pages (50 pages), a
// 240x120 logo of noise (deflate cannot shrink it, as with a photo) in the header template
// of every page, which Chromium stores once, and at the head of each invoice by an address of its
// own (`data:image/png;copy=N;...`, as a cache-busting `logo.png?v=N` would be), which Chromium
// stores again for each address. Variants, in the same run: plain; pdf_optimize
// (Ghostscript stores identical images once, qpdf packs object streams); pdf_optimize with
// pdf_image_dpi=96; pdf_a=PDF/A-2b; pdf_merge of the same pages as 5 html parts of 10, without and
// with pdf_optimize. For each: the bytes (the same every time), the distinct image
// objects (`pdfimages -list`), and the median time of `iterations` captures, interleaved.
// Prints a markdown table; the numbers of a run go to results/pdf-size.md by hand.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { loadEngine, missing } from '../lib/dist.js';
import { readOptions } from '../lib/cli-options.js';
import { percentile } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { INVOICE } from './invoice.js';

const opts = readOptions(import.meta.url, { quick: { flag: true, env: 'BENCH_QUICK' }, iterations: { env: 'BENCH_ITERATIONS' } });
const ITERATIONS = opts.number('iterations', opts.flag('quick') ? 2 : 5);
const PAGES = 50;
const PARTS = 5;
const log = (...a) => console.error('[pdf-size]', ...a);

const problem = missing();
if (problem) {
  console.error(problem);
  process.exit(1);
}

const VARIANTS = [
  ['plain', {}],
  ['pdf_optimize', { pdf_optimize: true }],
  ['pdf_optimize, pdf_image_dpi=96', { pdf_optimize: true, pdf_image_dpi: 96 }],
  ['pdf_a=PDF/A-2b', { pdf_a: 'PDF/A-2b' }],
  // The same 50 pages as 5 parts of 10: five prints on one page, joined by qpdf, an outline entry each.
  ['pdf_merge, 5 parts of 10 pages', (image) => merged(image)],
  ['pdf_merge, pdf_optimize', (image) => ({ ...merged(image), pdf_optimize: true })],
];

/** The document as PARTS html parts of PAGES / PARTS pages each, in order. */
function merged(image) {
  const copies = PAGES / PARTS / 5;
  return { html: undefined, pdf_merge: Array.from({ length: PARTS }, (_, part) => ({ html: document(image, part * copies, copies) })) };
}

/** The invoice's body repeated until it fills PAGES pages (or `count` copies from `first`), each copy starting a page with the logo by its own address. */
function document(logo, first = 0, count = PAGES / 5) {
  const body = INVOICE.slice(INVOICE.indexOf('<body>') + 6, INVOICE.indexOf('</body>'));
  const head = INVOICE.slice(0, INVOICE.indexOf('<body>'));
  // The invoice is 5 pages on A4 as printed: 10 copies.
  const copies = Array.from({ length: count }, (_, i) => `<section style="break-after:page"><img src="data:image/png;copy=${first + i};base64,${logo}" style="width:120px;height:60px">${body}</section>`).join('');
  return `${head}<body>${copies}</body></html>`;
}

async function logo() {
  // A linear congruential sequence's high bytes: deflate cannot make it smaller, as with a photo.
  let seed = 54;
  const noise = Buffer.from(Array.from({ length: 240 * 120 * 3 }, () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) >>> 24));
  return (await sharp(noise, { raw: { width: 240, height: 120, channels: 3 } }).png().toBuffer()).toString('base64');
}

function imageObjects(pdf, dir) {
  const file = path.join(dir, 'out.pdf');
  writeFileSync(file, pdf);
  const rows = execFileSync('pdfimages', ['-list', file], { encoding: 'utf8' }).trim().split('\n').slice(2);
  return new Set(rows.map((row) => row.trim().split(/\s+/)[10])).size;
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'pdf-size-'));
const { createCaptureEngine } = await loadEngine();
const engine = await createCaptureEngine({});
try {
  const image = await logo();
  const base = { html: document(image), format: 'pdf', pdf_margin_top: '1in', pdf_header_html: `<img src="data:image/png;base64,${image}" style="width:120px;height:60px">` };
  const results = VARIANTS.map(([name]) => ({ name, bytes: 0, pages: 0, images: 0, times: [] }));
  await engine.capture({ ...base }); // warm-up
  for (let round = 0; round < ITERATIONS; round++) {
    for (const [index, [name, params]] of VARIANTS.entries()) {
      const started = performance.now();
      const result = await engine.capture({ ...base, ...(typeof params === 'function' ? params(image) : params) });
      const entry = results[index];
      entry.times.push(performance.now() - started);
      entry.bytes = result.data.length;
      if (round === 0) {
        entry.images = imageObjects(result.data, dir);
        writeFileSync(path.join(dir, 'out.pdf'), result.data);
        entry.pages = Number(/Pages:\s+(\d+)/.exec(execFileSync('pdfinfo', [path.join(dir, 'out.pdf')], { encoding: 'utf8' }))?.[1]);
      }
      log(name, round, Math.round(entry.times.at(-1)), 'ms');
    }
  }
  const plain = results[0];
  console.log(
    markdownTable(
      ['variant', 'pages', 'bytes', 'vs plain', 'image objects', `p50 ms (${ITERATIONS})`],
      results.map((entry) => [entry.name, entry.pages, entry.bytes.toLocaleString('en'), `${((100 * entry.bytes) / plain.bytes).toFixed(0)} %`, entry.images, Math.round(percentile(entry.times, 50))]),
    ),
  );
} finally {
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

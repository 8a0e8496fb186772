// What a page says against what it shows (issue 52): time and CPU of format=markdown against
// format=png of the same page, and of one capture with outputs=markdown,links,metadata against
// the same four outputs taken by four captures, in one run.
//
//   node page-content/page-content.js [--quick] [--iterations=N]
//
// One engine of the built package (../dist), its defaults (1920x1080 viewport), on an article page
// of about 40 KB (headings, 120 paragraphs, a table, code blocks, 300 links) served on 127.0.0.1.
// Each round runs every contender once, in an order rotated every round, each once the process
// tree (this process and its Chromium) is quiet. Per contender: wall time p50 and p95 (ms), CPU of
// the whole tree per run (ms, median), and the page's document requests per run (the fixture
// server's count). Prints markdown tables; the numbers of a run go to results/page-content.md by hand.

import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startPageServer } from '../../fixtures/page-server.js';
import { loadEngine, missing } from '../lib/dist.js';
import { readOptions } from '../lib/cli-options.js';
import { binaryLines, CHROMIUM_PATH } from '../lib/chromium.js';
import { median, percentile, rotate } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { TICKS_PER_SECOND, treeTicks } from '../lib/process-tree.js';
import { waitQuiet } from '../lib/wait-quiet.js';

const opts = readOptions(import.meta.url, { quick: { flag: true, env: 'BENCH_QUICK' }, iterations: { env: 'BENCH_ITERATIONS' } });
const ITERATIONS = opts.number('iterations', opts.flag('quick') ? 4 : 15);
const log = (...a) => console.error('[page-content]', ...a);

const problem = missing();
if (problem) {
  console.error(problem);
  process.exit(1);
}

/** A long article as a blog or documentation site serves it. */
function articlePage() {
  const paragraph = (i) => `<p>Paragraph ${i} of the guide: pruning opens the tree to light and air, and <a href="/notes/${i}">note ${i}</a> says why a cut above an outward bud keeps the centre open. <em>Winter</em> cuts heal before the sap rises; <code>secateurs</code> take shoots, the saw the rest.</p>`;
  const sections = Array.from({ length: 12 }, (_, s) => `<h2>Section ${s + 1}</h2>${Array.from({ length: 10 }, (_, p) => paragraph(s * 10 + p)).join('')}<pre><code class="language-js">const cut${s} = (branch) =&gt; branch.length &gt; ${s};</code></pre>`).join('');
  const rows = Array.from({ length: 20 }, (_, i) => `<tr><td>Tree ${i}</td><td>${i * 3} years</td><td>${i % 4 ? 'apple' : 'pear'}</td></tr>`).join('');
  const nav = Array.from({ length: 180 }, (_, i) => `<a href="/site/${i}">Site page ${i}</a>`).join(' ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Pruning guide</title><meta name="description" content="How to prune">
<meta property="og:image" content="/og.png"><script type="application/ld+json">{"@type":"Article","headline":"Pruning guide"}</script>
<style>body{font:16px/1.5 sans-serif;max-width:800px;margin:auto}</style></head><body><header><nav>${nav}</nav></header>
<main><article><h1>Pruning guide</h1>${sections}<table><thead><tr><th>Tree</th><th>Age</th><th>Kind</th></tr></thead><tbody>${rows}</tbody></table></article></main>
<footer>Orchard Notes</footer></body></html>`;
}

const PAGE = articlePage();
const server = await startPageServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' }).end(PAGE));
const url = server.url('/article');
const storageDir = mkdtempSync(path.join(os.tmpdir(), 'bench-page-content-'));
const { createCaptureEngine, silentLogger } = await loadEngine();
// The engine finds the binary lib/chromium.js names (it asks the engine which one that is).
const engine = await createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger, concurrency: 1, storageDir });

/** Each contender: the captures of one run. */
const CONTENDERS = {
  png: [{ format: 'png' }],
  markdown: [{ format: 'markdown' }],
  'png + outputs=markdown,links,metadata': [{ format: 'png', outputs: 'markdown,links,metadata', response_type: 'json' }],
  'png, markdown, links, metadata apart': [{ format: 'png', response_type: 'json' }, { format: 'markdown' }, { format: 'links' }, { format: 'metadata' }],
};

async function runOnce(captures) {
  const hitsBefore = server.hits('/article');
  const ticksBefore = treeTicks(process.pid);
  const started = performance.now();
  for (const params of captures) await (await engine.capture({ url, ...params })).dispose();
  const ms = performance.now() - started;
  return { ms, cpuMs: ((treeTicks(process.pid) - ticksBefore) * 1000) / TICKS_PER_SECOND, documents: server.hits('/article') - hitsBefore };
}

const names = Object.keys(CONTENDERS);
const samples = Object.fromEntries(names.map((name) => [name, []]));
try {
  // One of each first: the engine's first capture starts its Chromium and compiles the libraries.
  for (const name of names) await runOnce(CONTENDERS[name]);
  for (let round = 0; round < ITERATIONS; round++) {
    for (const name of rotate(names, round)) {
      await waitQuiet(process.pid);
      samples[name].push(await runOnce(CONTENDERS[name]));
    }
    log(`round ${round + 1}/${ITERATIONS}`);
  }
} finally {
  await engine.close();
  await server.close();
  rmSync(storageDir, { recursive: true, force: true });
}

const row = (name) => {
  const runs = samples[name];
  const ms = runs.map((r) => r.ms);
  return [name, median(ms).toFixed(0), percentile(ms, 95).toFixed(0), median(runs.map((r) => r.cpuMs)).toFixed(0), median(runs.map((r) => r.documents))];
};
const header = ['contender', 'p50 ms', 'p95 ms', 'CPU ms per run (tree)', 'document requests per run'];
console.log(`## Page content (issue 52): ${ITERATIONS} rounds, page of ${(PAGE.length / 1024).toFixed(0)} KB, ${os.cpus().length} cores\n`);
console.log(binaryLines({ engine: CHROMIUM_PATH }).join('\n'));
console.log('\n### format=markdown against format=png\n');
console.log(markdownTable(header, [row('png'), row('markdown')], { align: 'lrrrr' }));
console.log('\n### One capture with outputs= against four captures\n');
console.log(markdownTable(header, [row('png + outputs=markdown,links,metadata'), row('png, markdown, links, metadata apart')], { align: 'lrrrr' }));

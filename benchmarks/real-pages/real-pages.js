#!/usr/bin/env node
// Real pages: full-page captures of long documentation pages nobody here wrote (Node's, Python's,
// Django's API docs and the Debian Reference, from Debian's documentation packages), by the
// engine and by raw playwright-core, against the page's real height.
//
//   bash benchmarks/setup.sh   # fetches the pages: scripts/fetch-real-pages.sh nodejs-doc python3.11-doc python-django-doc debian-reference-en
//   npm run build              # at the repository root: the engine is loaded from dist/
//   node benchmarks/real-pages/real-pages.js [--pages=node/fs,django/models] [--tools=engine,floor]
//                                            [--band=500] [--threshold=16]
//   (from benchmarks/: npm run real-pages)
//
// Environment equivalents: BENCH_REAL_PAGES, BENCH_TOOLS, BENCH_BAND, BENCH_THRESHOLD. Both tools
// and the reference heights drive the binary the engine finds (lib/chromium.js;
// CAPTURE_CHROMIUM_PATH sets it). The table goes to stdout, progress to stderr.
// About 2.5 minutes for the 10 pages on a 2-core machine (load average about 2).
//
// Method: the packages are downloaded and unpacked, never installed (real-pages-list.js has the
// pages); each package's HTML directory is served by fixtures/page-server.js (serveDirectory) on
// 127.0.0.1. Every page is captured once per tool at 1280x800, full page, PNG:
// - engine: `createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger, concurrency: 1 })`,
//   `engine.capture({ url, full_page: true, viewport_width: 1280, viewport_height: 800 })`,
//   defaults otherwise (30 s budget); warmed up by one viewport capture first;
// - floor: raw playwright-core on one warm browser, a new context per page,
//   `page.goto(url, {waitUntil: 'load'})`, `page.screenshot({fullPage: true})`.
// The tools' order alternates from page to page; before each capture this process tree must be
// quiet (../lib/wait-quiet.js). ms is the wall time of the capture call (floor: context to PNG).
// Per page, in a Playwright page load of its own (real-pages-browser.js): the elements whose
// computed position is fixed or sticky once loaded, and the reference height: the scroll height
// once `* { content-visibility: visible !important }` is forced and the page scrolled to the
// bottom. Blank bands (../lib/blank-bands.js): whole 500 px bands of the image, decoded with sharp to
// raw RGB, in which no pixel differs from the band's most frequent colour by more than 16 in any
// channel: nothing painted there. Every process started (both browsers) is ended at the end, on
// Ctrl-C/SIGTERM and by a watchdog; leftovers by pid.

import fs from 'node:fs';
import os from 'node:os';
import { serveDirectory, startPageServer } from '../../fixtures/page-server.js';
import { blankBands } from '../lib/blank-bands.js';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { loadEngine, missing } from '../lib/dist.js';
import { integer } from '../lib/format.js';
import { Leftovers } from '../lib/leftovers.js';
import { engineVersion, packageVersion } from '../lib/package-version.js';
import { cleanupOnSignal, once, startWatchdog } from '../lib/shutdown.js';
import { rotate } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { waitQuiet } from '../lib/wait-quiet.js';
import { floorCapture, launchChromium, pageFacts } from './real-pages-browser.js';
import { selectPages } from './real-pages-list.js';

const TOOL_NAMES = ['engine', 'floor'];
const opts = readOptions(import.meta.url, {
  pages: { env: 'BENCH_REAL_PAGES' },
  tools: { env: 'BENCH_TOOLS' },
  band: { env: 'BENCH_BAND' },
  threshold: { env: 'BENCH_THRESHOLD' },
});
const cfg = {
  pages: opts.list('pages', ''),
  tools: opts.list('tools', TOOL_NAMES.join(',')),
  band: opts.number('band', 500),
  threshold: opts.number('threshold', 16),
};
const VIEWPORT = { width: 1280, height: 800 };
const log = (...a) => console.error('[real-pages]', ...a);
const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');

function fail(message) {
  log(message);
  process.exit(1);
}

// ------------------------------------------------------------------------------- preconditions
const unknownTools = cfg.tools.filter((t) => !TOOL_NAMES.includes(t));
if (unknownTools.length) fail(`unknown tool(s) ${unknownTools.join(', ')}; known: ${TOOL_NAMES.join(', ')}`);
if (!(cfg.band > 0) || !(cfg.threshold >= 0)) fail('--band must be > 0 and --threshold >= 0');
let groups;
try {
  groups = selectPages(cfg.pages);
} catch (error) {
  fail(error.message);
}
if (!fs.existsSync(CHROMIUM_PATH)) fail(`no Chromium at ${CHROMIUM_PATH} (set CAPTURE_CHROMIUM_PATH)`);
if (cfg.tools.includes('engine') && missing()) fail(missing());

// ------------------------------------------------------------------------------------- cleanup
const leftovers = new Leftovers();
const remember = () => leftovers.remember([process.pid]);
const servers = [];
let engine;
let browser;
const cleanup = once(async () => {
  remember();
  await Promise.allSettled([engine?.close(), browser?.close(), ...servers.map((s) => s.close())]);
  const killed = await leftovers.end({ waitMs: 5000, pollMs: 100 });
  if (killed.length) log(`ended ${killed.length} leftover process(es): ${killed.join(' ')}`);
});
cleanupOnSignal((signal) => {
  log(`${signal}: closing the browsers`);
  return cleanup();
});
const pageCount = groups.reduce((n, g) => n + g.pages.length, 0);
const watchdogMs = (3 + 4 * pageCount) * 60_000;
startWatchdog(watchdogMs, () => {
  log(`watchdog: still running after ${watchdogMs / 60_000} min, stopping`);
  return cleanup();
});

// --------------------------------------------------------------------------------------- tools
const TOOLS = {
  async engine(url) {
    const started = performance.now();
    const result = await engine.capture({ url, full_page: true, viewport_width: VIEWPORT.width, viewport_height: VIEWPORT.height });
    const ms = performance.now() - started;
    try {
      return { buffer: result.data ?? (await result.buffer()), ms, clippedFrom: result.clippedFrom };
    } finally {
      await result.dispose();
    }
  },
  floor: (url) => floorCapture(browser, url, VIEWPORT),
};

/** One capture by `tool`, with the image's height and blank bands; { error } if it failed. */
async function measure(tool, url) {
  await waitQuiet(process.pid);
  try {
    const { buffer, ms, clippedFrom } = await TOOLS[tool](url);
    const bands = await blankBands(buffer, { band: cfg.band, threshold: cfg.threshold });
    return { ms, clippedFrom, height: bands.height, blank: bands.blank, total: bands.total };
  } catch (error) {
    return { error: `${error.code ?? error.name}: ${error.message.split('\n')[0]}` };
  } finally {
    remember();
  }
}

// -------------------------------------------------------------------------------------- report
const px = (n) => (Number.isFinite(n) ? integer(n) : '–');

function printTable(rows, { seconds, loadStart }) {
  const header = ['page', 'tool', 'height px', 'clipped_from', 'ms', 'fixed/sticky', `blank ${cfg.band} px bands`, 'reference px'];
  const cells = rows.map((r) => [r.label, r.tool, r.error ? 'error' : px(r.height), r.clippedFrom === undefined ? '' : px(r.clippedFrom),
    r.error ? '–' : integer(r.ms), r.facts.error ? '–' : String(r.facts.fixedSticky), r.error ? '–' : `${r.blank} / ${r.total}`,
    r.facts.error ? '–' : px(r.facts.referenceHeight)]);
  console.log(`## Real pages: full-page PNG captures at ${VIEWPORT.width}x${VIEWPORT.height}, one per page and tool\n`);
  console.log(`capture-engine ${engineVersion()} (dist), playwright-core ${packageVersion('playwright-core')}; ` +
    `${os.cpus().length} cores, load average ${loadStart} at the start, ${loadAverage()} at the end; ${seconds.toFixed(0)} s in all\n`);
  const binaries = Object.fromEntries([...cfg.tools, 'reference px'].map((name) => [name, CHROMIUM_PATH]));
  console.log(`${binaryLines(binaries).join('\n')}\n`);
  console.log(markdownTable(header, cells, { align: 'llrrrrrr' }));
  const errors = rows.filter((r) => r.error || r.facts.error);
  for (const r of errors) console.log(`\n- ${r.label}, ${r.tool}: ${r.error ?? `reference: ${r.facts.error}`}`);
}

// ---------------------------------------------------------------------------------------- main
async function main() {
  const t0 = performance.now();
  const loadStart = loadAverage();
  const pages = [];
  for (const group of groups) {
    const server = await startPageServer(serveDirectory(group.root));
    servers.push(server);
    for (const page of group.pages) pages.push({ ...page, url: server.url(page.file) });
  }
  log(`${pages.length} page(s), tools ${cfg.tools.join(', ')}; load average ${loadStart} on ${os.cpus().length} cores`);
  browser = await launchChromium();
  if (cfg.tools.includes('engine')) {
    const { createCaptureEngine, silentLogger } = await loadEngine();
    engine = await createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger, concurrency: 1 });
    await (await engine.capture({ url: pages[0].url, viewport_width: VIEWPORT.width, viewport_height: VIEWPORT.height })).dispose();
  }
  remember();
  const rows = [];
  for (const [i, page] of pages.entries()) {
    const facts = await pageFacts(browser, page.url, VIEWPORT).catch((error) => ({ error: error.message.split('\n')[0] }));
    remember();
    const parts = [`reference ${px(facts.referenceHeight)} px`];
    for (const tool of rotate(cfg.tools, i)) {
      const row = { label: page.label, tool, facts, ...(await measure(tool, page.url)) };
      rows.push(row);
      parts.push(row.error ? `${tool} ${row.error}` : `${tool} ${px(row.height)} px in ${(row.ms / 1000).toFixed(1)} s`);
    }
    log(`${page.label}: ${parts.join(', ')}`);
  }
  rows.sort((a, b) => pages.findIndex((p) => p.label === a.label) - pages.findIndex((p) => p.label === b.label) ||
    cfg.tools.indexOf(a.tool) - cfg.tools.indexOf(b.tool));
  const seconds = (performance.now() - t0) / 1000;
  printTable(rows, { seconds, loadStart });
  log(`done in ${seconds.toFixed(0)} s`);
}

try {
  await main();
} finally {
  await cleanup();
}

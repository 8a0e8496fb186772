#!/usr/bin/env node
// Clean-capture benchmark: block_ads and block_cookies over the corpus of fixtures/corpus.
//
//   npm run build && node benchmarks/clean/clean.js [--rounds=N] [--pages=a,b]     (BENCH_ROUNDS=N also works)
//   (from benchmarks/: npm run clean)
//
// For every corpus page and every mode (neither, block_ads, block_cookies, both), captures are
// taken in rounds, the order of modes rotating every round so drift on a shared machine hits all
// modes alike. It reports: banners dismissed (banner point shows content with block_cookies),
// ads hidden (every ad point shows content with block_ads), ad requests that reached the fixture
// server with and without block_ads, pages fully clean with both, and the median extra latency
// of each flag against neither (median of the per-round differences on the same page).
// Targets: every page clean; extra latency <= 300 ms median for each flag.

import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { loadEngine } from '../lib/dist.js';
import { median, rotate } from '../lib/stats.js';
import { startCorpusServer, HOST_RESOLVER_RULES, corpusResolver } from '../../fixtures/corpus/server.js';
import { CORPUS, COLOURS, VIEWPORT } from '../../fixtures/corpus/manifest.js';

const opts = readOptions(import.meta.url, { rounds: { env: 'BENCH_ROUNDS' }, pages: {} });
const ROUNDS = opts.number('rounds', 3);
const pageNames = opts.list('pages', '');
const PAGES = pageNames.length ? CORPUS.filter((p) => pageNames.includes(p.name)) : CORPUS;
const TARGET_MS = 300;
const MODES = {
  neither: {},
  ads: { block_ads: true },
  cookies: { block_cookies: true },
  both: { block_ads: true, block_cookies: true },
};

const hex = (c) => [1, 3, 5].map((i) => Number.parseInt(c.slice(i, i + 2), 16));
const near = (a, b, tol = 14) => a.every((v, i) => Math.abs(v - b[i]) <= tol);

async function pixels(buffer) {
  const { data, info } = await sharp(buffer).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return ([x, y]) => {
    const o = (y * info.width + x) * info.channels;
    return [data[o], data[o + 1], data[o + 2]];
  };
}

const { createCaptureEngine, silentLogger } = await loadEngine();
const server = await startCorpusServer();
const engine = await createCaptureEngine({
  allowPrivateNetworks: true,
  concurrency: 1,
  browserArgs: [HOST_RESOLVER_RULES],
  resolver: corpusResolver,
  log: silentLogger,
  adBlocking: { cacheDir: path.join(os.tmpdir(), 'capture-engine-bench-adblock') },
});

async function capture(page, mode) {
  server.resetHits();
  const started = performance.now();
  const result = await engine.capture({
    url: server.url(page.host, page.path),
    viewport_width: VIEWPORT.width,
    viewport_height: VIEWPORT.height,
    delay: page.delay,
    wait_until: page.waitUntil ?? 'domcontentloaded',
    ...MODES[mode],
  });
  const ms = performance.now() - started;
  const at = await pixels(await result.buffer());
  const content = hex(COLOURS.content);
  return {
    ms,
    adRequests: server.adHits().length,
    bannerGone: page.banner ? near(at(page.banner), content) && (!page.overlay || near(at(page.overlay), content)) : true,
    bannerShown: page.banner ? near(at(page.banner), hex(COLOURS.banner), 20) : false,
    adsGone: page.ads.every((p) => near(at(p), content)),
    adsShown: page.ads.length > 0 && page.ads.every((p) => near(at(p), hex(COLOURS.ad), 20)),
    // Nothing of the page lost: elements that merely look like notices keep their colour.
    kept: (page.keep ?? []).every(({ point, colour }) => near(at(point), hex(colour))),
  };
}

try {
  // Warm up: the browser, the ad-blocking engine (parsed once, then cached on disk), autoconsent.
  const plain = CORPUS.find((p) => p.name === 'plain');
  for (const mode of Object.keys(MODES)) await capture(plain, mode);

  const results = new Map(PAGES.map((p) => [p.name, Object.fromEntries(Object.keys(MODES).map((m) => [m, []]))]));
  const modes = Object.keys(MODES);
  for (let round = 0; round < ROUNDS; round++) {
    for (const page of PAGES) {
      for (const mode of rotate(modes, round)) results.get(page.name)[mode].push(await capture(page, mode));
    }
    process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
  }

  const rows = [];
  const extraAds = [];
  const extraCookies = [];
  let bannersShown = 0, bannersGone = 0, bannerPages = 0, adPagesShown = 0, adPagesGone = 0, adPages = 0, clean = 0;
  let adRequestsNeither = 0, adRequestsBlocked = 0;
  for (const page of PAGES) {
    const r = results.get(page.name);
    const all = (mode, key) => r[mode].every((x) => x[key]);
    for (let i = 0; i < ROUNDS; i++) {
      extraAds.push(r.ads[i].ms - r.neither[i].ms);
      extraCookies.push(r.cookies[i].ms - r.neither[i].ms);
    }
    if (page.banner) {
      bannerPages++;
      if (all('neither', 'bannerShown')) bannersShown++;
      if (all('cookies', 'bannerGone')) bannersGone++;
    }
    if (page.ads.length > 0) {
      adPages++;
      if (all('neither', 'adsShown')) adPagesShown++;
      if (all('ads', 'adsGone')) adPagesGone++;
    }
    const neitherRequests = r.neither.reduce((s, x) => s + x.adRequests, 0);
    const blockedRequests = r.ads.reduce((s, x) => s + x.adRequests, 0);
    adRequestsNeither += neitherRequests;
    adRequestsBlocked += blockedRequests;
    const pageClean = all('both', 'bannerGone') && all('both', 'adsGone') && all('both', 'kept');
    if (pageClean) clean++;
    const med = (mode) => median(r[mode].map((x) => x.ms));
    rows.push({
      page: page.name,
      'banner (none→cookies)': page.banner ? `${all('neither', 'bannerShown') ? 'shown' : 'NOT SHOWN'}→${all('cookies', 'bannerGone') ? 'gone' : 'LEFT'}` : '-',
      'ads (none→ads)': page.ads.length ? `${all('neither', 'adsShown') ? 'shown' : 'NOT SHOWN'}→${all('ads', 'adsGone') ? 'gone' : 'LEFT'}` : '-',
      'ad requests (none/ads)': `${neitherRequests}/${blockedRequests}`,
      'clean (both)': pageClean ? 'yes' : 'NO',
      'neither ms': Math.round(med('neither')),
      '+ads ms': Math.round(median(r.ads.map((x, i) => x.ms - r.neither[i].ms))),
      '+cookies ms': Math.round(median(r.cookies.map((x, i) => x.ms - r.neither[i].ms))),
      '+both ms': Math.round(median(r.both.map((x, i) => x.ms - r.neither[i].ms))),
    });
  }
  console.log(`\nClean captures over ${PAGES.length} corpus pages, ${ROUNDS} interleaved rounds, ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}\n`);
  console.log(`${binaryLines({ 'engine, every mode': CHROMIUM_PATH }).join('\n')}\n`);
  console.table(rows);
  const verdict = (ok) => (ok ? 'PASS' : 'FAIL');
  const medAds = median(extraAds);
  const medCookies = median(extraCookies);
  console.log(`banners shown without blocking : ${bannersShown}/${bannerPages}`);
  console.log(`banners dismissed              : ${bannersGone}/${bannerPages}`);
  console.log(`ads shown without blocking     : ${adPagesShown}/${adPages} pages`);
  console.log(`ads hidden                     : ${adPagesGone}/${adPages} pages`);
  console.log(`ad requests at the server      : ${adRequestsNeither} without blocking, ${adRequestsBlocked} with block_ads (${adRequestsNeither - adRequestsBlocked} blocked)`);
  console.log(`${verdict(clean === PAGES.length)}  every corpus page clean with both flags: ${clean}/${PAGES.length}`);
  console.log(`${verdict(medAds <= TARGET_MS)}  block_ads extra latency, median: ${Math.round(medAds)} ms (target <= ${TARGET_MS})`);
  console.log(`${verdict(medCookies <= TARGET_MS)}  block_cookies extra latency, median: ${Math.round(medCookies)} ms (target <= ${TARGET_MS})`);
} finally {
  await engine.close();
  await server.close();
}

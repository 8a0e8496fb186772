// The static benchmark's report (Markdown on stdout): one row per case and contender, the ratios
// per case, and the targets with PASS/FAIL.

import os from 'node:os';
import { binaryLines, mixedBinariesNote } from '../lib/chromium.js';
import { fixed as fmt, mebibytes as mb } from '../lib/format.js';
import { engineVersion, packageVersion as version } from '../lib/package-version.js';
import { geomean, median, percentile } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { binariesOf } from './contenders/index.js';
import { throughputSection } from './static-throughput.js';

function checkImage(c, imgs) {
  // Same pixels for everyone: width = viewport width × scale; height = viewport height × scale
  // unless full page; an element's box is whatever the element's size is.
  const problems = new Set();
  const { format, width, height, scale, fullPage, selector } = c.job;
  for (const im of imgs) {
    if (im.format !== format) problems.add(`got ${im.format}`);
    else if (selector) continue;
    else if (im.width !== undefined && im.width !== width * scale) problems.add(`${im.width}x${im.height}`);
    else if (!fullPage && im.height !== undefined && im.height !== height * scale) problems.add(`${im.width}x${im.height}`);
  }
  return [...problems];
}

/** Per case: library against the floor and the peers, and the four HTTP overhead figures. */
function ratios(cases, results, active) {
  const has = (n) => active.includes(n);
  const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
  return cases.map((c) => {
    const row = results.get(c.key);
    const p50 = (n) => (has(n) ? median(row[n].lat) : NaN);
    const c4 = (n) => (has(n) ? row[n].tput[4] : NaN);
    const paired = has('http') && has('library') ? median(row.http.byIter.map((h, i) => h - row.library.byIter[i])) : NaN;
    return {
      c,
      p50Ratio: ratio(p50('library'), p50('floor')),
      c4Floor: ratio(c4('library'), c4('floor')),
      c4Cw: ratio(c4('library'), c4('capture-website')),
      c4Bl: ratio(c4('library'), c4('browserless')),
      httpMs: p50('http') - p50('library'),
      pairedMs: paired,
      // Time outside engine.capture(): for http the whole HTTP round trip (client, Express, auth,
      // policy, parse, response); for library the parameter parsing. Their difference is the
      // HTTP overhead with the browser's noise taken out.
      inRequestMs: has('http') && has('library') ? median(row.http.outside) - median(row.library.outside) : NaN,
      serverMs: has('http') ? median(row.http.serverOutside) : NaN,
    };
  });
}

export function report({ cfg, cases, results, active, skipped, killed, seconds, pool }) {
  const out = [];
  const p = (s = '') => out.push(s);
  p(`## Static capture benchmark (${cfg.quick ? 'quick' : 'full'} mode)`);
  p();
  p(`Node ${process.version}, ${os.cpus().length} CPUs, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB RAM. Latency: ${cfg.iterations} sequential captures per case ` +
    `(capture-website and browserless: ${cfg.peerIterations}), interleaved. Throughput: bursts of ` +
    `≥ ${cfg.windowMs} ms and ≥ ${cfg.minRounds}×c captures${cfg.bursts > 1 ? `, the median of ${cfg.bursts} per contender and level` : ''}. Quality ${cfg.quality}. Run took ${(seconds / 60).toFixed(1)} min.`);
  p();
  const versions = {
    floor: `raw playwright-core ${version('playwright-core')}: one browser, a new context per capture`,
    'floor-fast': 'the same, every shot through CDP `Page.captureScreenshot` with `optimizeForSpeed`',
    'floor-fast-shell': 'floor-fast on Chromium\'s headless shell',
    'cdp-shell': 'the headless shell on floor-fast-shell\'s command line, driven with raw CDP over its pipe (no Playwright): what Chromium alone costs a fresh-context capture',
    library: `capture-engine ${engineVersion()} in process (\`engine.capture()\`), on the browser it finds by default (CAPTURE_CHROMIUM_PATH, else the headless shell when installed)${engineOptionsNote()}`,
    http: `the same engine behind Express ${version('express')} (\`GET /api/v1/capture\` over loopback)`,
    'capture-website': `capture-website ${version('capture-website')} (puppeteer ${version('puppeteer')}): a browser launch per call, its default`,
    browserless: `browserless ${version('browserless')} (puppeteer ${version('puppeteer')}): one browser, a context per capture`,
  };
  for (const name of cfg.contenders) {
    p(`- **${name}**: ${versions[name]}${skipped.has(name) ? ` — **skipped**: ${skipped.get(name)}` : ''}`);
  }
  for (const line of binaryLines(binariesOf(active))) p(line);
  p();
  // Said again above each table of ratios, which would otherwise read as the tools' alone.
  const mixed = mixedBinariesNote(binariesOf(active));
  const sayMixed = () => {
    if (mixed) p(`${mixed}\n`);
  };

  // Main table.
  const shared = active.includes('library') && active.includes('http');
  const rows = [];
  for (const c of cases) {
    const row = results.get(c.key);
    for (const name of active) {
      const r = row[name];
      const notes = [...checkImage(c, r.images).map((s) => `output ${s}`), ...new Set(r.errors.map((e) => e.slice(0, 120)))];
      for (const l of cfg.levels.filter((x) => ![1, 2, 4].includes(x))) notes.push(`c${l} ${fmt(r.tput[l], 2)}/s`);
      rows.push([c.page, c.viewport, c.output, name, fmt(median(r.lat), 0), fmt(percentile(r.lat, 95), 0), r.lat.length,
        fmt(median(r.bytes) / 1024, 0), fmt(r.tput[1], 2), fmt(r.tput[2], 2), fmt(r.tput[4], 2), mb(r.peak), notes.join('; ')]);
    }
  }
  p(markdownTable(['page', 'viewport', 'output', 'contender', 'p50 ms', 'p95 ms', 'n', 'size KB', 'c1 /s', 'c2 /s', 'c4 /s',
    `peak RSS MB${shared ? ' ¹' : ''}`, 'notes'], rows, { align: 'llllrrrrrrrrl' }));
  if (shared) p('\n¹ library and http share one process and one engine, hence one memory figure.');
  p();

  // Ratios per case.
  sayMixed();
  const per = ratios(cases, results, active);
  p(markdownTable(['page', 'viewport', 'output', 'library p50 / floor p50', 'library c4 / floor c4', 'library c4 / capture-website c4',
    'library c4 / browserless c4', 'HTTP overhead ms: p50 http − p50 library', 'paired ²', 'in-request ³', 'server side ⁴'],
  per.map((r) => [r.c.page, r.c.viewport, r.c.output, fmt(r.p50Ratio, 2), fmt(r.c4Floor, 2), fmt(r.c4Cw, 2), fmt(r.c4Bl, 2),
    fmt(r.httpMs, 1), fmt(r.pairedMs, 1), fmt(r.inRequestMs, 2), fmt(r.serverMs, 2)]), { align: 'lllrrrrrrrr' }));
  p();
  if (active.includes('http') && active.includes('library')) p('² median over iterations of (http − library) in the same round. ' +
    '³ median time outside `engine.capture()` of an http capture minus that of a library capture, ' +
    'measured inside each call: the HTTP layer alone, without the browser\'s run-to-run noise; the client shares its event loop ' +
    'with the engine\'s browser pool, whose background work (closing the used context, warming the next) delays it. ' +
    '⁴ median time the server spent on an http capture outside `engine.capture()`, from the request reaching Express to the response\'s `end()`: ' +
    'keys, limits, parameters, the response; without the transfer and the client.');
  p();

  // Targets: geometric mean of the ratios over the cases; median of the HTTP overheads.
  const verdict = (x, ok) => (Number.isFinite(x) ? (ok(x) ? 'PASS' : 'FAIL') : 'n/a');
  const target = (label, k, combine, dir, digits, unit, ok) => {
    const x = combine(per.map((r) => r[k]));
    const v = per.map((r) => r[k]).filter(Number.isFinite);
    const worst = v.length ? (dir > 0 ? Math.max(...v) : Math.min(...v)) : NaN;
    return [label, `${fmt(x, digits)}${unit}`, `${fmt(worst, digits)}${unit}`, verdict(x, ok)];
  };
  p(markdownTable(['target', 'measured (geometric mean over cases; HTTP: median)', 'worst case', 'result'], [
    target('library p50 ≤ floor p50', 'p50Ratio', geomean, 1, 2, '×', (x) => x <= 1),
    target('library c4 throughput ≥ 1.3 × floor', 'c4Floor', geomean, -1, 2, '×', (x) => x >= 1.3),
    target('HTTP overhead < 5 ms (p50 http − p50 library)', 'httpMs', median, 1, 1, ' ms', (x) => x < 5),
    target('HTTP overhead < 5 ms (in-request ³)', 'inRequestMs', median, 1, 2, ' ms', (x) => x < 5),
    target('HTTP overhead < 5 ms (server side ⁴)', 'serverMs', median, 1, 2, ' ms', (x) => x < 5),
  ], { align: 'lrrl' }));
  p();

  sayMixed();
  for (const line of throughputSection({ cfg, cases, results, active, pool, workerOf: (n) => [...pool.workers.values()].find((w) => w.contenders.includes(n)) })) p(line);

  const peaks = [...pool.workers.values()].map((w) => `${w.contenders.join(' + ')} ${mb(pool.sampler.peak.get(w.pid))} MB`);
  p(`Peak RSS over the whole run (worker + its Chromium processes, summed VmRSS; shared pages count once per process): ${peaks.join(', ')}.`);
  p(`Cleanup: ${killed.length ? `ended ${killed.length} leftover process(es): ${killed.join(' ')}` : 'no browser process left behind'}.`);
  p();
  p('Same pixels for all: viewport at device scale factor 1 (`dpr2`: 2; `fullpage`: the whole page; `selector`: the page\'s first heading only), same format and quality. ' +
    'capture-website launches a browser per call (its default) and always waits for `networkidle2` ' +
    '(≥ 500 ms of network quiet, not configurable); for full pages it scrolls the page first, as does browserless. ' +
    "browserless runs with `waitUntil: 'domcontentloaded'` and `adblock: false` (the floor's work). " +
    "The floor's WebP is CDP `Page.captureScreenshot` (Playwright's `screenshot()` has no WebP). `–`: not measured.");
  console.log(out.join('\n'));
}

/** The engine options a run tried (BENCH_ENGINE_OPTIONS, BENCH_ENGINE_UNGUARDED), for the contender's line. */
function engineOptionsNote() {
  const tried = [process.env.BENCH_ENGINE_OPTIONS && `options ${process.env.BENCH_ENGINE_OPTIONS}`, process.env.BENCH_ENGINE_UNGUARDED === '1' && 'egress guard off'].filter(Boolean);
  return tried.length ? `, **${tried.join(', ')}**` : '';
}

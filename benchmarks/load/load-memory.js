// Part 3 of load.js, memory flat after 1,000 captures: real captures of a solid-colour page served
// on loopback, 4 at a time, RSS of the server process and its Chromium tree after every 100.
// Target: growth between capture 200 and the last sample < 15 %.

import { performance } from 'node:perf_hooks';
import { integer as fmtInt, mebibytes, millis as ms } from '../lib/format.js';
import { get } from '../lib/http-get.js';
import { treeMemory } from '../lib/process-memory.js';
import { percentile } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { waitQuiet } from '../lib/wait-quiet.js';
import { startServer } from './load-servers.js';

const MB = (bytes) => mebibytes(bytes, 'n/a');
const KEY = 'ce_load_enterprise_0123456789abcdef';

/** Fills `result` with { series, latencies, failures, done, busyMs, truncated? }. */
export async function runMemory({ cfg, fixture, log }, result) {
  const url = fixture.url('/');
  log(`memory: starting express server; ${cfg.captures} captures of ${url}, ${cfg.captureConcurrency} at a time`);
  const server = await startServer('express', {
    allowPrivateNetworks: true,
    apiKeys: [{ key: KEY, tier: 'ENTERPRISE' }],
    tiers: { ENTERPRISE: { requestsPerMinute: 1e9, monthlyQuota: 1e9 } },
    // Browser recycling (default: a fresh Chromium every 1,000 contexts) would replace the
    // browser right at the end of the series and hide any growth: one browser for the whole run.
    recycleAfter: 0,
  });
  const capturePath = `/api/v1/capture?url=${encodeURIComponent(url)}`;
  const series = [];
  const latencies = [];
  const failures = {};
  let done = 0;
  let busyMs = 0;
  Object.assign(result, { series, latencies, failures });

  const sample = async () => {
    await waitQuiet(server.pid, { windowMs: 200, maxTicks: 3, timeoutMs: 3000 });
    const node = await server.memory();
    const tree = treeMemory(server.pid);
    series.push({ captures: done, treeRss: tree.rss, treePss: tree.pss, processes: tree.processes, nodeRss: node.rss, heap: node.heapUsed, stats: node.stats });
    log(`memory: ${done} captures: tree RSS ${MB(tree.rss)} MB, node RSS ${MB(node.rss)} MB, heap ${MB(node.heapUsed)} MB`);
  };
  const capture = async () => {
    const s = performance.now();
    let status = 0;
    let ok = false;
    try {
      const r = await get(server.port, capturePath, { 'X-API-Key': KEY });
      status = r.status;
      ok = r.status === 200 && r.headers.get('content-type') === 'image/png' && r.body.length > 0;
    } catch {
      status = 'network error';
    }
    latencies.push(performance.now() - s);
    if (!ok) failures[status] = (failures[status] ?? 0) + 1;
  };

  try {
    await sample();
    const t0 = Date.now();
    while (done < cfg.captures) {
      if (Date.now() - t0 > cfg.captureBudgetMs) {
        result.truncated = `stopped after ${done} captures: time budget of ${cfg.captureBudgetMs / 1000} s used`;
        log(`memory: ${result.truncated}`);
        break;
      }
      const batch = Math.min(cfg.every, cfg.captures - done);
      let issued = 0;
      const b0 = performance.now();
      const lane = async () => {
        while (issued < batch && Date.now() - t0 <= cfg.captureBudgetMs) {
          issued++;
          await capture();
        }
      };
      await Promise.all(Array.from({ length: cfg.captureConcurrency }, lane));
      busyMs += performance.now() - b0;
      done += issued;
      await sample();
    }
  } finally {
    result.done = done;
    result.busyMs = busyMs;
    await server.close();
  }
}

/** Growth from capture 200 (or the first sample after the start) to the last sample, and the verdict. */
function summarize(r, cfg) {
  const from = r.series.find((s) => s.captures === 200) ?? r.series[1];
  const last = r.series[r.series.length - 1];
  const growth = (k) => (from && last && from !== last ? (last[k] - from[k]) / from[k] : NaN);
  const failed = Object.values(r.failures).reduce((a, b) => a + b, 0);
  const g = growth('treeRss');
  const after = r.series.filter((s) => from && s.captures >= from.captures);
  const peak = from && after.length > 1 ? (Math.max(...after.map((s) => s.treeRss)) - from.treeRss) / from.treeRss : NaN;
  const pass = !Number.isNaN(g) && g < cfg.targetGrowth && failed === 0 && !r.truncated;
  return { from, last, growth, failed, peak, pass };
}

export function printMemory(r, cfg) {
  console.log(`## 3. Memory after ${fmtInt(r.done ?? 0)} captures\n`);
  console.log(
    `Express server process, \`GET /api/v1/capture?url=<solid-colour page on 127.0.0.1>\` (png, 1920×1080), ${cfg.captureConcurrency} clients back to back, ` +
      `ENTERPRISE key with limits out of the way, browser recycling off (one Chromium for the whole series). ` +
      `After every ${cfg.every} captures the clients pause, the process tree is left to go quiet (≤ 3 s), Node runs a full GC, then: ` +
      `tree RSS = sum of VmRSS over the server and all its descendants (Chromium), from /proc; PSS likewise (shared pages split).`,
  );
  if (r.truncated) console.log(`\n**${r.truncated}.**`);
  console.log();
  console.log(markdownTable(
    ['captures', 'tree RSS MB', 'tree PSS MB', 'processes', 'node RSS MB', 'node heap MB', 'contexts open (warm)'],
    r.series.map((s) => [fmtInt(s.captures), MB(s.treeRss), MB(s.treePss), String(s.processes), MB(s.nodeRss), MB(s.heap), s.stats ? `${s.stats.contexts} (${s.stats.warm})` : 'n/a']),
  ));
  console.log();
  const { from, last, growth, failed, peak, pass } = summarize(r, cfg);
  const pct = (g) => (Number.isNaN(g) ? 'n/a' : `${g >= 0 ? '+' : ''}${(g * 100).toFixed(1)} %`);
  const verdict = pass ? 'PASS' : r.truncated ? `FAIL (incomplete: ${r.done} of ${cfg.captures} captures)` : failed ? 'FAIL (failed captures)' : 'FAIL (growth)';
  console.log(markdownTable(
    ['captures', 'failed', 'captures/s', 'p50 ms', 'p99 ms', `tree RSS ${from?.captures ?? '?'} → ${last?.captures ?? '?'}`, 'tree RSS, highest after', 'tree PSS', 'node RSS', 'node heap', `target (tree RSS < +${cfg.targetGrowth * 100} %)`],
    [[
      fmtInt(r.done ?? 0),
      failed ? `${failed} (${Object.entries(r.failures).map(([c, n]) => `${c} × ${n}`).join(', ')})` : '0',
      r.busyMs ? (r.latencies.length / (r.busyMs / 1000)).toFixed(1) : 'n/a',
      ms(percentile(r.latencies, 50)),
      ms(percentile(r.latencies, 99)),
      pct(growth('treeRss')),
      pct(peak),
      pct(growth('treePss')),
      pct(growth('nodeRss')),
      pct(growth('heap')),
      verdict,
    ]],
  ));
  console.log();
}

/** The memory target, when the part produced a series. */
export const memoryVerdicts = (r, cfg) => (r.series ? [summarize(r, cfg).pass] : []);

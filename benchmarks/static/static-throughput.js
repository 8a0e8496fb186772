// The static benchmark's throughput table: captures/s and CPU per capture of every contender at
// every concurrency level, and the throughput targets (issue 14) against the CDP-fast floor.

import { fixed as fmt } from '../lib/format.js';
import { geomean } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';

const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : NaN);
const verdict = (x, ok) => (Number.isFinite(x) ? (ok(x) ? 'PASS' : 'FAIL') : 'n/a');

/** Lines of the throughput section, for the cases that had bursts. */
export function throughputSection({ cfg, cases, results, active, pool, workerOf }) {
  const measured = cases.filter((c) => c.throughput);
  if (!measured.length) return [];
  const out = [];
  const rows = [];
  for (const c of measured) {
    const row = results.get(c.key);
    for (const name of active) {
      const r = row[name];
      rows.push([c.page, c.viewport, c.output, name, ...cfg.levels.map((l) => fmt(r.tput[l], 2)), ...cfg.levels.map((l) => fmt(r.cpu[l], 0))]);
    }
  }
  out.push(markdownTable(['page', 'viewport', 'output', 'contender', ...cfg.levels.map((l) => `c${l} /s`), ...cfg.levels.map((l) => `CPU ms/capture c${l}`)], rows, {
    align: `llll${'r'.repeat(cfg.levels.length * 2)}`,
  }));
  out.push('');
  out.push('CPU per capture: CPU time of the contender\'s worker process and all its descendants (Chromium) during the burst, from /proc ' +
    '(utime + stime, reaped children included), divided by the captures completed. `http` includes its HTTP client, which runs in the same process.');
  out.push('');

  // Targets at the highest level measured (4 by default), geometric mean over the measured cases.
  const top = Math.max(...cfg.levels);
  const has = (n) => active.includes(n);
  const over = (pick) => geomean(measured.map((c) => pick(results.get(c.key))));
  const peak = (n) => (has(n) ? pool.sampler.peak.get(workerOf(n).pid) : NaN);
  const targets = [];
  // floor-fast drives the engine's binary; floor-fast-shell, when it runs (the engine on another
  // binary), the headless shell.
  const floors = [
    ['floor-fast', 'CDP-fast floor'],
    ['floor-fast-shell', 'CDP-fast floor on the headless shell'],
  ].filter(([floorName]) => has(floorName));
  for (const name of ['library', 'http'].filter(has)) {
    for (const [floorName, label] of floors) {
      const speed = over((row) => ratio(row[name].tput[top], row[floorName].tput[top]));
      const cpu = over((row) => ratio(row[name].cpu[top], row[floorName].cpu[top]));
      targets.push([`${name} c${top} captures/s ≥ 1.3 × ${label}`, `${fmt(speed, 2)}×`, verdict(speed, (x) => x >= 1.3)]);
      targets.push([`${name} CPU per capture at c${top} ≤ 0.75 × ${label}`, `${fmt(cpu, 2)}×`, verdict(cpu, (x) => x <= 0.75)]);
    }
    for (const [peer, factor] of [['browserless', 2], ['capture-website', 4]].filter(([p]) => has(p))) {
      const x = over((row) => ratio(row[name].tput[top], row[peer].tput[top]));
      targets.push([`${name} c${top} captures/s ≥ ${factor} × ${peer}`, `${fmt(x, 2)}×`, verdict(x, (v) => v >= factor)]);
    }
  }
  // Not a target: how far under the shell floor Chromium alone goes, the room any engine on Playwright's binary has.
  if (has('cdp-shell') && has('floor-fast-shell')) {
    const speed = over((row) => ratio(row['cdp-shell'].tput[top], row['floor-fast-shell'].tput[top]));
    const cpu = over((row) => ratio(row['cdp-shell'].cpu[top], row['floor-fast-shell'].cpu[top]));
    targets.push([`(Chromium alone) cdp-shell c${top} captures/s, CPU per capture × CDP-fast floor on the headless shell`, `${fmt(speed, 2)}×, ${fmt(cpu, 2)}×`, 'context']);
  }
  for (const floorName of ['floor', 'floor-fast-shell'].filter((n) => has('library') && has(n))) {
    const memory = ratio(peak('library'), peak(floorName));
    targets.push([`peak RSS (library + http) ≤ 1.3 × ${floorName}`, `${fmt(memory, 2)}×`, verdict(memory, (x) => x <= 1.3)]);
  }
  out.push(markdownTable(['throughput target', 'measured (geometric mean over the burst cases)', 'result'], targets, { align: 'lrl' }));
  out.push('');
  return out;
}

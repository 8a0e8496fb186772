// The binaries suite's tables (Markdown, to stdout): settings, one main table per binary, the
// service/loop ratios per binary, each binary against the first per contender, then memory at rest
// and CPU per capture by process kind. Every row names its binary.

import os from 'node:os';
import { fixed, mebibytes, millis } from '../lib/format.js';
import { TICKS_PER_SECOND } from '../lib/process-tree.js';
import { median } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';
import { sortKinds } from './process-kinds.js';

const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? fixed(a / b, 2) : '–');

/** The reading at rest of the round with the median tree RSS (its kinds add up to its total). */
function restOf(u) {
  const readings = [...u.r.rest].sort((a, b) => a.rss - b.rss);
  return readings[(readings.length - 1) >> 1];
}

/** The numbers of one (binary, contender). */
function summary(u, cfg) {
  const rest = restOf(u);
  const cpuTotal = Object.values(u.r.cpu).reduce((a, b) => a + b, 0);
  const perCapture = (ticks) => (u.r.cpuCaptures > 0 ? (ticks * 1000) / TICKS_PER_SECOND / u.r.cpuCaptures : NaN);
  const notes = [];
  for (const [shape, n] of u.r.images) if (shape !== `png ${cfg.width}x${cfg.height}`) notes.push(`${n} × ${shape}`);
  if (u.r.errors.length) notes.push(`${u.r.errors.length} errors: ${u.r.errors[0]}`);
  return {
    p50: median(u.r.lat),
    n: u.r.lat.length,
    tput: Object.fromEntries(cfg.levels.map((l) => [l, median(u.r.tput[l])])),
    rss: rest?.rss ?? NaN,
    pss: rest?.pss ?? NaN,
    processes: rest?.processes,
    kinds: rest?.kinds ?? {},
    peak: u.r.peak || NaN,
    cpu: perCapture(cpuTotal),
    cpuKinds: Object.fromEntries(Object.entries(u.r.cpu).map(([k, t]) => [k, perCapture(t)])),
    notes,
  };
}

function settings({ cfg, url, binaries, versions, notes, killed, started, quietMs, seconds }) {
  const cpus = os.cpus();
  const engine = { ...cfg.engineOptions };
  const guard = engine.unguarded ? 'off (allowPrivateNetworks)' : 'on (the fixture allowed)';
  delete engine.unguarded;
  const lines = [
    `## Binaries: service vs loop, ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC${cfg.quick ? ' (quick)' : ''}`,
    '',
    `- machine: ${cpus.length} × ${cpus[0]?.model ?? '?'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.getuid?.() === 0 ? 'as root' : 'not root'}`,
    ...binaries.map((b) => `- \`${b.name}\`: ${b.path}${versions[b.name] ? ` (${versions[b.name]})` : ''}`),
    `- page ${url.replace(/^https?:\/\/[^/]+/, '')}, ${cfg.width}x${cfg.height} PNG; ${cfg.rounds} rounds; at rest ${cfg.rest} captures ` +
      `(${cfg.gapMs} ms idle before each); bursts of ${cfg.captures} at c=${cfg.levels.join('/')} per round; memory at rest after ${cfg.idleMs} ms idle`,
    `- service: egress guard ${guard}; engine options ${Object.keys(engine).length ? `\`${JSON.stringify(engine)}\`` : 'default'}` +
      `${cfg.engineArgs.length ? `; extra flags \`${cfg.engineArgs.join(' ')}\`` : ''}` +
      `; loop: Playwright's defaults${cfg.loopArgs.length ? ` + \`${cfg.loopArgs.join(' ')}\`` : ''}`,
    ...notes.map((n) => `- note: ${n}`),
    `- run took ${seconds.toFixed(0)} s (${(quietMs / 1000).toFixed(0)} s waiting for quiet trees); leftover processes after the workers closed: ${killed.length ? `${killed.length} killed (${killed.join(' ')})` : 'none'}`,
  ];
  return lines.join('\n');
}

export function report(run) {
  const { cfg, units } = run;
  const top = `c${cfg.top}`;
  const rows = units.map((u) => ({ u, s: summary(u, cfg) }));
  const names = [...new Set(units.map((u) => u.binary.name))];
  const out = [settings(run), ''];

  // Main table per binary.
  for (const name of names) {
    out.push(`### ${name}: ${units.find((u) => u.binary.name === name).binary.path}`, '');
    const header = ['binary', 'contender', 'p50 rest ms', 'n', ...cfg.levels.map((l) => `c${l} /s`), 'RSS rest MiB', 'PSS rest MiB', `RSS peak ${top} MiB`, `CPU ms/capture ${top}`, 'notes'];
    const body = rows.filter((r) => r.u.binary.name === name).map(({ u, s }) => [
      name, u.contender, millis(s.p50, '–'), s.n, ...cfg.levels.map((l) => fixed(s.tput[l], 2)),
      mebibytes(s.rss), mebibytes(s.pss), mebibytes(s.peak), fixed(s.cpu, 0), s.notes.join('; ') || '',
    ]);
    out.push(markdownTable(header, body, { align: `llrr${'r'.repeat(cfg.levels.length)}rrrrl` }), '');
  }

  // service / loop per binary.
  const of = (name, contender) => rows.find((r) => r.u.binary.name === name && r.u.contender === contender)?.s;
  const ratioRow = (a, b) => [ratio(a.tput[cfg.top], b.tput[cfg.top]), ratio(a.p50, b.p50), ratio(a.rss, b.rss), ratio(a.pss, b.pss), ratio(a.peak, b.peak), ratio(a.cpu, b.cpu)];
  const ratioHeader = [`${top} /s`, 'p50 rest', 'RSS rest', 'PSS rest', `RSS peak ${top}`, `CPU/capture ${top}`];
  const pairs = names.filter((n) => of(n, 'service') && of(n, 'loop'));
  if (pairs.length) {
    out.push('### service / loop, per binary', '');
    out.push(markdownTable(['binary', ...ratioHeader], pairs.map((n) => [n, ...ratioRow(of(n, 'service'), of(n, 'loop'))]), { align: 'lrrrrrr' }), '');
  }

  // Every other binary against the first, per contender.
  if (names.length > 1) {
    const body = [];
    for (const contender of cfg.contenders) {
      for (const other of names.slice(1)) {
        const a = of(other, contender);
        const b = of(names[0], contender);
        if (a && b) body.push([contender, `${other} / ${names[0]}`, ...ratioRow(a, b)]);
      }
    }
    if (body.length) out.push(`### binaries against ${names[0]}, per contender`, '', markdownTable(['contender', 'binaries', ...ratioHeader], body, { align: 'llrrrrrr' }), '');
  }

  // By process kind: memory at rest (RSS with the number of processes, then PSS), CPU per capture.
  const restKinds = sortKinds(new Set(rows.flatMap((r) => Object.keys(r.s.kinds))));
  out.push('### Memory at rest by process kind: RSS MiB (processes)', '');
  out.push(markdownTable(
    ['binary', 'contender', ...restKinds, 'total'],
    rows.map(({ u, s }) => [u.binary.name, u.contender, ...restKinds.map((k) => (s.kinds[k] ? `${mebibytes(s.kinds[k].rss)} (${s.kinds[k].count})` : '–')), `${mebibytes(s.rss)} (${s.processes ?? '–'})`]),
    { align: `ll${'r'.repeat(restKinds.length + 1)}` },
  ), '');
  out.push('### Memory at rest by process kind: PSS MiB', '');
  out.push(markdownTable(
    ['binary', 'contender', ...restKinds, 'total'],
    rows.map(({ u, s }) => [u.binary.name, u.contender, ...restKinds.map((k) => (s.kinds[k] ? mebibytes(s.kinds[k].pss) : '–')), mebibytes(s.pss)]),
    { align: `ll${'r'.repeat(restKinds.length + 1)}` },
  ), '');
  const cpuKinds = sortKinds(new Set(rows.flatMap((r) => Object.keys(r.s.cpuKinds).filter((k) => Math.abs(r.s.cpuKinds[k]) >= 0.5))));
  out.push(`### CPU ms per capture at ${top} by process kind`, '');
  out.push(markdownTable(
    ['binary', 'contender', ...cpuKinds, 'total', 'captures'],
    rows.map(({ u, s }) => [u.binary.name, u.contender, ...cpuKinds.map((k) => fixed(s.cpuKinds[k] ?? 0, 1)), fixed(s.cpu, 1), u.r.cpuCaptures]),
    { align: `ll${'r'.repeat(cpuKinds.length + 2)}` },
  ));
  console.log(out.join('\n'));
}

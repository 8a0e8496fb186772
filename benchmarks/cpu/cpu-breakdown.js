#!/usr/bin/env node
// Where the CPU of a capture goes, per process kind: the contender's Node process, Chromium's
// browser process, its renderers, the GPU process, the network service and the other utilities.
// Each contender runs in a child process of its own (its tree is measured alone, from /proc).
//
//   node benchmarks/cpu/cpu-breakdown.js [--contenders=floor-fast,library,http] [--captures=40]
//                                        [--levels=1,4] [--page=simple] [--output=png]
//   --output is a format (png, jpg, webp) or one of the static benchmark's outputs (static/outputs.js: device, thumb, noimages, ...).
//   (from benchmarks/: npm run cpu; the contenders are the static benchmark's, static/contenders/,
//   on the binaries they drive there: a line above the table names each one's)
//
// Environment equivalents: BENCH_CONTENDERS, BENCH_CAPTURES, BENCH_LEVELS, BENCH_PAGE, BENCH_OUTPUT.
// BENCH_CPU_PROF=<dir> also writes a V8 CPU profile of each contender's process there (node --cpu-prof).
//
// Method: after 3 warm-up captures and a quiet tree, the CPU ticks (utime + stime) of every
// process of the tree are read, `captures` captures run with `level` at once, and the ticks are
// read again. A process's kind is its Chromium `--type` (renderer, gpu-process, utility with its
// sub-type, zygote); what the zygote reaped (renderers of closed contexts) counts as renderer, what
// the browser process reaped counts as "other". Per kind: the difference, in CPU ms per capture.

import { fork } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { UNITS, binariesOf, unitOf } from '../static/contenders/index.js';
import { OUTPUTS } from '../static/outputs.js';
import { binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { startPageServer } from '../lib/fixture-pages.js';
import { fixed } from '../lib/format.js';
import { processTable, TICKS_PER_SECOND, treePids } from '../lib/process-tree.js';
import { markdownTable } from '../lib/tables.js';
import { waitQuiet } from '../lib/wait-quiet.js';

const KINDS = ['node', 'browser', 'renderer', 'gpu', 'network', 'other utility', 'other'];

function kindOf(pid, isRoot) {
  if (isRoot) return 'node';
  let cmdline = '';
  try {
    cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ');
  } catch {
    return 'other';
  }
  const type = /--type=(\S+)/.exec(cmdline)?.[1];
  if (!type) return /chrom/.test(cmdline) ? 'browser' : 'other';
  if (type === 'renderer' || type === 'zygote') return 'renderer';
  if (type === 'gpu-process') return 'gpu';
  if (type === 'utility') return /NetworkService/.test(cmdline) ? 'network' : 'other utility';
  return 'other';
}

/** Ticks per kind of the tree under `root`: own ticks of every process, plus what each reaped, counted as its kind. */
function ticksByKind(root) {
  const table = processTable();
  const out = Object.fromEntries(KINDS.map((k) => [k, 0]));
  for (const pid of treePids(root, table)) {
    const p = table.get(pid);
    const kind = kindOf(pid, pid === root);
    out[kind] += p.ticks;
    // The zygote reaps renderers; Node reaps the browser (never during a run); the browser reaps utilities.
    out[kind === 'renderer' ? 'renderer' : kind === 'browser' ? 'other' : kind] += p.childTicks;
  }
  return out;
}

/** A V8 CPU profile of the contender's process, when BENCH_CPU_PROF names a directory. */
function profileArgs() {
  const dir = process.env.BENCH_CPU_PROF;
  return dir ? ['--cpu-prof', `--cpu-prof-dir=${dir}`] : [];
}

async function child(contender, { captures, levels, url, output }) {
  const unit = await UNITS[unitOf(contender)].create([contender]);
  await unit.setup();
  const capture = unit.capture[contender];
  const job = { url, format: output, width: 1280, height: 720, fullPage: false, scale: 1, quality: 90, ...OUTPUTS[output] };
  for (let i = 0; i < 3; i++) await capture(job);
  const results = {};
  for (const level of levels) {
    await waitQuiet(process.pid);
    const before = ticksByKind(process.pid);
    const t0 = performance.now();
    let started = 0;
    const lane = async () => {
      while (started++ < captures) await capture(job);
    };
    await Promise.all(Array.from({ length: level }, lane));
    const seconds = (performance.now() - t0) / 1000;
    const after = ticksByKind(process.pid);
    results[level] = {
      perSecond: captures / seconds,
      ms: Object.fromEntries(KINDS.map((k) => [k, ((after[k] - before[k]) * 1000) / TICKS_PER_SECOND / captures])),
    };
  }
  await unit.close();
  return results;
}

if (process.argv[2] === '--child') {
  process.once('message', async (message) => {
    try {
      process.send({ results: await child(message.contender, message) });
    } catch (error) {
      process.send({ error: String(error?.stack || error) });
    }
    process.disconnect();
  });
  // Messages sent before a listener exists are lost: the parent sends the job once told.
  process.send({ ready: true });
} else {
  const opts = readOptions(import.meta.url, {
    contenders: { env: 'BENCH_CONTENDERS' },
    captures: { env: 'BENCH_CAPTURES' },
    levels: { env: 'BENCH_LEVELS' },
    page: { env: 'BENCH_PAGE' },
    output: { env: 'BENCH_OUTPUT' },
  });
  const contenders = opts.list('contenders', 'floor-fast,library,http');
  const settings = { captures: opts.number('captures', 40), levels: opts.list('levels', '1,4').map(Number), output: opts.text('output', 'png') };
  const fixtures = await startPageServer();
  const columns = [];
  for (const contender of contenders) {
    console.error(`- ${contender}...`);
    const worker = fork(fileURLToPath(import.meta.url), ['--child'], { execArgv: profileArgs(), stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const answer = await new Promise((resolve) => {
      worker.on('message', (message) => {
        if (message.ready) worker.send({ contender, ...settings, url: fixtures.url(`/${opts.text('page', 'simple')}`) });
        else resolve(message);
      });
    });
    await new Promise((resolve) => worker.once('exit', resolve));
    if (answer.error) throw new Error(`${contender}: ${answer.error}`);
    for (const level of settings.levels) columns.push({ label: `${contender} c${level}`, ...answer.results[level] });
  }
  await fixtures.close();
  const total = (c) => KINDS.reduce((sum, k) => sum + c.ms[k], 0);
  console.log(`${binaryLines(binariesOf(contenders)).join('\n')}\n`);
  console.log(markdownTable(
    ['CPU ms per capture', ...columns.map((c) => c.label)],
    [
      ...KINDS.map((k) => [k, ...columns.map((c) => fixed(c.ms[k], 0))]),
      ['**total**', ...columns.map((c) => `**${fixed(total(c), 0)}**`)],
      ['captures/s', ...columns.map((c) => fixed(c.perSecond, 2))],
    ],
    { align: `l${'r'.repeat(columns.length)}` },
  ));
}

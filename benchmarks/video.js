#!/usr/bin/env node
// Video benchmark: scroll and record videos at 1280x720 in mp4 and webm, then a long recording
// showing that memory stays flat.
//
//   node benchmarks/video.js [--duration=5] [--iterations=1] [--long=60] [--formats=mp4,webm]
//                            [--scenarios=scroll,record]
//
// Run `npm run build` first: it measures the built package (dist/), as users get it. Pages are
// served on 127.0.0.1:0. Wall time is engine.capture() from call to finished file (navigation,
// rendering, encoding). Peak RSS is the largest sum of VmRSS over this process and every
// descendant (Chromium, ffmpeg), sampled every 200 ms; it counts pages Chromium's processes share
// once per process, so the peak PSS (shared pages split between their users) is printed beside
// it. CPU is the CPU time the same processes used during the capture. Targets (issue 3): scroll
// wall <= 1.5 x duration; record wall <= duration + 1.5 s. The load average is printed because
// the machine may be shared.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { processTable, treePids } from './proc.js';
import { createCaptureEngine, silentLogger } from '../dist/src/index.js';

const args = Object.fromEntries(
  process.argv.slice(2).map((arg) => {
    const match = /^--([^=]+)(?:=(.*))?$/.exec(arg);
    if (!match) throw new Error(`unknown argument ${arg}`);
    return [match[1], match[2] ?? 'true'];
  }),
);
const DURATION = Number(args.duration ?? 5);
const ITERATIONS = Number(args.iterations ?? 1);
const LONG = Number(args.long ?? 60);
const FORMATS = String(args.formats ?? 'mp4,webm').split(',');
const SCENARIOS = String(args.scenarios ?? 'scroll,record').split(',');
const VIEWPORT = { viewport_width: 1280, viewport_height: 720 };

// ------------------------------------------------------------------------------------- pages
const LOREM = 'Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. '.repeat(10);
const PAGES = {
  // An article: headings, paragraphs and lazy images, 12 sections tall.
  '/article': `<!doctype html><html><body style="margin:0;font:16px/1.5 sans-serif">${Array.from(
    { length: 12 },
    (_, i) => `<section style="padding:24px 48px;background:hsl(${i * 30},60%,94%)"><h1>Section ${i + 1}</h1><p>${LOREM}</p>
      <img loading="lazy" src="/picture.svg?${i}" width="480" height="270"><p>${LOREM}</p></section>`,
  ).join('')}</body></html>`,
  // Something alive to record: a spinning gradient, a moving bar and a ticking counter.
  '/live': `<!doctype html><html><body style="margin:0;font:24px sans-serif"><style>
      @keyframes spin { to { transform: rotate(360deg) } }
      @keyframes slide { from { left: 0 } to { left: calc(100% - 200px) } }
      .spin { width: 320px; height: 320px; margin: 60px; background: linear-gradient(45deg, #e33, #33e); animation: spin 3s linear infinite }
      .bar { position: absolute; top: 480px; width: 200px; height: 80px; background: #2a2; animation: slide 2s ease-in-out infinite alternate }
    </style><div class="spin"></div><div class="bar"></div><p id="n" style="position:absolute;top:40px;left:480px"></p>
    <script>let n = 0; setInterval(() => { document.getElementById('n').textContent = 'tick ' + n++; }, 100);</script></body></html>`,
};

function startServer() {
  const server = http.createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/picture.svg') {
      res.writeHead(200, { 'Content-Type': 'image/svg+xml' });
      res.end('<svg xmlns="http://www.w3.org/2000/svg" width="480" height="270"><rect width="480" height="270" fill="#468"/><circle cx="240" cy="135" r="100" fill="#fc3"/></svg>');
      return;
    }
    res.writeHead(PAGES[path] ? 200 : 404, { 'Content-Type': 'text/html' });
    res.end(PAGES[path] ?? 'not found');
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// ---------------------------------------------------------------------------------- measuring
const TICKS = 100; // USER_HZ on Linux

/** CPU seconds used so far by this process (with reaped children: ffmpeg) and its live descendants. */
function cpuSeconds() {
  if (!fs.existsSync('/proc/self/stat')) return NaN;
  const table = processTable();
  let ticks = 0;
  for (const pid of treePids(process.pid, table)) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
    } catch {
      // exited meanwhile
    }
  }
  return ticks / TICKS;
}

const loadAverage = () => os.loadavg()[0].toFixed(1);
const mib = (bytes) => (Number.isFinite(bytes) ? (bytes / 1048576).toFixed(0) : '-');

function readKb(file, pattern) {
  try {
    const match = pattern.exec(fs.readFileSync(file, 'latin1'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0; // exited meanwhile
  }
}

/**
 * Largest RSS and PSS (bytes) of this process and its descendants since the last `take()`. Listing
 * every process of the machine and reading smaps cost 0.1-0.3 s per round here, so the tree is
 * listed and PSS read once a second, RSS every `intervalMs`.
 */
function memoryPeaks(intervalMs) {
  let pids = [];
  let pss = 0;
  let peak = { rss: 0, pss: 0 };
  let rounds = 0;
  const sample = () => {
    if (rounds++ % Math.max(1, Math.round(1000 / intervalMs)) === 0) {
      pids = treePids(process.pid, processTable());
      pss = pids.reduce((sum, pid) => sum + readKb(`/proc/${pid}/smaps_rollup`, /Pss:\s+(\d+) kB/), 0) * 1024;
    }
    const rss = pids.reduce((sum, pid) => sum + readKb(`/proc/${pid}/status`, /VmRSS:\s+(\d+) kB/), 0) * 1024;
    peak = { rss: Math.max(peak.rss, rss), pss: Math.max(peak.pss, pss) };
  };
  const timer = setInterval(sample, intervalMs);
  timer.unref();
  return {
    take() {
      rounds = 0;
      sample();
      const result = peak;
      peak = { rss: 0, pss: 0 };
      return result;
    },
    stop: () => clearInterval(timer),
  };
}

async function measure(engine, peaks, server, scenario, format, duration) {
  const path = scenario === 'scroll' ? '/article' : '/live';
  peaks.take();
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  const result = await engine.capture({ url: `http://127.0.0.1:${server.address().port}${path}`, scenario, format, duration, ...VIEWPORT });
  const wall = (performance.now() - started) / 1000;
  const cpu = cpuSeconds() - cpuBefore;
  const peak = peaks.take();
  await result.dispose();
  return { wall, cpu, size: result.size, peak: peak.rss, peakPss: peak.pss };
}

function target(scenario, duration, wall) {
  const limit = scenario === 'scroll' ? 1.5 * duration : duration + 1.5;
  return { limit, pass: wall <= limit };
}

function printTable(rows) {
  const header = ['scenario', 'format', 'duration s', 'wall s', 'wall/duration', 'target s', 'result', 'size KiB', 'peak RSS MiB', 'peak PSS MiB', 'CPU s', 'load'];
  const lines = [header, ...rows.map((r) => [r.scenario, r.format, String(r.duration), r.wall.toFixed(2), r.ratio.toFixed(2), r.limit.toFixed(1), r.pass ? 'pass' : 'FAIL', (r.size / 1024).toFixed(0), mib(r.peak), mib(r.peakPss), r.cpu.toFixed(1), r.load])];
  const widths = header.map((_, i) => Math.max(...lines.map((line) => line[i].length)));
  for (const [index, line] of lines.entries()) {
    console.log(`| ${line.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`);
    if (index === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
}

// --------------------------------------------------------------------------------------- main
const server = await startServer();
// A generous budget: on a busy machine a capture should be measured slow, not cut off.
const engine = await createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger, concurrency: 1, timeoutMs: 300_000 });
const peaks = memoryPeaks(200);
try {
  console.error(`video benchmark: ${os.cpus().length} cores, ${DURATION} s videos at 1280x720, ${ITERATIONS} iteration(s), load ${loadAverage()}`);
  // Warm-up: the first capture pays for Chromium's and ffmpeg's first start.
  await measure(engine, peaks, server, 'scroll', 'mp4', 1);

  const rows = [];
  for (const scenario of SCENARIOS) {
    for (const format of FORMATS) {
      for (let i = 0; i < ITERATIONS; i++) {
        const load = loadAverage();
        try {
          const run = await measure(engine, peaks, server, scenario, format, DURATION);
          const verdict = target(scenario, DURATION, run.wall);
          rows.push({ scenario, format, duration: DURATION, ...run, ratio: run.wall / DURATION, ...verdict, load });
          console.error(`  ${scenario} ${format}: ${run.wall.toFixed(2)} s`);
        } catch (error) {
          console.error(`  ${scenario} ${format}: failed: ${error.code ?? ''} ${error.message}`);
        }
      }
    }
  }
  console.log(`\n## Video captures, 1280x720, ${DURATION} s (targets: scroll wall <= 1.5 x duration, record wall <= duration + 1.5 s)\n`);
  printTable(rows);

  if (LONG > 0) {
    console.error(`  ${LONG} s record, sampling memory every second...`);
    // One sampler only: two would list the machine's processes twice as often.
    peaks.stop();
    const samples = [];
    const perSecond = memoryPeaks(1000);
    const timer = setInterval(() => samples.push(perSecond.take()), 1000);
    const load = loadAverage();
    let run;
    try {
      run = await measure(engine, perSecond, server, 'record', 'mp4', LONG);
    } finally {
      clearInterval(timer);
      perSecond.stop();
    }
    // The first seconds are navigation and the encoder's start; the recording proper follows.
    const recording = samples.slice(2);
    const at = (share) => recording[Math.min(recording.length - 1, Math.floor(share * (recording.length - 1)))];
    const range = (key) => `${mib(Math.min(...recording.map((m) => m[key])))}..${mib(Math.max(...recording.map((m) => m[key])))}`;
    const verdict = target('record', LONG, run.wall);
    console.log(`\n## ${LONG} s record (mp4, 1280x720): memory of node + Chromium + ffmpeg, sampled every second from 2 s on\n`);
    console.log('| memory | start MiB | middle MiB | end MiB | min..max MiB |');
    console.log('|---|---|---|---|---|');
    for (const key of ['rss', 'pss']) console.log(`| ${key.toUpperCase()} | ${mib(at(0)[key])} | ${mib(at(0.5)[key])} | ${mib(at(1)[key])} | ${range(key)} |`);
    console.log(`\nwall ${run.wall.toFixed(2)} s (target ${verdict.limit.toFixed(1)} s: ${verdict.pass ? 'pass' : 'FAIL'}), ${(run.size / 1024).toFixed(0)} KiB, load ${load} at the start`);
  }
  console.log(`\nload average at the end: ${os.loadavg().map((v) => v.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
} finally {
  peaks.stop();
  await engine.close();
  server.close();
}

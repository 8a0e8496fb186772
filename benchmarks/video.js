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
// descendant (Chromium, ffmpeg), sampled every 100 ms; CPU is the CPU time the same processes
// used during the capture. Targets (issue 3): scroll wall <= 1.5 x duration; record wall <=
// duration + 1.5 s. The load average is printed because the machine may be shared.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import { TreeSampler, processTable, treePids } from './proc.js';
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
const mib = (bytes) => (bytes / 1048576).toFixed(0);

async function measure(engine, sampler, server, scenario, format, duration) {
  const path = scenario === 'scroll' ? '/article' : '/live';
  sampler.resetWindow(process.pid);
  sampler.sample();
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  const result = await engine.capture({ url: `http://127.0.0.1:${server.address().port}${path}`, scenario, format, duration, ...VIEWPORT });
  const wall = (performance.now() - started) / 1000;
  const cpu = cpuSeconds() - cpuBefore;
  sampler.sample();
  const peak = sampler.windowPeak.get(process.pid) ?? NaN;
  await result.dispose();
  return { wall, cpu, size: result.size, peak };
}

function target(scenario, duration, wall) {
  const limit = scenario === 'scroll' ? 1.5 * duration : duration + 1.5;
  return { limit, pass: wall <= limit };
}

function printTable(rows) {
  const header = ['scenario', 'format', 'duration s', 'wall s', 'wall/duration', 'target s', 'result', 'size KiB', 'peak RSS MiB', 'CPU s', 'load'];
  const lines = [header, ...rows.map((r) => [r.scenario, r.format, String(r.duration), r.wall.toFixed(2), r.ratio.toFixed(2), r.limit.toFixed(1), r.pass ? 'pass' : 'FAIL', (r.size / 1024).toFixed(0), mib(r.peak), r.cpu.toFixed(1), r.load])];
  const widths = header.map((_, i) => Math.max(...lines.map((line) => line[i].length)));
  for (const [index, line] of lines.entries()) {
    console.log(`| ${line.map((cell, i) => cell.padEnd(widths[i])).join(' | ')} |`);
    if (index === 0) console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  }
}

// --------------------------------------------------------------------------------------- main
const server = await startServer();
const engine = await createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger, concurrency: 1 });
const sampler = new TreeSampler({ intervalMs: 100 });
sampler.active.add(process.pid);
sampler.start();
try {
  console.error(`video benchmark: ${os.cpus().length} cores, ${DURATION} s videos at 1280x720, ${ITERATIONS} iteration(s), load ${loadAverage()}`);
  // Warm-up: the first capture pays for Chromium's and ffmpeg's first start.
  await measure(engine, sampler, server, 'scroll', 'mp4', 1);

  const rows = [];
  for (const scenario of SCENARIOS) {
    for (const format of FORMATS) {
      for (let i = 0; i < ITERATIONS; i++) {
        const load = loadAverage();
        const run = await measure(engine, sampler, server, scenario, format, DURATION);
        const verdict = target(scenario, DURATION, run.wall);
        rows.push({ scenario, format, duration: DURATION, ...run, ratio: run.wall / DURATION, ...verdict, load });
        console.error(`  ${scenario} ${format}: ${run.wall.toFixed(2)} s`);
      }
    }
  }
  console.log(`\n## Video captures, 1280x720, ${DURATION} s (targets: scroll wall <= 1.5 x duration, record wall <= duration + 1.5 s)\n`);
  printTable(rows);

  if (LONG > 0) {
    console.error(`  ${LONG} s record, sampling memory every second...`);
    const samples = [];
    const timer = setInterval(() => {
      sampler.sample();
      samples.push(sampler.windowPeak.get(process.pid) ?? NaN);
      sampler.resetWindow(process.pid);
    }, 1000);
    const load = loadAverage();
    let run;
    try {
      run = await measure(engine, sampler, server, 'record', 'mp4', LONG);
    } finally {
      clearInterval(timer);
    }
    const at = (share) => samples[Math.min(samples.length - 1, Math.floor(share * (samples.length - 1)))];
    // The first seconds are navigation and encoder start; the recording proper follows.
    const recording = samples.slice(2);
    const steady = recording.length ? Math.max(...recording) - Math.min(...recording) : NaN;
    const verdict = target('record', LONG, run.wall);
    console.log(`\n## ${LONG} s record (mp4, 1280x720): RSS of node + Chromium + ffmpeg, sampled every second\n`);
    console.log('| start MiB | middle MiB | end MiB | min..max after 2 s MiB | wall s | target s | result | size KiB | load |');
    console.log('|---|---|---|---|---|---|---|---|---|');
    console.log(`| ${mib(at(0.05))} | ${mib(at(0.5))} | ${mib(at(0.95))} | ${mib(Math.min(...recording))}..${mib(Math.max(...recording))} (spread ${mib(steady)}) | ${run.wall.toFixed(2)} | ${verdict.limit.toFixed(1)} | ${verdict.pass ? 'pass' : 'FAIL'} | ${(run.size / 1024).toFixed(0)} | ${load} |`);
  }
  console.log(`\nload average at the end: ${os.loadavg().map((v) => v.toFixed(1)).join(' ')} on ${os.cpus().length} cores`);
} finally {
  sampler.stop();
  await engine.close();
  server.close();
}

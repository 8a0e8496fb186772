#!/usr/bin/env node
// Long journey steps in videos drawn frame by frame (issue 53): while a step runs between two
// frames, the page's clock stands still and the engine draws a frame every 16 ms of the wall clock
// for what waits for one, each a ms after the one before, then (a step longer than a frame period's
// worth of them: 33 at 30 fps, about 0.5 s) µs apart. Frames µs apart once left a frame that never
// completed; this runs steps long enough to reach them, many times, and checks that every capture
// finishes with all its frames on time.
//
//   node benchmarks/video/step-stress.js [--runs=20] [--duration=2] [--size=320x240]
//   (from benchmarks/: npm run step-stress)
//
// Each run records the clock page (fixtures/clock-page) with a journey: wait 200 ms, then an
// `evaluate` step awaiting a fetch the page server answers after 1.2-2.0 s of the wall clock (the
// run's index picks it), then a click. Per run: finished or the error, frames decoded, the worst
// drift of the page's clock from i / fps, frames backwards, repeats, drops and the wall time.
// Run `npm run build` at the root first: it measures the built package (dist/).

import http from 'node:http';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { clockDrift, clockPage, clockReadings } from '../../fixtures/clock-page/clock.js';
import { readOptions } from '../lib/cli-options.js';
import { loadEngine, missing } from '../lib/dist.js';

const opts = readOptions(import.meta.url, { runs: {}, duration: {}, size: {} });
const options = { runs: opts.number('runs', 20), duration: opts.number('duration', 2) };
const [width, height] = opts.text('size', '320x240').split('x').map(Number);
const FPS = 30;
const absent = missing();
if (absent) {
  console.error(absent);
  process.exit(1);
}

const server = http.createServer((req, res) => {
  const slow = /^\/slow\?ms=(\d+)$/.exec(req.url ?? '');
  if (slow) return void setTimeout(() => res.end('ok'), Number(slow[1]));
  res.setHeader('content-type', 'text/html');
  res.end(`<!doctype html>${clockPage()}<button id="go" style="position:fixed;bottom:0">go</button>`);
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/`;
const { createCaptureEngine, silentLogger } = await loadEngine();
const engine = await createCaptureEngine({ log: silentLogger, allowPrivateNetworks: true });
const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'step-stress-'));

const rows = [];
try {
  for (let run = 0; run < options.runs; run++) {
    const stepMs = 1200 + (run % 5) * 200;
    const actions = [{ action: 'wait', ms: 200 }, { action: 'evaluate', script: `await fetch('/slow?ms=${stepMs}')` }, { action: 'click', selector: '#go' }];
    const started = performance.now();
    try {
      const result = await engine.capture({ url, scenario: 'record', format: 'mp4', duration: options.duration, fps: FPS, viewport_width: width, viewport_height: height, actions: JSON.stringify(actions), timeout: 30_000 });
      const file = path.join(dir, `run-${run}.mp4`);
      await fs.writeFile(file, await result.buffer());
      const wall = performance.now() - started;
      const readings = await clockReadings(file, width, height, { fps: FPS });
      const { drift, backwards, repeats, drops } = clockDrift(readings, FPS);
      rows.push({ run, stepMs, outcome: 'finished', frames: readings.length, drift: Math.max(...drift.map(Math.abs)), backwards, repeats, drops, wall });
    } catch (error) {
      rows.push({ run, stepMs, outcome: `${error.code ?? 'error'}: ${String(error.message).slice(0, 80)}`, wall: performance.now() - started });
    }
    process.stderr.write(`run ${run + 1}/${options.runs}: ${rows.at(-1).outcome}\n`);
  }
} finally {
  await engine.close();
  server.close();
  await fs.rm(dir, { recursive: true, force: true });
}

const finished = rows.filter((row) => row.outcome === 'finished');
console.log(`## Long journey steps, frames drawn meanwhile (${options.runs} runs, ${options.duration} s at ${FPS} fps, ${width}x${height})\n`);
console.log('| run | step ms | outcome | frames | max drift ms | backwards | repeats | drops | wall s |');
console.log('|--:|--:|---|--:|--:|--:|--:|--:|--:|');
for (const row of rows) console.log(`| ${row.run} | ${row.stepMs} | ${row.outcome} | ${row.frames ?? '–'} | ${row.drift ?? '–'} | ${row.backwards ?? '–'} | ${row.repeats ?? '–'} | ${row.drops ?? '–'} | ${(row.wall / 1000).toFixed(2)} |`);
console.log(`\n${finished.length} of ${rows.length} finished; every frame expected: ${finished.every((row) => row.frames === options.duration * FPS)}`);

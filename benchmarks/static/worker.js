// One unit (a contender, or library + http sharing one engine) per child process, driven by
// static.js over IPC (lib/ipc.js), so that each unit's memory (this Node process plus its Chromium
// processes) can be measured on its own, and the timings are taken here, next to the capture
// call, without IPC in them.
//
//   node benchmarks/static/worker.js <unit> <contender,contender>
//   (forked by static-workers.js; units: contenders/index.js)
//
// Requests: { op: 'setup' } -> { info, pid } | { op: 'capture', contender, job } -> { ms, outsideMs,
//           serverOutsideMs, bytes, image } | { op: 'burst', contender, jobs, concurrency, minCount,
//           windowMs } -> { completed, errors, firstError, elapsedMs, cpuMs } | { op: 'close' }
//
// A burst's `cpuMs` is the CPU time this process and its descendants (Chromium) used during it,
// from /proc, reaped children included: the HTTP client of `http` runs here too and counts.

import { performance } from 'node:perf_hooks';
import { UNITS } from './contenders/index.js';
import { imageInfo } from '../lib/image-info.js';
import { answerRequests } from '../lib/ipc.js';
import { errMsg, runLanes } from '../lib/lanes.js';
import { TICKS_PER_SECOND, treeTicks } from '../lib/process-tree.js';

const name = process.argv[2];
const names = (process.argv[3] || '').split(',').filter(Boolean);
if (!UNITS[name] || !process.send) {
  console.error(`usage: forked by static.js; units: ${Object.keys(UNITS).join(', ')}`);
  process.exit(2);
}

let unit;
let closing;

process.on('unhandledRejection', (err) => {
  console.error(`[${name}] unhandled rejection:`, err?.stack || err);
});


function captureFn(contender) {
  const fn = unit?.capture[contender];
  if (!fn) throw new Error(`${contender} is not set up in this worker`);
  return fn;
}

async function captureOnce({ contender, job }) {
  const capture = captureFn(contender);
  const t0 = performance.now();
  const buf = await capture(job);
  const ms = performance.now() - t0;
  const inner = unit.innerMs?.();
  const server = unit.serverMs?.();
  return {
    ms,
    outsideMs: Number.isFinite(inner) ? ms - inner : undefined,
    serverOutsideMs: Number.isFinite(inner) && Number.isFinite(server) ? server - inner : undefined,
    bytes: buf.length,
    image: imageInfo(buf),
  };
}

async function burst({ contender, jobs, concurrency, minCount, windowMs }) {
  const capture = captureFn(contender);
  const ticks0 = treeTicks(process.pid, { reaped: true });
  const lanes = await runLanes({ concurrency, more: (started, t0) => started < minCount || performance.now() - t0 < windowMs, capture: (i) => capture(jobs[i % jobs.length]) });
  const cpuMs = ((treeTicks(process.pid, { reaped: true }) - ticks0) * 1000) / TICKS_PER_SECOND;
  return { ...lanes, cpuMs };
}

/** Closes the unit (its browser), waiting at most 15 s. */
function close() {
  closing ??= Promise.race([unit?.close(), new Promise((r) => setTimeout(r, 15000).unref())]).catch((err) => {
    console.error(`[${name}] close failed: ${errMsg(err)}`);
  });
  return closing;
}

answerRequests(
  {
    setup: async () => {
      unit = await UNITS[name].create(names);
      return { info: await unit.setup(), pid: process.pid };
    },
    capture: captureOnce,
    burst,
    close: async () => {
      await close();
      return {};
    },
  },
  { close, formatError: errMsg },
);

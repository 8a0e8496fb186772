// One unit (a contender, or library + http sharing one engine) per child process, driven by
// static.js over IPC, so that each unit's memory (this Node process plus its Chromium processes)
// can be measured on its own, and the timings are taken here, next to the capture call, without
// IPC in them.
//
//   node worker.js <unit> <contender,contender>     (forked by static.js; units: see contenders.js)
//
// Messages in:  { id, op: 'setup' } | { id, op: 'capture', contender, job } |
//               { id, op: 'burst', contender, jobs, concurrency, minCount, windowMs } |
//               { id, op: 'close' }
// Messages out: { id, ok: true, ... } | { id, ok: false, error }

import { performance } from 'node:perf_hooks';
import { UNITS, imageInfo } from './contenders.js';

const name = process.argv[2];
const names = (process.argv[3] || '').split(',').filter(Boolean);
if (!UNITS[name] || !process.send) {
  console.error(`usage: forked by static.js; units: ${Object.keys(UNITS).join(', ')}`);
  process.exit(2);
}

let unit;
let closing = false;

process.on('unhandledRejection', (err) => {
  console.error(`[${name}] unhandled rejection:`, err?.stack || err);
});

const errMsg = (err) => String(err?.message || err).split('\n')[0].slice(0, 300);

function captureFn(contender) {
  const fn = unit?.capture[contender];
  if (!fn) throw new Error(`${contender} is not set up in this worker`);
  return fn;
}

async function captureOnce(contender, job) {
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
  let started = 0;
  let completed = 0;
  let errors = 0;
  let firstError = null;
  let lastEnd = 0;
  const t0 = performance.now();
  const lane = async () => {
    while (started < minCount || performance.now() - t0 < windowMs) {
      const job = jobs[started % jobs.length];
      started++;
      try {
        await capture(job);
        completed++;
      } catch (err) {
        errors++;
        firstError ??= errMsg(err);
      }
      lastEnd = performance.now();
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  const elapsedMs = lastEnd - t0;
  return { completed, errors, firstError, elapsedMs };
}

async function close() {
  if (closing) return;
  closing = true;
  try {
    await Promise.race([unit?.close(), new Promise((r) => setTimeout(r, 15000).unref())]);
  } catch (err) {
    console.error(`[${name}] close failed: ${errMsg(err)}`);
  }
}

process.on('message', async (msg) => {
  const reply = (body) => process.send?.({ id: msg.id, ...body });
  try {
    switch (msg.op) {
      case 'setup': {
        unit = await UNITS[name].create(names);
        const info = await unit.setup();
        reply({ ok: true, info, pid: process.pid });
        break;
      }
      case 'capture':
        reply({ ok: true, ...(await captureOnce(msg.contender, msg.job)) });
        break;
      case 'burst':
        reply({ ok: true, ...(await burst(msg)) });
        break;
      case 'close':
        await close();
        reply({ ok: true });
        process.disconnect?.();
        setTimeout(() => process.exit(0), 100).unref();
        break;
      default:
        reply({ ok: false, error: `unknown op ${msg.op}` });
    }
  } catch (err) {
    reply({ ok: false, error: errMsg(err) });
  }
});

// The coordinator went away (crash, Ctrl-C): close the browser, then leave.
process.on('disconnect', async () => {
  await close();
  process.exit(0);
});
for (const sig of ['SIGINT', 'SIGTERM']) {
  process.on(sig, async () => {
    await close();
    process.exit(0);
  });
}

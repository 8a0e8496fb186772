#!/usr/bin/env node
// Asynchronous captures benchmark: captures/s end to end through the job queue (BullMQ on a real
// redis-server) with 1 and 2 worker processes, the queue's added latency at rest, and the memory
// of a worker recording long videos. Everything runs as users run it: the built CLI (`npm run
// build` at the repository root), `capture-engine serve` to enqueue, `capture-engine worker` to run.
//
//   node benchmarks/jobs/jobs.js [--jobs=24] [--rest=10] [--workers=1,2] [--worker-concurrency=2]
//                                [--videos=10,60] [--page=simple]
//   (from benchmarks/: npm run jobs)
//
// Environment equivalents: BENCH_JOBS, BENCH_REST, BENCH_WORKERS, BENCH_WORKER_CONCURRENCY,
// BENCH_VIDEOS (empty: skip), BENCH_PAGE. The tables go to stdout, progress to stderr.
//
// Method: one service instance (it only enqueues and answers statuses; its own browser idles) and
// N worker processes share Redis and a storage directory. Throughput: `jobs` captures of the page
// (viewport png 1280x720) are enqueued at once with `async=true`; captures/s = jobs / (last
// finished_at - first created_at), from the statuses the service reports. The same number of
// captures sent synchronously to a service of N x worker-concurrency is the reference. At rest:
// `rest` captures one after the other, each enqueued once the previous finished; queue latency =
// started_at - created_at (when the worker took the job), end to end = from the POST until the
// poll (every 20 ms) sees `completed`. Video memory: the peak RSS of the worker's Node process
// (without Chromium) while it records `record` videos of each length, sampled every 100 ms.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { ROOT } from '../lib/dist.js';
import { startPageServer } from '../lib/fixture-pages.js';
import { fixed, mebibytes } from '../lib/format.js';
import { freePort } from '../lib/free-port.js';
import { rssBytes } from '../lib/process-memory.js';
import { startRedis, stopAllRedis } from '../lib/redis.js';
import { cleanupOnSignal, once } from '../lib/shutdown.js';
import { median, percentile } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';

const opts = readOptions(import.meta.url, {
  jobs: { env: 'BENCH_JOBS' },
  rest: { env: 'BENCH_REST' },
  workers: { env: 'BENCH_WORKERS' },
  'worker-concurrency': { env: 'BENCH_WORKER_CONCURRENCY' },
  videos: { env: 'BENCH_VIDEOS' },
  page: { env: 'BENCH_PAGE' },
});
const cfg = {
  jobs: opts.number('jobs', 24),
  rest: opts.number('rest', 10),
  workers: opts.list('workers', '1,2').map(Number),
  workerConcurrency: opts.number('worker-concurrency', 2),
  videos: opts.list('videos', '10,60').map(Number),
  page: opts.text('page', 'simple'),
};
const CLI = path.join(ROOT, 'dist/src/cli.js');
const KEY = 'ce_bench_jobs_0123456789abcdefghij';
const log = (...a) => console.error(...a);
const children = new Set();

/** The built CLI in a process group of its own (ended with everything it started). */
function run(args, env) {
  const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const handle = {
    pid: child.pid,
    output: () => output,
    async stop() {
      children.delete(handle);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.race([exited, sleep(30_000)]);
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid, 'SIGKILL');
    },
  };
  children.add(handle);
  return handle;
}

async function waitFor(what, check, timeoutMs = 60_000) {
  const started = Date.now();
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function startService(env, concurrency) {
  const port = await freePort();
  const service = run(['serve', '--port', String(port), '--host', '127.0.0.1'], { ...env, CAPTURE_CONCURRENCY: String(concurrency) });
  service.origin = `http://127.0.0.1:${port}`;
  await waitFor('the service', () => fetch(`${service.origin}/readyz`).then((r) => r.ok, () => false));
  return service;
}

async function startWorker(env) {
  const worker = run(['worker', '--concurrency', String(cfg.workerConcurrency)], { ...env, CAPTURE_CONCURRENCY: String(cfg.workerConcurrency) });
  await waitFor('a worker', () => worker.output().includes('worker ready'));
  return worker;
}

const headers = { 'X-API-Key': KEY, 'Content-Type': 'application/json' };
async function post(service, body) {
  const response = await fetch(`${service.origin}/api/v1/capture`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (response.status !== 202 && response.status !== 200) throw new Error(`capture answered ${response.status}: ${await response.text()}`);
  return response;
}
const enqueue = async (service, body) => (await (await post(service, { ...body, async: true })).json()).id;
const statusOf = async (service, id) => (await fetch(`${service.origin}/api/v1/captures/${id}`, { headers })).json();

async function finished(service, id, pollMs) {
  for (;;) {
    const status = await statusOf(service, id);
    if (status.status === 'completed') return status;
    if (status.status === 'failed') throw new Error(`capture ${id} failed: ${JSON.stringify(status.error)}`);
    await sleep(pollMs);
  }
}

async function throughput(service, job) {
  const ids = await Promise.all(Array.from({ length: cfg.jobs }, () => enqueue(service, job)));
  const statuses = [];
  for (const id of ids) statuses.push(await finished(service, id, 100));
  const first = Math.min(...statuses.map((s) => Date.parse(s.created_at)));
  const last = Math.max(...statuses.map((s) => Date.parse(s.finished_at)));
  return (cfg.jobs / (last - first)) * 1000;
}

async function syncThroughput(service, job, concurrency) {
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next++ < cfg.jobs) await (await post(service, job)).arrayBuffer();
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return (cfg.jobs / (performance.now() - started)) * 1000;
}

async function atRest(service, job) {
  const queue = [];
  const total = [];
  for (let i = 0; i < cfg.rest; i++) {
    const t0 = performance.now();
    const id = await enqueue(service, job);
    const status = await finished(service, id, 20);
    total.push(performance.now() - t0);
    queue.push(Date.parse(status.started_at) - Date.parse(status.created_at));
  }
  return { queue, total };
}

async function videoMemory(service, worker, fixtures, seconds) {
  const id = await enqueue(service, { url: fixtures.url(`/${cfg.page}`), scenario: 'record', format: 'mp4', duration: seconds, viewport_width: 1280, viewport_height: 720 });
  let peak = 0;
  let status;
  const started = performance.now();
  do {
    peak = Math.max(peak, rssBytes(worker.pid) ?? 0);
    await sleep(100);
    status = await statusOf(service, id);
  } while (status.status !== 'completed' && status.status !== 'failed');
  if (status.status === 'failed') throw new Error(`recording failed: ${JSON.stringify(status.error)}`);
  return { seconds, peak, wallMs: performance.now() - started, size: status.size };
}

const cleanup = once(async () => {
  await Promise.all([...children].map((c) => c.stop()));
  await stopAllRedis();
});
cleanupOnSignal(cleanup);

async function main() {
  if (!fs.existsSync(CLI)) throw new Error('dist/src/cli.js missing: run `npm run build` at the repository root');
  const fixtures = await startPageServer();
  const redis = await startRedis();
  const storageDir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-jobs-'));
  const env = {
    CAPTURE_REDIS_URL: redis.url,
    CAPTURE_API_KEYS: `${KEY}:ENTERPRISE`,
    CAPTURE_ALLOW_PRIVATE_NETWORKS: 'true',
    CAPTURE_STORAGE_DIR: storageDir,
    CAPTURE_LOG_LEVEL: 'warn',
  };
  const job = { url: fixtures.url(`/${cfg.page}`), viewport_width: 1280, viewport_height: 720, response_type: 'json' };
  log(`jobs benchmark: ${cfg.jobs} captures per burst, ${cfg.rest} at rest, workers ${cfg.workers.join('/')} x concurrency ${cfg.workerConcurrency}`);
  const rows = [];
  const service = await startService(env, 1);
  try {
    // Warm-up: Chromium's first pages are slower.
    const warm = await startWorker(env);
    for (let i = 0; i < 3; i++) await finished(service, await enqueue(service, job), 50);
    const rest = await atRest(service, job);
    log(`- at rest: queue p50 ${median(rest.queue)} ms, end to end p50 ${fixed(median(rest.total), 0)} ms`);
    const video = [];
    for (const seconds of cfg.videos) {
      video.push(await videoMemory(service, warm, fixtures, seconds));
      log(`- ${seconds} s recording: worker peak RSS ${mebibytes(video.at(-1).peak)} MiB`);
    }
    await warm.stop();

    for (const count of cfg.workers) {
      const workers = [];
      for (let i = 0; i < count; i++) workers.push(await startWorker(env));
      for (let i = 0; i < count * 2; i++) await finished(service, await enqueue(service, job), 50);
      const rate = await throughput(service, job);
      for (const worker of workers) await worker.stop();
      const concurrency = count * cfg.workerConcurrency;
      const syncService = await startService({ ...env, CAPTURE_REDIS_URL: '' }, concurrency);
      for (let i = 0; i < concurrency; i++) await (await post(syncService, job)).arrayBuffer();
      const syncRate = await syncThroughput(syncService, job, concurrency);
      await syncService.stop();
      rows.push([count, concurrency, fixed(rate, 2), fixed(syncRate, 2), fixed(rate / syncRate, 2)]);
      log(`- ${count} worker(s): ${fixed(rate, 2)} captures/s through the queue, ${fixed(syncRate, 2)}/s synchronous`);
    }

    const p = (s = '') => console.log(s);
    p('## Asynchronous captures (BullMQ on a local redis-server)');
    p();
    p(`Node ${process.version}, ${os.cpus().length} CPUs. Page \`${cfg.page}\`, viewport png 1280x720, stored (json). Workers: \`capture-engine worker --concurrency ${cfg.workerConcurrency}\`.`);
    p();
    for (const line of binaryLines({ 'serve, queued and synchronous': CHROMIUM_PATH, worker: CHROMIUM_PATH })) p(line);
    p();
    p(markdownTable(['worker processes', 'captures at once', 'queue captures/s', 'synchronous captures/s ¹', 'queue / synchronous'], rows, { align: 'rrrrr' }));
    p();
    p(`¹ the same ${cfg.jobs} captures sent to one \`serve\` with that concurrency, as many requests at once.`);
    p();
    p(markdownTable(['at rest (one capture at a time)', 'p50 ms', 'p95 ms', 'n'], [
      ['queue latency: created_at → started_at', fixed(median(rest.queue), 0), fixed(percentile(rest.queue, 95), 0), rest.queue.length],
      ['end to end: POST → completed seen (20 ms polls)', fixed(median(rest.total), 0), fixed(percentile(rest.total, 95), 0), rest.total.length],
    ], { align: 'lrrr' }));
    if (video.length) {
      p();
      p(markdownTable(['recording', 'worker Node peak RSS MiB', 'wall s', 'file KiB'], video.map((v) => [`${v.seconds} s, 1280x720 mp4`, mebibytes(v.peak), fixed(v.wallMs / 1000, 1), fixed(v.size / 1024, 0)]), { align: 'lrrr' }));
    }
  } finally {
    await service.stop();
    await fixtures.close();
    await cleanup();
    fs.rmSync(storageDir, { recursive: true, force: true });
  }
}

main().catch(async (error) => {
  log(error.stack || String(error));
  await cleanup();
  process.exit(1);
});

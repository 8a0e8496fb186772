#!/usr/bin/env node
// Storage benchmark: what storing a capture costs, filesystem against S3-compatible storage.
//
//   npm run build                                  # at the repository root: the engine is loaded from dist/
//   node benchmarks/storage/storage.js [--iterations=15] [--formats=png,mp4]
//   (from benchmarks/: npm run storage)
//
// Method: one engine per backend (the default filesystem storage; S3 through
// `capture-engine/storage/s3` against an s3rver on 127.0.0.1 with its own temporary directory),
// each behind the node listener on loopback. Per iteration and backend, interleaved: a capture of
// the simple page with response_type=json (capture + store), then a GET of the returned file
// (serve). The storages are wrapped to time their put, the store's own share of the capture, which
// the capture's run-to-run noise would hide. The table gives the p50 of each and the extra ms of S3
// over the filesystem (put + serve). The first round warms both engines and is not counted.
// Tables on stdout, progress on stderr.

import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { CHROMIUM_PATH, binaryLines } from '../lib/chromium.js';
import { readOptions } from '../lib/cli-options.js';
import { loadEngine, missing, ROOT } from '../lib/dist.js';
import { startPageServer } from '../lib/fixture-pages.js';
import { millis } from '../lib/format.js';
import { median } from '../lib/stats.js';
import { markdownTable } from '../lib/tables.js';

const opts = readOptions(import.meta.url, { iterations: { env: 'BENCH_ITERATIONS' }, formats: { env: 'BENCH_FORMATS' } });
const ITERATIONS = opts.number('iterations', 15);
const FORMATS = opts.list('formats', 'png,mp4');
const S3_ENTRY = path.join(ROOT, 'dist/src/storage/s3-storage.js');
for (const entry of [undefined, S3_ENTRY]) {
  const problem = missing(entry);
  if (problem) throw new Error(problem);
}
const log = (...a) => console.error('[storage]', ...a);
const KEY = 'bench_storage_0123456789abcdef';

const { createCaptureEngine, createCaptureHttp, createFsStorage, createNodeListener, silentLogger } = await loadEngine();
const { s3Storage } = await import(pathToFileURL(S3_ENTRY).href);
const { default: S3rver } = await import('s3rver');

const temp = fs.mkdtempSync(path.join(os.tmpdir(), 'capture-engine-bench-storage-'));
const s3rver = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: path.join(temp, 's3'), configureBuckets: [{ name: 'bench' }] });
const { port: s3Port } = await s3rver.run();
const pages = await startPageServer();
/** The storage, with the duration of its last put: the store's own share of a capture. */
function timed(storage) {
  const wrapper = {
    name: storage.name,
    lastPutMs: NaN,
    put: async (...args) => {
      const started = performance.now();
      try {
        return await storage.put(...args);
      } finally {
        wrapper.lastPutMs = performance.now() - started;
      }
    },
    get: (key) => storage.get(key),
    close: () => storage.close?.(),
  };
  return wrapper;
}
const backends = {
  fs: timed(createFsStorage({ dir: path.join(temp, 'files') })),
  s3: timed(
    s3Storage({
      endpoint: `http://127.0.0.1:${s3Port}`,
      region: 'us-east-1',
      bucket: 'bench',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    }),
  ),
};
const services = {};
try {
  for (const [name, storage] of Object.entries(backends)) {
    const engine = await createCaptureEngine({ allowPrivateNetworks: true, log: silentLogger, concurrency: 1, tempDir: path.join(temp, name), storage });
    const server = http.createServer(createNodeListener(createCaptureHttp(engine, { apiKeys: [{ key: KEY, tier: 'ENTERPRISE' }], tiers: { ENTERPRISE: { requestsPerMinute: 1e9, monthlyQuota: 1e9 } } })));
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    services[name] = { engine, server, origin: `http://127.0.0.1:${server.address().port}` };
  }

  const rows = [];
  for (const format of FORMATS) {
    const samples = { fs: { store: [], put: [], serve: [] }, s3: { store: [], put: [], serve: [] } };
    const query = new URLSearchParams({ url: pages.url('/simple'), format, response_type: 'json', viewport_width: '1280', viewport_height: '720', ...(format === 'mp4' ? { duration: '1' } : {}) });
    for (let round = 0; round <= ITERATIONS; round++) {
      for (const name of round % 2 === 0 ? ['fs', 's3'] : ['s3', 'fs']) {
        const { origin } = services[name];
        const t0 = performance.now();
        const stored = await fetch(`${origin}/api/v1/capture?${query}`, { headers: { 'X-API-Key': KEY } });
        const body = await stored.json();
        if (stored.status !== 200) throw new Error(`${name} ${format}: ${stored.status} ${JSON.stringify(body)}`);
        const t1 = performance.now();
        const file = await fetch(`${origin}${body.url}`);
        const bytes = (await file.arrayBuffer()).byteLength;
        if (file.status !== 200 || bytes !== body.size) throw new Error(`${name} ${format}: served ${file.status}, ${bytes} of ${body.size} bytes`);
        const t2 = performance.now();
        if (round === 0) continue;
        samples[name].store.push(t1 - t0);
        samples[name].put.push(backends[name].lastPutMs);
        samples[name].serve.push(t2 - t1);
      }
      log(`${format}: round ${round}/${ITERATIONS}`);
    }
    for (const name of ['fs', 's3']) {
      const [store, put, serve] = ['store', 'put', 'serve'].map((part) => median(samples[name][part]));
      const extra = name === 'fs' ? '' : millis(put + serve - median(samples.fs.put) - median(samples.fs.serve));
      rows.push([format, name, millis(store), millis(put), millis(serve), extra]);
    }
  }
  console.log(`## Storage: capture + store + serve (${ITERATIONS} rounds, p50 ms)\n`);
  console.log(`${binaryLines({ 'engine, fs and s3': CHROMIUM_PATH }).join('\n')}\n`);
  console.log(markdownTable(['format', 'storage', 'capture + store', 'of which the put', 'serve (GET file)', 'extra vs fs (put + serve)'], rows, { align: 'llrrrr' }));
} finally {
  for (const { engine, server } of Object.values(services)) {
    server.closeAllConnections();
    server.close();
    await engine.close();
  }
  await pages.close();
  await s3rver.close();
  fs.rmSync(temp, { recursive: true, force: true });
}

// One contender on one Chromium binary, in a process of its own (forked by binaries.js), so that
// its process tree (this Node process and its Chromium) is measured alone. Timings are taken here,
// next to the capture call, without the IPC in them.
//
//   service: the built engine behind its HTTP service on the bare node:http adapter
//            (createCaptureEngine, createCaptureHttp with one ENTERPRISE key, createNodeListener),
//            driven over loopback from this process: GET /api/v1/capture?url=...&viewport_width=1280
//            &viewport_height=720 (a PNG), keep-alive agent, X-API-Key.
//   loop:    bare playwright-core: chromium.launch({ executablePath }) once, then per capture
//            newContext({ viewport }), newPage, goto (waitUntil: load), page.screenshot() (PNG),
//            context.close().
//
// Requests (lib/ipc.js): { op: 'setup', contender, executablePath, url, width, height,
// engineOptions, engineArgs, loopArgs, verbose } -> { version } | { op: 'capture' } -> { ms, bytes, image }
// | { op: 'burst', count, concurrency } -> { completed, errors, firstError, elapsedMs } | { op: 'close' }

import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { loadEngine } from '../lib/dist.js';
import { imageInfo } from '../lib/image-info.js';
import { answerRequests } from '../lib/ipc.js';
import { errMsg, runLanes } from '../lib/lanes.js';


let unit; // { capture(): Promise<Buffer>, close(), version }
let closing;

process.on('unhandledRejection', (err) => console.error('unhandled rejection:', err?.stack || err));

/** The engine behind its HTTP service on node:http, and a client for it in this process. */
async function service({ executablePath, url, width, height, engineOptions = {}, engineArgs = [], verbose = false }) {
  const { createCaptureEngine, createCaptureHttp, createNodeListener, silentLogger } = await loadEngine();
  const guard = engineOptions.unguarded
    ? { allowPrivateNetworks: true } // no egress proxy at all
    : { allowAddress: (address, port) => address === '127.0.0.1' && port === Number(new URL(url).port) }; // the guard on, as in production
  const { unguarded: _, captureParams = {}, ...rest } = engineOptions;
  const engine = await createCaptureEngine({
    executablePath,
    ...guard,
    ...(engineArgs.length ? { browserArgs: engineArgs } : {}),
    ...(verbose ? {} : { log: silentLogger }), // the engine's JSON lines on stderr with --verbose
    ...rest,
  });
  const key = randomBytes(32).toString('hex');
  const unlimited = { requestsPerMinute: 1e9, monthlyQuota: 1e9, maxConcurrent: 0, browserSecondsPerHour: 1e9 };
  const service = createCaptureHttp(engine, { apiKeys: [{ key, tier: 'ENTERPRISE' }], tiers: { ENTERPRISE: unlimited } });
  const server = http.createServer(createNodeListener(service));
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const query = new URLSearchParams({ url, viewport_width: String(width), viewport_height: String(height), ...captureParams });
  const target = `http://127.0.0.1:${server.address().port}/api/v1/capture?${query}`;
  const capture = () =>
    new Promise((resolve, reject) => {
      const req = http.get(target, { agent, headers: { 'X-API-Key': key } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          if (res.statusCode === 200) resolve(body);
          else reject(new Error(`HTTP ${res.statusCode}: ${body.toString('utf8').slice(0, 200)}`));
        });
      });
      req.on('error', reject);
    });
  return {
    capture,
    version: undefined,
    async close() {
      agent.destroy();
      server.closeAllConnections?.();
      await new Promise((resolve) => server.close(() => resolve()));
      await engine.close();
    },
  };
}

/** Bare Playwright: one browser, a fresh context per capture. */
async function loop({ executablePath, url, width, height, loopArgs = [] }) {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath, ...(loopArgs.length ? { args: loopArgs } : {}) });
  const capture = async () => {
    const context = await browser.newContext({ viewport: { width, height } });
    try {
      const page = await context.newPage();
      await page.goto(url);
      return await page.screenshot();
    } finally {
      await context.close();
    }
  };
  return { capture, version: browser.version(), close: () => browser.close() };
}

const CONTENDERS = { service, loop };

async function captureOnce() {
  const t0 = performance.now();
  const buf = await unit.capture();
  return { ms: performance.now() - t0, bytes: buf.length, image: imageInfo(buf) };
}

/** `count` captures, `concurrency` at a time; elapsed from the first start to the last end. */
function burst({ count, concurrency }) {
  return runLanes({ concurrency, more: (started) => started < count, capture: () => unit.capture() });
}

/** Closes the browser (and the service), waiting at most 15 s. */
function close() {
  closing ??= Promise.race([unit?.close(), new Promise((r) => setTimeout(r, 15_000).unref())]).catch((err) => {
    console.error(`close failed: ${errMsg(err)}`);
  });
  return closing;
}

if (!process.send) {
  console.error('forked by binaries.js');
  process.exit(2);
}

answerRequests(
  {
    setup: async (msg) => {
      const make = CONTENDERS[msg.contender];
      if (!make) throw new Error(`unknown contender ${msg.contender}`);
      unit = await make(msg);
      return { version: unit.version, pid: process.pid };
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

// The five contenders, grouped in units (see UNITS at the end). A job is
// { url, format: 'png'|'jpg'|'webp', width, height, fullPage, quality }; a capture returns a Buffer.
//
// Every contender produces the same pixels: the viewport at device scale factor 1 (or the full
// page for fullPage), encoded in the requested format at the requested quality.

import fs from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const ROOT = path.resolve(HERE, '..');
export const ENGINE_ENTRY = path.join(ROOT, 'dist/src/index.js');
export const EXPRESS_ENTRY = path.join(ROOT, 'dist/adapters/express.js');

export const CHROMIUM_PATH = process.env.CAPTURE_CHROMIUM_PATH || '/usr/bin/chromium';

// Closed network, running as root (hence --no-sandbox).
export const LAUNCH_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

const HTTP_KEY = 'bench_0123456789abcdef';

const resolvable = (specifier) => {
  try {
    import.meta.resolve(specifier);
    return true;
  } catch {
    return false;
  }
};

/** Why a contender cannot run here, or null. */
export function unavailable(name) {
  if (!fs.existsSync(CHROMIUM_PATH)) return `no Chromium at ${CHROMIUM_PATH} (set CAPTURE_CHROMIUM_PATH)`;
  const needs = { floor: 'playwright-core', http: 'express', 'capture-website': 'capture-website', browserless: 'browserless' }[name];
  if (needs && !resolvable(needs)) {
    return `package ${needs} not installed: run \`npm install\` in ${needs === 'capture-website' || needs === 'browserless' ? 'benchmarks/' : 'the repository root'}`;
  }
  if (name === 'library' || name === 'http') {
    if (!fs.existsSync(ENGINE_ENTRY)) return 'dist/src/index.js missing: run `npm run build` at the repository root';
    if (name === 'http' && !fs.existsSync(EXPRESS_ENTRY)) return 'dist/adapters/express.js missing: run `npm run build` at the repository root';
  }
  return null;
}

// ---------------------------------------------------------------------------------------------
// 1. floor: raw Playwright, one warm browser, a fresh context per capture.
// Playwright's page.screenshot() has no WebP, so the floor's WebP is Chromium's own encoder
// through CDP (Page.captureScreenshot), which is the cheapest way Chromium can produce one.
async function floor() {
  const { chromium } = await import('playwright-core');
  let browser;

  const capture = async ({ url, format, width, height, fullPage, quality }) => {
    const context = await browser.newContext({ viewport: { width, height } });
    try {
      const page = await context.newPage();
      await page.goto(url, { waitUntil: 'domcontentloaded' });
      if (format === 'webp') {
        const cdp = await context.newCDPSession(page);
        const { data } = await cdp.send('Page.captureScreenshot', { format: 'webp', quality });
        return Buffer.from(data, 'base64');
      }
      return await page.screenshot({
        type: format === 'jpg' ? 'jpeg' : 'png',
        quality: format === 'jpg' ? quality : undefined,
        fullPage,
      });
    } finally {
      await context.close();
    }
  };

  return {
    async setup() {
      browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: LAUNCH_ARGS, headless: true });
      return { version: browser.version() };
    },
    capture: { floor: capture },
    async close() {
      await browser?.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 2. library and 3. http: our engine, one instance serving both, so that the HTTP overhead
// (http minus library) compares the same browser and the same warm contexts.
//   library: engine.capture({...}) in process.
//   http:    the engine mounted in Express (app.use('/api', captureMiddleware(engine))), called
//            over loopback with a keep-alive agent, GET /api/v1/capture?... with X-API-Key.
async function engineUnit({ withHttp = true } = {}) {
  let engine;
  let server;
  let base;
  let lastRunMs = NaN;
  let lastServerMs = NaN;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const library = async ({ url, format, width, height, fullPage, quality }) => {
    lastRunMs = NaN;
    const shot = await engine.capture({
      url,
      format,
      viewport_width: width,
      viewport_height: height,
      full_page: fullPage,
      ...(format === 'png' ? {} : { quality }),
    });
    try {
      const buf = await shot.buffer();
      if (typeof shot.size === 'number' && shot.size !== buf.length) {
        throw new Error(`shot.size ${shot.size} != buffer length ${buf.length}`);
      }
      return buf;
    } finally {
      await shot.dispose?.();
    }
  };

  const overHttp = ({ url, format, width, height, fullPage, quality }) => {
    const q = new URLSearchParams({
      url,
      format,
      viewport_width: String(width),
      viewport_height: String(height),
      full_page: String(fullPage),
    });
    if (format !== 'png') q.set('quality', String(quality));
    lastRunMs = NaN;
    lastServerMs = NaN;
    return new Promise((resolve, reject) => {
      const req = http.get(`${base}?${q}`, { agent, headers: { 'X-API-Key': HTTP_KEY } }, (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('error', reject);
        res.on('end', () => {
          const body = Buffer.concat(chunks);
          if (res.statusCode !== 200) {
            reject(new Error(`HTTP ${res.statusCode}: ${body.toString('utf8').slice(0, 300)}`));
          } else {
            resolve(body);
          }
        });
      });
      req.on('error', reject);
    });
  };

  return {
    async setup() {
      const { createCaptureEngine } = await import(pathToFileURL(ENGINE_ENTRY).href);
      engine = await createCaptureEngine({
        allowPrivateNetworks: true,
        ...(withHttp
          ? {
              apiKeys: [{ key: HTTP_KEY, tier: 'ENTERPRISE' }],
              tiers: { ENTERPRISE: { requestsPerMinute: 1e9, monthlyQuota: 1e9 } },
            }
          : {}),
      });
      // Instrumentation (benchmark only): time engine.run(), the capture work that both paths
      // call (engine.capture() = parse + run; the HTTP handler = auth, policy, parse, run,
      // response), so the HTTP overhead can also be measured inside each request, free of the
      // browser's noise. Only meaningful for one capture at a time.
      if (typeof engine.run === 'function') {
        const run = engine.run;
        engine.run = async function timedRun(...args) {
          const t0 = performance.now();
          try {
            return await run.apply(this, args);
          } finally {
            lastRunMs = performance.now() - t0;
          }
        };
      }
      if (withHttp) {
        const { captureMiddleware } = await import(pathToFileURL(EXPRESS_ENTRY).href);
        const { default: express } = await import('express');
        const app = express();
        // Server side (benchmark only): from the request reaching the app to the response's
        // end() call, i.e. what the server spends on it, without the loopback transfer and
        // without this process's HTTP client, which shares the event loop with the browser pool.
        app.use((req, res, next) => {
          const arrived = performance.now();
          const end = res.end;
          res.end = function endTimed(...args) {
            lastServerMs = performance.now() - arrived;
            return end.apply(this, args);
          };
          next();
        });
        app.use('/api', captureMiddleware(engine));
        server = await new Promise((resolve, reject) => {
          const s = app.listen(0, '127.0.0.1', (err) => (err ? reject(err) : resolve(s)));
          s.once('error', reject);
        });
        base = `http://127.0.0.1:${server.address().port}/api/v1/capture`;
      }
      return {};
    },
    capture: { library, ...(withHttp ? { http: overHttp } : {}) },
    /** Duration of the last engine.run(), to subtract from the last capture's time. */
    innerMs: () => lastRunMs,
    /** Server-side duration of the last HTTP capture (NaN for library captures). */
    serverMs: () => lastServerMs,
    async close() {
      agent.destroy();
      if (server) {
        server.closeAllConnections?.();
        await new Promise((resolve) => server.close(() => resolve()));
      }
      await engine?.close();
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 4. capture-website, used as its README shows: one call = one browser launch (its default).
// Options that would change the pixels or the work are set to match the others: scaleFactor 1
// (default 2), blockAds false (default true, and it would fetch filter lists over the network).
// It always waits for `networkidle2` (not configurable), i.e. at least 500 ms without traffic.
async function captureWebsiteContender() {
  const { default: captureWebsite } = await import('capture-website');

  const capture = async ({ url, format, width, height, fullPage, quality }) => {
    const out = await captureWebsite.buffer(url, {
      width,
      height,
      scaleFactor: 1,
      type: format === 'jpg' ? 'jpeg' : format,
      ...(format === 'png' ? {} : { quality: quality / 100 }), // capture-website takes 0..1
      fullPage,
      blockAds: false,
      launchOptions: { headless: true, executablePath: CHROMIUM_PATH, args: [...LAUNCH_ARGS] },
    });
    return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
  };

  return {
    async setup() {
      return {};
    },
    capture: { 'capture-website': capture },
    async close() {},
  };
}

// ---------------------------------------------------------------------------------------------
// 5. browserless (microlink): one warm browser from createBrowser(), a context per capture
// (browser.createContext() ... ctx.destroyContext()), as its README recommends.
// Its launch flags are its own defaults plus the closed-network flags above. Per capture:
// waitUntil 'domcontentloaded' and adblock false to do the same work as the floor (its defaults
// are waitUntil 'auto' = load + networkidle2 + a retry while the screenshot is white, and
// Ghostery ad blocking), viewport at deviceScaleFactor 1 (its default device is a 2x laptop).
async function browserlessContender() {
  const { default: createBrowser } = await import('browserless');
  let browser;

  const capture = async ({ url, format, width, height, fullPage, quality }) => {
    const ctx = await browser.createContext();
    try {
      return await ctx.screenshot(url, {
        type: format === 'jpg' ? 'jpeg' : format,
        ...(format === 'png' ? {} : { quality }),
        fullPage,
        viewport: { width, height, deviceScaleFactor: 1 },
        waitUntil: 'domcontentloaded',
        adblock: false,
      });
    } finally {
      await ctx.destroyContext();
    }
  };

  return {
    async setup() {
      const args = [...new Set([...(createBrowser.driver?.defaultArgs || []), ...LAUNCH_ARGS])];
      browser = createBrowser({ executablePath: CHROMIUM_PATH, args }); // its default timeout (30 s)
      const b = await browser.browser();
      return { version: await b.version() };
    },
    capture: { browserless: capture },
    async close() {
      await browser?.close();
    },
  };
}

export const CONTENDER_NAMES = ['floor', 'library', 'http', 'capture-website', 'browserless'];

/**
 * Units run in one worker process each: { setup(), capture: { [contender]: (job) => Buffer },
 * close() }. library and http share one unit (one engine); the others are alone.
 */
export const UNITS = {
  floor: { contenders: ['floor'], create: () => floor() },
  engine: { contenders: ['library', 'http'], create: (names) => engineUnit({ withHttp: names.includes('http') }) },
  'capture-website': { contenders: ['capture-website'], create: () => captureWebsiteContender() },
  browserless: { contenders: ['browserless'], create: () => browserlessContender() },
};

export const unitOf = (contender) => Object.keys(UNITS).find((u) => UNITS[u].contenders.includes(contender));

// ---------------------------------------------------------------------------------------------
// Output check: format and pixel size from the file header.

export function imageInfo(buf) {
  if (!buf || buf.length < 32) return { format: 'unknown' };
  if (buf.readUInt32BE(0) === 0x89504e47) {
    return { format: 'png', width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
  }
  if (buf[0] === 0xff && buf[1] === 0xd8) {
    let i = 2;
    while (i + 9 < buf.length) {
      if (buf[i] !== 0xff) {
        i++;
        continue;
      }
      const marker = buf[i + 1];
      if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7) || marker === 0xff) {
        i += marker === 0xff ? 1 : 2;
        continue;
      }
      const len = buf.readUInt16BE(i + 2);
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
        return { format: 'jpg', height: buf.readUInt16BE(i + 5), width: buf.readUInt16BE(i + 7) };
      }
      i += 2 + len;
    }
    return { format: 'jpg' };
  }
  if (buf.toString('latin1', 0, 4) === 'RIFF' && buf.toString('latin1', 8, 12) === 'WEBP') {
    const chunk = buf.toString('latin1', 12, 16);
    if (chunk === 'VP8X') {
      return { format: 'webp', width: 1 + buf.readUIntLE(24, 3), height: 1 + buf.readUIntLE(27, 3) };
    }
    if (chunk === 'VP8 ') {
      return { format: 'webp', width: buf.readUInt16LE(26) & 0x3fff, height: buf.readUInt16LE(28) & 0x3fff };
    }
    if (chunk === 'VP8L') {
      const b = buf.readUInt32LE(21);
      return { format: 'webp', width: (b & 0x3fff) + 1, height: ((b >> 14) & 0x3fff) + 1 };
    }
    return { format: 'webp' };
  }
  return { format: 'unknown' };
}

// Contenders `library` and `http`: our engine, one instance serving both, so that the HTTP
// overhead (http minus library) compares the same browser and the same warm contexts.
//   library: engine.capture({...}) in process.
//   http:    the engine's HTTP service mounted in Express (app.use('/api', captureMiddleware(
//            createCaptureHttp(engine, { apiKeys, tiers })))), called over loopback with a
//            keep-alive agent, GET /api/v1/capture?... with X-API-Key.
// The engine's egress guard is on (the page server's loopback address allowed), unless
// BENCH_ENGINE_UNGUARDED=1; BENCH_ENGINE_OPTIONS (JSON) adds engine options to try. A unit of the
// static benchmark (see index.js).

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { loadAdapter, loadEngine } from '../../lib/dist.js';

const HTTP_KEY = 'bench_0123456789abcdef';

export async function engineUnit({ withHttp = true } = {}) {
  let engine;
  let server;
  let base;
  let lastRunMs = NaN;
  let lastServerMs = NaN;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  /** The job as capture parameters, strings or not. */
  const paramsOf = ({ url, format, width, height, fullPage, scale, selector, device, thumbWidth, blockImages, quality }) => ({
    url,
    format,
    ...(device ? { device } : { viewport_width: width, viewport_height: height }),
    full_page: fullPage,
    ...(format === 'png' ? {} : { quality }),
    ...(scale === 1 ? {} : { device_scale_factor: scale }),
    ...(selector ? { selector } : {}),
    ...(thumbWidth ? { image_width: thumbWidth } : {}),
    ...(blockImages ? { block_resources: 'image' } : {}),
  });

  const library = async (job) => {
    lastRunMs = NaN;
    const shot = await engine.capture(paramsOf(job));
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

  const overHttp = (job) => {
    const q = new URLSearchParams(Object.entries(paramsOf(job)).map(([name, value]) => [name, String(value)]));
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
      const { createCaptureEngine, createCaptureHttp } = await loadEngine();
      engine = await createCaptureEngine({
        // The guard stays on, as in production: every connection of the page goes through the
        // egress proxy, which lets the loopback page server through and nothing else private.
        // BENCH_ENGINE_UNGUARDED=1 measures without it (allowPrivateNetworks leaves the proxy out).
        ...(process.env.BENCH_ENGINE_UNGUARDED === '1' ? { allowPrivateNetworks: true } : { allowAddress: (address) => address === '127.0.0.1' }),
        // Engine options to try (JSON), e.g. BENCH_ENGINE_OPTIONS='{"warmContexts":0}'.
        ...JSON.parse(process.env.BENCH_ENGINE_OPTIONS || '{}'),
      });
      // Instrumentation (benchmark only): time engine.capture(), the capture work that both
      // paths call (the HTTP handler = auth, policy, parse, capture, response), so the HTTP
      // overhead can also be measured inside each request, free of the browser's noise. Only
      // meaningful for one capture at a time.
      const capture = engine.capture;
      engine.capture = async function timedCapture(...args) {
        const t0 = performance.now();
        try {
          return await capture.apply(this, args);
        } finally {
          lastRunMs = performance.now() - t0;
        }
      };
      if (withHttp) {
        // The HTTP service over the instrumented engine: an ENTERPRISE key, limits out of the way.
        const service = createCaptureHttp(engine, {
          apiKeys: [{ key: HTTP_KEY, tier: 'ENTERPRISE' }],
          tiers: { ENTERPRISE: { requestsPerMinute: 1e9, monthlyQuota: 1e9 } },
        });
        const { captureMiddleware } = await loadAdapter('express');
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
        app.use('/api', captureMiddleware(service));
        server = await new Promise((resolve, reject) => {
          const s = app.listen(0, '127.0.0.1', (err) => (err ? reject(err) : resolve(s)));
          s.once('error', reject);
        });
        base = `http://127.0.0.1:${server.address().port}/api/v1/capture`;
      }
      return {};
    },
    capture: { library, ...(withHttp ? { http: overHttp } : {}) },
    /** Duration of the last engine.capture(), to subtract from the last capture's time. */
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

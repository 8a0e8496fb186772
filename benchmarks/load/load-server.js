// The service under load, in a process of its own (forked by load-servers.js): a user's app that
// builds the HTTP service (`createCaptureHttp(engine, httpOptions)`) and mounts it with one of the
// adapters, exactly as the repository's docs/http-service.md shows. load.js drives it over loopback from its
// own process, so the load generator never shares this event loop.
//
// Requests (../lib/ipc.js):
//   { op: 'start', adapter: 'express'|'fastify'|'koa'|'node'|'floor…', options, redisUrl? } -> { port }
//     (`floor-file` answers `options.bytes` fixed bytes as image/png: the floor of a cache hit)
//     `options` holds both kinds: the HTTP service's (HTTP_OPTIONS below: apiKeys, tiers...) go to
//     createCaptureHttp, the rest to createCaptureEngine; with `redisUrl` the limits are counted
//     in that Redis (limiterStore).
//   { op: 'mem' }   -> { rss, heapUsed, external, arrayBuffers, stats } (after gc when --expose-gc)
//   { op: 'close' } -> {} then the process exits
// A server whose parent goes away closes its engine (and with it Chromium) and exits.

import http from 'node:http';
import { loadAdapter, loadEngine } from '../lib/dist.js';
import { answerRequests } from '../lib/ipc.js';
import { mountFloor } from './load-server-floor.js';

/** The options of `createCaptureHttp` (CaptureHttpOptions); every other option is the engine's. */
const HTTP_OPTIONS = new Set(['basePath', 'bodyLimit', 'apiKeys', 'keyStore', 'tiers', 'limiterStore', 'linkLimits', 'policy', 'observer',
  'healthRoutes', 'readiness', 'pressure', 'asyncCaptures', 'cache']);

let engine;
let service;
let closeServer = async () => undefined;
let redis;
let closing;

function listen(server) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const close = () =>
        new Promise((done) => {
          server.close(() => done());
          server.closeAllConnections();
        });
      resolve({ port: server.address().port, close });
    });
  });
}

/** Mounts the HTTP service the way an application would, on 127.0.0.1 and a free port. */
async function mount(adapter, options) {
  if (adapter === 'express') {
    const { default: express } = await import('express');
    const { captureMiddleware } = await loadAdapter('express');
    const app = express();
    app.use(captureMiddleware(service));
    return listen(http.createServer(app));
  }
  if (adapter === 'fastify') {
    const { default: Fastify } = await import('fastify');
    const { capturePlugin } = await loadAdapter('fastify');
    const app = Fastify({ logger: false });
    await app.register(capturePlugin, { http: service });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: app.server.address().port, close: () => app.close() };
  }
  if (adapter === 'node') {
    const { createNodeListener } = await loadEngine();
    return listen(http.createServer(createNodeListener(service)));
  }
  if (adapter === 'koa') {
    const { default: Koa } = await import('koa');
    const { captureMiddleware } = await loadAdapter('koa');
    const app = new Koa();
    app.use(captureMiddleware(service));
    return listen(http.createServer(app.callback()));
  }
  if (adapter.startsWith('floor')) return mountFloor(adapter, listen, options);
  throw new Error(`unknown adapter ${adapter}`);
}

async function start(msg) {
  if (!msg.adapter.startsWith('floor')) {
    const { createCaptureEngine, createCaptureHttp, redisLimiterStore, silentLogger } = await loadEngine();
    const engineOptions = {};
    const httpOptions = {};
    for (const [name, value] of Object.entries(msg.options ?? {})) (HTTP_OPTIONS.has(name) ? httpOptions : engineOptions)[name] = value;
    engineOptions.log = silentLogger;
    if (msg.redisUrl) {
      const { Redis } = await import('ioredis');
      redis = new Redis(msg.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
      await redis.connect();
      httpOptions.limiterStore = redisLimiterStore(redis);
    }
    engine = await createCaptureEngine(engineOptions);
    service = createCaptureHttp(engine, httpOptions);
  }
  const server = await mount(msg.adapter, msg.options);
  closeServer = server.close;
  return { port: server.port };
}

function close() {
  closing ??= (async () => {
    await closeServer().catch(() => undefined);
    await engine?.close().catch(() => undefined);
    await redis?.quit().catch(() => redis.disconnect());
  })();
  return closing;
}

function memory() {
  if (typeof globalThis.gc === 'function') {
    globalThis.gc();
    globalThis.gc();
  }
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, stats: engine?.stats };
}

answerRequests(
  {
    start,
    mem: memory,
    close: async () => {
      await close();
      return {};
    },
  },
  { close },
);

// The service under load, in a process of its own (forked by load.js): a user's app that mounts
// the engine with one of the adapters, exactly as README.md shows. load.js drives it over
// loopback from its own process, so the load generator never shares this event loop.
//
// IPC (each message carries an `id`, answered with the same `id`):
//   { type: 'start', adapter: 'express'|'fastify'|'koa'|'node'|'floor…', options, redisUrl? } -> { port }
//   { type: 'mem' }   -> { rss, heapUsed, external, arrayBuffers, stats } (after gc when --expose-gc)
//   { type: 'close' } -> {} then the process exits
// A server whose parent goes away closes its engine (and with it Chromium) and exits.

import http from 'node:http';

let engine;
let closeServer = async () => undefined;
let redis;
let closing;

function reply(msg, body) {
  return new Promise((resolve) => process.send({ id: msg.id, ...body }, () => resolve()));
}

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

/** Mounts the engine the way an application would, on 127.0.0.1 and a free port. */
async function mount(adapter) {
  if (adapter === 'express') {
    const { default: express } = await import('express');
    const { captureMiddleware } = await import('../dist/adapters/express.js');
    const app = express();
    app.use(captureMiddleware(engine));
    return listen(http.createServer(app));
  }
  if (adapter === 'fastify') {
    const { default: Fastify } = await import('fastify');
    const { capturePlugin } = await import('../dist/adapters/fastify.js');
    const app = Fastify({ logger: false });
    await app.register(capturePlugin, { engine });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: app.server.address().port, close: () => app.close() };
  }
  if (adapter === 'node') {
    const { createNodeListener } = await import('../dist/src/index.js');
    return listen(http.createServer(createNodeListener(engine)));
  }
  if (adapter === 'koa') {
    const { default: Koa } = await import('koa');
    const { captureMiddleware } = await import('../dist/adapters/koa.js');
    const app = new Koa();
    app.use(captureMiddleware(engine));
    return listen(http.createServer(app.callback()));
  }
  if (adapter.startsWith('floor')) {
    // Not the engine: a fixed 401 of the same size, from bare node:http or from each framework
    // with one trivial handler; the ceiling of this machine, at this moment, for the same client
    // and connections, and what each framework alone costs.
    const body = JSON.stringify({ error: 'API key required: send it in X-API-Key, the api_key query parameter or the api_key body field', code: 'MISSING_API_KEY' });
    const headers = () => ({
      'X-RateLimit-Limit': '20',
      'X-RateLimit-Remaining': '19',
      'X-RateLimit-Reset': String(Date.now() + 60_000),
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': String(Buffer.byteLength(body)),
    });
    const answer = (req, res) => {
      res.writeHead(401, headers());
      res.end(body);
    };
    if (adapter === 'floor') return listen(http.createServer(answer));
    if (adapter === 'floor-express') {
      const { default: express } = await import('express');
      const app = express();
      app.use(answer);
      return listen(http.createServer(app));
    }
    if (adapter === 'floor-fastify') {
      const { default: Fastify } = await import('fastify');
      const app = Fastify({ logger: false });
      app.all('/api/v1/capture', (request, reply) => reply.code(401).headers(headers()).send(body));
      await app.listen({ port: 0, host: '127.0.0.1' });
      return { port: app.server.address().port, close: () => app.close() };
    }
    if (adapter === 'floor-koa') {
      const { default: Koa } = await import('koa');
      const app = new Koa();
      app.use((ctx) => {
        ctx.status = 401;
        ctx.set(headers());
        ctx.body = body;
      });
      return listen(http.createServer(app.callback()));
    }
  }
  throw new Error(`unknown adapter ${adapter}`);
}

async function start(msg) {
  if (msg.adapter.startsWith('floor')) {
    const server = await mount(msg.adapter);
    closeServer = server.close;
    return { port: server.port };
  }
  const { createCaptureEngine, redisLimiterStore, silentLogger } = await import('../dist/src/index.js');
  const options = { ...msg.options, log: silentLogger };
  if (msg.redisUrl) {
    const { Redis } = await import('ioredis');
    redis = new Redis(msg.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await redis.connect();
    options.limiterStore = redisLimiterStore(redis);
  }
  engine = await createCaptureEngine(options);
  const server = await mount(msg.adapter);
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

process.on('message', async (msg) => {
  try {
    if (msg.type === 'start') await reply(msg, await start(msg));
    else if (msg.type === 'mem') await reply(msg, memory());
    else if (msg.type === 'close') {
      await close();
      await reply(msg, {});
      process.exit(0);
    } else throw new Error(`unknown message ${msg.type}`);
  } catch (error) {
    await reply(msg, { error: String(error?.stack ?? error) }).catch(() => undefined);
  }
});

// The coordinator died or hung up: leave nothing behind.
process.on('disconnect', () => {
  const timer = setTimeout(() => process.exit(1), 15_000);
  timer.unref();
  close().finally(() => process.exit(0));
});

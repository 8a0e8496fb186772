// The floor adapters of load-server.js: not the engine, but a fixed 401 of the same size as the
// engine's, from bare node:http or from each framework with one trivial handler; the ceiling of
// this machine, at this moment, for the same client and connections, and what each framework
// alone costs.

import http from 'node:http';

const BODY = JSON.stringify({ error: 'API key required: send it in X-API-Key, the api_key query parameter or the api_key body field', code: 'MISSING_API_KEY' });
const headers = () => ({
  'X-RateLimit-Limit': '20',
  'X-RateLimit-Remaining': '19',
  'X-RateLimit-Reset': String(Date.now() + 60_000),
  'Content-Type': 'application/json; charset=utf-8',
  'Content-Length': String(Buffer.byteLength(BODY)),
});
const answer = (req, res) => {
  res.writeHead(401, headers());
  res.end(BODY);
};

/**
 * Mounts floor | floor-express | floor-fastify | floor-koa | floor-file; `listen(server)` starts a
 * node:http server. `floor-file` answers `options.bytes` bytes held in memory, as a cache hit would.
 */
export async function mountFloor(adapter, listen, options = {}) {
  if (adapter === 'floor') return listen(http.createServer(answer));
  if (adapter === 'floor-file') {
    const file = Buffer.alloc(options.bytes ?? 1024, 7);
    return listen(
      http.createServer((req, res) => {
        res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(file.length), ETag: '"floor"', 'Cache-Control': 'public, max-age=86400' });
        res.end(file);
      }),
    );
  }
  if (adapter === 'floor-express') {
    const { default: express } = await import('express');
    const app = express();
    app.use(answer);
    return listen(http.createServer(app));
  }
  if (adapter === 'floor-fastify') {
    const { default: Fastify } = await import('fastify');
    const app = Fastify({ logger: false });
    app.all('/api/v1/capture', (request, reply) => reply.code(401).headers(headers()).send(BODY));
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: app.server.address().port, close: () => app.close() };
  }
  if (adapter === 'floor-koa') {
    const { default: Koa } = await import('koa');
    const app = new Koa();
    app.use((ctx) => {
      ctx.status = 401;
      ctx.set(headers());
      ctx.body = BODY;
    });
    return listen(http.createServer(app.callback()));
  }
  throw new Error(`unknown adapter ${adapter}`);
}

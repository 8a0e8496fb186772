import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import Fastify from 'fastify';
import Koa from 'koa';
import { createNodeListener, type CaptureHttp } from '../../src/index.js';
import { captureErrorHandler, captureMiddleware as expressMiddleware } from '../../adapters/express.js';
import { captureFrameworkErrors, capturePlugin } from '../../adapters/fastify.js';
import { captureMiddleware as koaMiddleware } from '../../adapters/koa.js';

/** `node` is `createNodeListener` on bare node:http, what `capture-engine serve` runs by default. */
export const ADAPTERS = ['node', 'express', 'fastify', 'koa'] as const;
export type AdapterName = (typeof ADAPTERS)[number];

export interface RunningApp {
  origin: string;
  close(): Promise<void>;
}

/**
 * Mounts the HTTP service in an app that already has routes of its own (`GET /health`, `POST /echo` with
 * the framework's usual JSON parsing), as a user would, and listens on 127.0.0.1:0.
 */
export async function startApp(adapter: AdapterName, http: CaptureHttp): Promise<RunningApp> {
  if (adapter === 'fastify') {
    // The harness closes between suites; connections a client kept alive must not hold that up.
    const app = Fastify({ forceCloseConnections: true, frameworkErrors: captureFrameworkErrors(http) });
    app.get('/health', async () => 'ok');
    app.post('/echo', async (request) => request.body);
    await app.register(capturePlugin, { http });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { origin: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
  }
  let server: Server;
  if (adapter === 'koa') {
    const app = new Koa();
    app.use(koaMiddleware(http));
    app.use(async (ctx, next) => {
      if (ctx.path === '/health') ctx.body = 'ok';
      else if (ctx.path === '/echo' && ctx.method === 'POST') {
        let text = '';
        for await (const chunk of ctx.req) text += String(chunk);
        ctx.body = JSON.parse(text);
      } else await next();
    });
    server = createServer(app.callback());
  } else if (adapter === 'node') {
    const captures = createNodeListener(http);
    server = createServer((req, res) => {
      if (req.url === '/health') res.end('ok');
      else if (req.url === '/echo' && req.method === 'POST') req.pipe(res);
      else captures(req, res);
    });
  } else {
    const app = express();
    app.use(express.json());
    app.get('/health', (_req, res) => void res.send('ok'));
    app.post('/echo', (req, res) => void res.json(req.body));
    app.use('/api', expressMiddleware(http), captureErrorHandler(http));
    server = createServer(app);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

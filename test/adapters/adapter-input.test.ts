import { describe, expect, it } from 'vitest';
import Fastify from 'fastify';
import { createNodeListener } from '../../adapters/node-bridge.js';
import { captureMiddleware as expressMiddleware } from '../../adapters/express.js';
import { captureMiddleware as koaMiddleware } from '../../adapters/koa.js';
import { capturePlugin } from '../../adapters/fastify.js';

/** What code written for earlier versions hands an adapter: an engine (its methods, no `handle`). */
const engineLike = { capture: async () => undefined, close: async () => undefined } as never;

describe('adapters take the HTTP service only', () => {
  it('refuse an engine, naming createCaptureHttp', async () => {
    for (const mount of [createNodeListener, expressMiddleware, koaMiddleware]) expect(() => mount(engineLike)).toThrow(/createCaptureHttp\(engine, options\)/);
    const app = Fastify();
    await expect(app.register(capturePlugin, { engine: engineLike } as never).ready()).rejects.toThrow(/createCaptureHttp\(engine, options\)/);
    await app.close();
  });
});

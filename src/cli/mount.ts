import { createServer, type Server } from 'node:http';
import type { CaptureHttp } from '../http/index.js';
import { createNodeListener } from '../../adapters/node-bridge.js';

export const ADAPTER_NAMES = ['node', 'express', 'fastify', 'koa'] as const;
export type AdapterName = (typeof ADAPTER_NAMES)[number];

export function isAdapterName(value: string): value is AdapterName {
  return (ADAPTER_NAMES as readonly string[]).includes(value);
}

/** The HTTP service mounted with `adapter`, listening on `host:port`. Frameworks load only when chosen. */
export async function listen(http: CaptureHttp, adapter: AdapterName, port: number, host: string): Promise<Server> {
  if (adapter === 'fastify') {
    const { default: Fastify } = await framework('fastify', () => import('fastify'));
    const { captureFrameworkErrors, capturePlugin } = await import('../../adapters/fastify.js');
    const app = Fastify({ requestTimeout: 60_000, frameworkErrors: captureFrameworkErrors(http) });
    await app.register(capturePlugin, { http });
    await app.listen({ port, host });
    return app.server;
  }
  const server = createServer(await listener(http, adapter));
  // Receiving a request must be quick (slow-loris guard); answering a long video may take minutes.
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return server;
}

async function listener(http: CaptureHttp, adapter: Exclude<AdapterName, 'fastify'>): Promise<Parameters<typeof createServer>[1]> {
  if (adapter === 'koa') {
    const { default: Koa } = await framework('koa', () => import('koa'));
    const { captureMiddleware } = await import('../../adapters/koa.js');
    const app = new Koa();
    app.use(captureMiddleware(http));
    return app.callback();
  }
  if (adapter === 'express') {
    const { default: express } = await framework('express', () => import('express'));
    const { captureMiddleware } = await import('../../adapters/express.js');
    const app = express();
    app.disable('x-powered-by');
    app.use(captureMiddleware(http));
    return app;
  }
  return createNodeListener(http);
}

/**
 * A framework is an optional peer of the package: one that is not installed is named, with the
 * command that installs it, instead of Node's "Cannot find package".
 */
export async function framework<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND' || !String((error as Error).message).includes(`'${name}'`)) throw error;
    throw new Error(`--adapter ${name} needs the ${name} package, an optional peer of capture-engine: install it beside it (npm install ${name}), or use --adapter node, which needs none`);
  }
}

import type { Server } from 'node:http';
import { parseArgs } from 'node:util';
import { createCaptureEngine } from '../create-capture-engine.js';
import type { CaptureEngine } from '../core/engine.js';
import { createCaptureHttp, createMemoryKeyStore, isTierName, redisLimiterStore, type CaptureHttpOptions, type LimiterStore, type MemoryKeyStore } from '../http/index.js';
import type { CaptureEngineOptions } from '../engine-options.js';
import { baseOptions } from './engine-options.js';
import { isAdapterName, listen, type AdapterName } from './mount.js';

/** `capture-engine serve`: the HTTP service on its own port, until SIGTERM/SIGINT drains it. */
export async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string', default: '0.0.0.0' },
      adapter: { type: 'string', default: 'node' },
      'storage-dir': { type: 'string' },
      'allow-private-networks': { type: 'boolean' },
    },
  });
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  const host = values.host ?? '0.0.0.0';
  // A standalone service has no routes of its own, so by default it needs no framework: bare
  // node:http is the cheapest way to answer (and to turn requests away).
  const adapter = values.adapter ?? 'node';
  if (!isAdapterName(adapter)) throw new Error(`--adapter must be node, express, fastify or koa, not ${adapter}`);
  const httpOptions: CaptureHttpOptions = { keyStore: keyStoreFromEnv(), limiterStore: await redisStoreFromEnv() };

  const service = startService(baseOptions(values['allow-private-networks'], values['storage-dir']), httpOptions, adapter, port, host);
  // Listening from the start: a signal while Chromium launches must still close it and remove
  // its profile, which the default (dying at once) would leave behind.
  const shutdown = (): void => {
    process.stdout.write('shutting down: finishing running captures\n');
    void service.then(({ server, engine }) => drain(server, engine), () => undefined).then(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  const { capturePath } = await service;
  process.stdout.write(`capture-engine listening on http://${host}:${port}${capturePath} (${adapter})\n`);
}

/** Keys from `CAPTURE_API_KEYS`, or one FREE key made for this run and shown once. */
function keyStoreFromEnv(): MemoryKeyStore {
  const keyStore = createMemoryKeyStore();
  const configured = (process.env.CAPTURE_API_KEYS ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  for (const entry of configured) {
    const separator = entry.lastIndexOf(':');
    const tier = entry.slice(separator + 1).toUpperCase();
    if (separator <= 0 || !isTierName(tier)) throw new Error('CAPTURE_API_KEYS entries must look like <key>:<FREE|BASIC|PRO|ENTERPRISE>');
    keyStore.add(entry.slice(0, separator), tier);
  }
  if (configured.length === 0) {
    const { key } = keyStore.create('FREE');
    // Shown once, on the terminal only; it is stored hashed and never logged.
    process.stdout.write(`No CAPTURE_API_KEYS set; created a FREE key for this run: ${key}\n`);
  }
  return keyStore;
}

async function redisStoreFromEnv(): Promise<LimiterStore | undefined> {
  const url = process.env.CAPTURE_REDIS_URL;
  if (!url) return undefined;
  const { Redis } = await import('ioredis');
  return redisLimiterStore(new Redis(url, { enableOfflineQueue: false }));
}

/** The engine, mounted and listening; an engine whose server cannot listen is closed again. */
async function startService(
  options: CaptureEngineOptions,
  httpOptions: CaptureHttpOptions,
  adapter: AdapterName,
  port: number,
  host: string,
): Promise<{ server: Server; engine: CaptureEngine; capturePath: string }> {
  const engine = await createCaptureEngine(options);
  try {
    const http = createCaptureHttp(engine, httpOptions);
    return { server: await listen(http, adapter, port, host), engine, capturePath: http.routes.capture };
  } catch (error) {
    await engine.close();
    throw error;
  }
}

/**
 * Stops accepting connections, lets running captures finish and their responses flush, then
 * closes what is left. Kept-alive idle connections are closed as they become idle.
 */
async function drain(server: Server, engine: CaptureEngine, graceMs = 10_000): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sweeper = setInterval(() => server.closeIdleConnections(), 100);
  await engine.close();
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
  clearInterval(sweeper);
  server.closeAllConnections();
}

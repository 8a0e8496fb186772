#!/usr/bin/env node
import { createServer, type Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createWriteStream } from 'node:fs';
import { parseArgs } from 'node:util';
import { createCaptureEngine, type CaptureEngine } from './engine.js';
import type { CaptureEngineOptions } from './options.js';
import { createMemoryKeyStore } from '../plugins/auth/index.js';
import { isTierName, redisLimiterStore, type LimiterStore } from '../plugins/policy/index.js';
import { isCaptureError } from './errors.js';
import { createNodeListener } from '../adapters/node-bridge.js';

const USAGE = `capture-engine: screenshots and videos of web pages

  capture-engine serve [--port 3000] [--host 0.0.0.0] [--adapter node|express|fastify|koa] [--storage-dir DIR]
                       [--allow-private-networks]
  capture-engine shot <url> -o <file> [--format png] [--width 1920] [--height 1080] [--full-page]
                       [--quality 90] [--wait-until domcontentloaded] [--delay 0] [--hide-selectors CSS]
                       [--block-ads] [--block-cookies] [--scenario static|scroll|record] [--duration 5]

Environment: PORT, CAPTURE_API_KEYS="<key>:<TIER>,...", CAPTURE_ALLOW_PRIVATE_NETWORKS=true,
CAPTURE_CHROMIUM_PATH, CAPTURE_FFMPEG_PATH, CAPTURE_STORAGE_DIR, CAPTURE_REDIS_URL.`;

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'serve') return serve(rest);
  if (command === 'shot') return shot(rest);
  process.stdout.write(`${USAGE}\n`);
  if (command !== undefined && command !== 'help' && command !== '--help') process.exitCode = 2;
}

function baseOptions(allowPrivate: boolean | undefined, storageDir: string | undefined): CaptureEngineOptions {
  return {
    allowPrivateNetworks: allowPrivate === true || process.env.CAPTURE_ALLOW_PRIVATE_NETWORKS === 'true',
    storageDir: storageDir ?? process.env.CAPTURE_STORAGE_DIR,
  };
}

async function serve(args: string[]): Promise<void> {
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
  // A standalone service has no routes of its own, so by default it needs no framework: bare
  // node:http is the cheapest way to answer (and to turn requests away).
  const adapter = values.adapter ?? 'node';
  if (!['node', 'express', 'fastify', 'koa'].includes(adapter)) throw new Error(`--adapter must be node, express, fastify or koa, not ${adapter}`);

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

  const service = startService(
    { ...baseOptions(values['allow-private-networks'], values['storage-dir']), keyStore, limiterStore: await redisStoreFromEnv() },
    adapter,
    port,
    values.host ?? '0.0.0.0',
  );
  // Listening from the start: a signal while Chromium launches must still close it and remove
  // its profile, which the default (dying at once) would leave behind.
  const shutdown = (): void => {
    process.stdout.write('shutting down: finishing running captures\n');
    void service.then(({ server, engine }) => drain(server, engine), () => undefined).then(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  await service;
  process.stdout.write(`capture-engine listening on http://${values.host}:${port}/api/v1/capture (${adapter})\n`);
}

/** The engine, mounted and listening; an engine whose server cannot listen is closed again. */
async function startService(options: CaptureEngineOptions, adapter: string, port: number, host: string): Promise<{ server: Server; engine: CaptureEngine }> {
  const engine = await createCaptureEngine(options);
  try {
    return { server: await listen(engine, adapter, port, host), engine };
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

async function redisStoreFromEnv(): Promise<LimiterStore | undefined> {
  const url = process.env.CAPTURE_REDIS_URL;
  if (!url) return undefined;
  const { Redis } = await import('ioredis');
  return redisLimiterStore(new Redis(url, { enableOfflineQueue: false }));
}

async function listen(engine: CaptureEngine, adapter: string, port: number, host: string): Promise<Server> {
  let server: Server;
  if (adapter === 'fastify') {
    const { default: Fastify } = await import('fastify');
    const { capturePlugin } = await import('../adapters/fastify.js');
    const app = Fastify({ requestTimeout: 60_000 });
    await app.register(capturePlugin, { engine });
    await app.listen({ port, host });
    return app.server;
  }
  if (adapter === 'koa') {
    const { default: Koa } = await import('koa');
    const { captureMiddleware } = await import('../adapters/koa.js');
    const app = new Koa();
    app.use(captureMiddleware(engine));
    server = createServer(app.callback());
  } else if (adapter === 'node') {
    server = createServer(createNodeListener(engine));
  } else {
    const { default: express } = await import('express');
    const { captureMiddleware } = await import('../adapters/express.js');
    const app = express();
    app.disable('x-powered-by');
    app.use(captureMiddleware(engine));
    server = createServer(app);
  }
  // Receiving a request must be quick (slow-loris guard); answering a long video may take minutes.
  server.requestTimeout = 60_000;
  server.headersTimeout = 30_000;
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, host, resolve));
  return server;
}

async function shot(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      output: { type: 'string', short: 'o' },
      format: { type: 'string' },
      width: { type: 'string' },
      height: { type: 'string' },
      'full-page': { type: 'boolean' },
      quality: { type: 'string' },
      'wait-until': { type: 'string' },
      delay: { type: 'string' },
      'hide-selectors': { type: 'string' },
      'block-ads': { type: 'boolean' },
      'block-cookies': { type: 'boolean' },
      scenario: { type: 'string' },
      duration: { type: 'string' },
      'allow-private-networks': { type: 'boolean' },
      'storage-dir': { type: 'string' },
    },
  });
  const url = positionals[0];
  if (!url || !values.output) throw new Error('usage: capture-engine shot <url> -o <file> [options]');
  const engine = await createCaptureEngine(baseOptions(values['allow-private-networks'], values['storage-dir']));
  try {
    const result = await engine.capture({
      url,
      format: values.format,
      viewport_width: values.width,
      viewport_height: values.height,
      full_page: values['full-page'],
      quality: values.quality,
      wait_until: values['wait-until'],
      delay: values.delay,
      hide_selectors: values['hide-selectors'],
      block_ads: values['block-ads'],
      block_cookies: values['block-cookies'],
      scenario: values.scenario,
      duration: values.duration,
    });
    if (result.data) await writeFile(values.output, result.data);
    else await pipeline(result.stream(), createWriteStream(values.output));
    await result.dispose();
    process.stdout.write(`${values.output}: ${result.format}, ${result.size} bytes\n`);
  } finally {
    await engine.close();
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  const message = isCaptureError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
  process.stderr.write(`capture-engine: ${message}\n`);
  process.exit(1);
});

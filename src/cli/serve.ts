import type { Server } from 'node:http';
import { parseArgs } from 'node:util';
import { createCaptureEngine } from '../create-capture-engine.js';
import type { CaptureEngine } from '../core/engine.js';
import { createCaptureHttp } from '../http/index.js';
import { startMetricsServer } from '../ops/index.js';
import { baseOptions } from './options-from-env.js';
import { isAdapterName, listen, type AdapterName } from './mount.js';
import { serviceSetup, type ServiceSetup } from './service-setup.js';
import { startWorker, type CaptureWorker } from './worker.js';
import { onShutdownSignal } from './shutdown-signal.js';

interface RunningService {
  server: Server;
  engine: CaptureEngine;
  /** With `--worker`: asynchronous captures run in this process too. */
  worker?: CaptureWorker;
  metricsServer?: Server;
  capturePath: string;
  playgroundPath: string | undefined;
}

/** `capture-engine serve`: the HTTP service on its own port, until SIGTERM/SIGINT drains it. */
export async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      adapter: { type: 'string' },
      'storage-dir': { type: 'string' },
      'allow-private-networks': { type: 'boolean' },
      'metrics-port': { type: 'string' },
      worker: { type: 'boolean' },
    },
  });
  const port = Number(values.port ?? process.env.PORT ?? 3000);
  const host = values.host ?? process.env.HOST ?? '0.0.0.0';
  // A standalone service has no routes of its own, so by default it needs no framework: bare
  // node:http is the cheapest way to answer (and to turn requests away).
  const adapter = values.adapter ?? process.env.CAPTURE_ADAPTER ?? 'node';
  if (!isAdapterName(adapter)) throw new Error(`--adapter must be node, express, fastify or koa, not ${adapter}`);
  const setup = await serviceSetup(baseOptions(values['allow-private-networks'], values['storage-dir']), values['metrics-port']);
  if (values.worker && !setup.jobs) throw new Error('--worker runs asynchronous captures, which need Redis: set CAPTURE_REDIS_URL');

  const service = startService(setup, adapter, port, host, values.worker === true);
  // Listening from the start: a signal while Chromium launches must still close it and remove
  // its profile, which the default (dying at once) would leave behind.
  const shutdown = (): void => {
    process.stdout.write('shutting down: finishing running captures\n');
    void service
      .then((running) => drain(running), () => undefined)
      .then(() => setup.close())
      .then(() => process.exit(0));
  };
  onShutdownSignal(shutdown);
  const { capturePath, playgroundPath, metricsServer } = await service;
  process.stdout.write(`capture-engine listening on http://${host}:${port}${capturePath} (${adapter})\n`);
  if (playgroundPath) process.stdout.write(`playground on http://${host}:${port}${playgroundPath}\n`);
  if (metricsServer) process.stdout.write(`metrics on http://${host}:${setup.metrics?.port}/metrics\n`);
}

/** The engine, mounted and listening; an engine whose server cannot listen is closed again. */
async function startService(setup: ServiceSetup, adapter: AdapterName, port: number, host: string, withWorker: boolean): Promise<RunningService> {
  const engine = await createCaptureEngine(setup.engineOptions);
  try {
    const worker = withWorker && setup.jobs ? await startWorker(engine, setup.jobs.workerOptions(setup.engineOptions.concurrency)) : undefined;
    const http = createCaptureHttp(engine, setup.httpOptions);
    const server = await listen(http, adapter, port, host);
    let metricsServer: Server | undefined;
    if (setup.metrics) {
      setup.metrics.metrics.watch(() => engine.stats);
      metricsServer = await startMetricsServer(setup.metrics.metrics.registry, setup.metrics.port, host, () => http.ready(true));
    }
    return { server, engine, worker, metricsServer, capturePath: http.routes.capture, playgroundPath: http.routes.playground?.pages[0] };
  } catch (error) {
    await engine.close();
    throw error;
  }
}

/**
 * Stops accepting connections, lets running captures finish and their responses flush, then
 * closes what is left. Kept-alive idle connections are closed as they become idle.
 */
async function drain({ server, engine, worker, metricsServer }: RunningService, graceMs = 10_000): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  const sweeper = setInterval(() => server.closeIdleConnections(), 100);
  await worker?.close();
  await engine.close();
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, graceMs).unref())]);
  clearInterval(sweeper);
  server.closeAllConnections();
  metricsServer?.closeAllConnections();
  metricsServer?.close();
}

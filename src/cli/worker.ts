import { parseArgs } from 'node:util';
import { createCaptureEngine } from '../create-capture-engine.js';
import type { CaptureEngine } from '../core/engine.js';
import type { CaptureWorker, CaptureWorkerOptions } from '../jobs/index.js';
import { baseOptions, positiveIntegerEnv } from './options-from-env.js';
import { serviceSetup } from './service-setup.js';
import { onShutdownSignal } from './shutdown-signal.js';

export type { CaptureWorker } from '../jobs/index.js';

/** Runs asynchronous captures on `engine`; BullMQ loads only here. */
export async function startWorker(engine: CaptureEngine, options: CaptureWorkerOptions): Promise<CaptureWorker> {
  const { startCaptureWorker } = await import('../jobs/index.js');
  return startCaptureWorker(engine, options);
}

/**
 * `capture-engine worker`: takes asynchronous captures from the queue in Redis and runs them on an
 * engine of its own, until SIGTERM/SIGINT, which lets the running ones finish first.
 */
export async function worker(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      concurrency: { type: 'string' },
      'storage-dir': { type: 'string' },
      'allow-private-networks': { type: 'boolean' },
    },
  });
  const setup = await serviceSetup(baseOptions(values['allow-private-networks'], values['storage-dir']), undefined, { keys: false });
  if (!setup.jobs) throw new Error('the worker takes captures from a queue in Redis: set CAPTURE_REDIS_URL');
  const concurrency = values.concurrency === undefined ? setup.engineOptions.concurrency : positiveIntegerEnv('concurrency', { concurrency: values.concurrency });
  const engine = await createCaptureEngine({ ...setup.engineOptions, concurrency });
  const running = await startWorker(engine, setup.jobs.workerOptions(concurrency)).catch(async (error: unknown) => {
    await engine.close();
    throw error;
  });
  const shutdown = (): void => {
    process.stdout.write('shutting down: finishing running captures\n');
    void running
      .close()
      .then(() => engine.close())
      .then(() => setup.close())
      .then(() => process.exit(0));
  };
  onShutdownSignal(shutdown);
  process.stdout.write(`capture-engine worker ready (concurrency ${concurrency ?? 'default'})\n`);
}

import { consoleLogger } from '../core/logger.js';
import { createMemoryKeyStore, isTierName, redisLimiterStore, type CaptureHttpOptions, type MemoryKeyStore, type ReadinessCheck } from '../http/index.js';
import { createCaptureMetrics, type CaptureMetrics } from '../ops/index.js';
import type { CaptureEngineOptions } from '../engine-options.js';

/** What `serve` builds from its flags and the environment, and what it must close at the end. */
export interface ServiceSetup {
  engineOptions: CaptureEngineOptions;
  httpOptions: CaptureHttpOptions;
  /** With `--metrics-port` / `CAPTURE_METRICS_PORT`. */
  metrics?: { metrics: CaptureMetrics; port: number };
  /** Closes the stores (Redis), after the engine has drained. */
  close(): Promise<void>;
}

const LOG_LEVELS = ['info', 'warn', 'error'] as const;

export async function serviceSetup(engineOptions: CaptureEngineOptions, metricsPort: string | undefined, env: NodeJS.ProcessEnv = process.env): Promise<ServiceSetup> {
  const level = env.CAPTURE_LOG_LEVEL ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`CAPTURE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${level}`);
  const log = consoleLogger(level as (typeof LOG_LEVELS)[number]);
  const readiness: ReadinessCheck[] = [];
  const closers: (() => Promise<unknown>)[] = [];
  const httpOptions: CaptureHttpOptions = { keyStore: keyStoreFromEnv(env), healthRoutes: true, readiness, log };

  if (env.CAPTURE_REDIS_URL) {
    const { Redis } = await import('ioredis');
    const redis = new Redis(env.CAPTURE_REDIS_URL, { enableOfflineQueue: false });
    redis.on('error', () => undefined); // readiness reports it; a log line per retry would flood
    httpOptions.limiterStore = redisLimiterStore(redis);
    readiness.push({ name: 'redis', check: async () => void (await redis.ping()) });
    closers.push(() => redis.quit().catch(() => redis.disconnect()));
  }

  const port = metricsPort ?? env.CAPTURE_METRICS_PORT;
  const metrics = port === undefined ? undefined : { metrics: createCaptureMetrics(), port: Number(port) };
  if (metrics) httpOptions.observer = metrics.metrics.httpObserver;
  return {
    engineOptions: { ...engineOptions, log, observer: metrics?.metrics.engineObserver },
    httpOptions,
    metrics,
    close: async () => {
      await Promise.all(closers.map((close) => close()));
    },
  };
}

/** Keys from `CAPTURE_API_KEYS`, or one FREE key made for this run and shown once. */
function keyStoreFromEnv(env: NodeJS.ProcessEnv): MemoryKeyStore {
  const keyStore = createMemoryKeyStore();
  const configured = (env.CAPTURE_API_KEYS ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
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

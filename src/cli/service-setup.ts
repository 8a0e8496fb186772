import { consoleLogger } from '../core/telemetry/logger.js';
import type { CaptureStorage } from '../core/storage.js';
import { createMemoryKeyStore, createPolicy, isTierName, redisLimiterStore, type KeyStore, type TierName } from '../access/index.js';
import { redisCacheIndex, redisIdempotencyStore, type CaptureHttpOptions, type ReadinessCheck } from '../http/index.js';
import { createCaptureMetrics, startTracing, type CaptureMetrics } from '../ops/index.js';
import type { CaptureEngineOptions } from '../capture-engine-options.js';
import type { Redis } from 'ioredis';
import { firstKnown, managedKeyStoreFromEnv } from './key-stores.js';
import { jobsSetupFromEnv, type JobsSetup } from './jobs-setup.js';
import { positiveIntegerEnv } from './options-from-env.js';

/** What `serve` builds from its flags and the environment, and what it must close at the end. */
export interface ServiceSetup {
  engineOptions: CaptureEngineOptions;
  httpOptions: CaptureHttpOptions;
  /** With `--metrics-port` / `CAPTURE_METRICS_PORT`. */
  metrics?: { metrics: CaptureMetrics; port: number };
  /** With `CAPTURE_REDIS_URL`: asynchronous captures (the HTTP service queues them, workers run them). */
  jobs?: JobsSetup;
  /** Closes the stores (Redis), after the engine has drained. */
  close(): Promise<void>;
}

const LOG_LEVELS = ['info', 'warn', 'error'] as const;

/**
 * Everything but the engine and the server. `keys: false` (a worker, which answers no requests)
 * skips the key stores.
 */
export async function serviceSetup(
  engineOptions: CaptureEngineOptions,
  metricsPort: string | undefined,
  { keys = true, env = process.env }: { keys?: boolean; env?: NodeJS.ProcessEnv } = {},
): Promise<ServiceSetup> {
  const level = env.CAPTURE_LOG_LEVEL ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(level)) throw new Error(`CAPTURE_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, not ${level}`);
  const log = consoleLogger(level as (typeof LOG_LEVELS)[number]);
  const stopTracing = await startTracing(keys ? 'service' : 'worker');
  const readiness: ReadinessCheck[] = [];
  const closers: (() => Promise<unknown>)[] = stopTracing ? [stopTracing] : [];
  let redis: Redis | undefined;
  const connectRedis = async (): Promise<Redis> => {
    if (redis) return redis;
    const { Redis } = await import('ioredis');
    const client = new Redis(env.CAPTURE_REDIS_URL as string, { enableOfflineQueue: false });
    client.on('error', () => undefined); // readiness reports it; a log line per retry would flood
    readiness.push({ name: 'redis', check: async () => void (await client.ping()) });
    closers.push(() => client.quit().catch(() => client.disconnect()));
    redis = client;
    return client;
  };
  const maxLoad = env.CAPTURE_READY_MAX_LOAD;
  if (maxLoad !== undefined && !(Number(maxLoad) > 0)) throw new Error(`CAPTURE_READY_MAX_LOAD must be a positive number (load per core), not ${maxLoad}`);
  const httpOptions: CaptureHttpOptions = {
    healthRoutes: true,
    // A standalone service owns its root: the playground is its front page unless turned off.
    playground: env.CAPTURE_PLAYGROUND === 'false' ? false : 'root',
    strictParams: env.CAPTURE_STRICT_PARAMS === 'true',
    readiness,
    log,
    uploadLimits: { fileBytes: positiveIntegerEnv('CAPTURE_UPLOAD_FILE_BYTES', env), totalBytes: positiveIntegerEnv('CAPTURE_UPLOAD_TOTAL_BYTES', env), files: positiveIntegerEnv('CAPTURE_UPLOAD_FILES', env) },
    ...(maxLoad === undefined ? {} : { pressure: { maxLoadPerCore: Number(maxLoad) } }),
  };
  if (keys) {
    const managed = await managedKeyStoreFromEnv(env, connectRedis);
    if (managed) closers.push(() => managed.close());
    if (env.CAPTURE_ALLOW_WEAK_KEYS === 'true') log.warn({}, 'CAPTURE_ALLOW_WEAK_KEYS=true: operator keys under 128 bits are accepted, which is for tests only');
    const operatorKeys = await keyStoreFromEnv(env, managed === undefined);
    httpOptions.keyStore = managed ? firstKnown([operatorKeys, managed]) : operatorKeys;
  }
  let jobs: JobsSetup | undefined;
  if (env.CAPTURE_REDIS_URL) {
    // One policy for the service and its workers: a failed asynchronous capture's refund lands
    // in the same counters its reservation came from.
    const client = await connectRedis();
    const policy = createPolicy({ store: redisLimiterStore(client) });
    httpOptions.policy = policy;
    // Every instance shares the cache's entries and its claims: one capture per missing entry.
    httpOptions.cache = { index: redisCacheIndex(client) };
    // A retry that reaches another instance gets the first answer too.
    httpOptions.idempotency = { store: redisIdempotencyStore(client) };
    jobs = jobsSetupFromEnv(env, { allowPrivateNetworks: engineOptions.allowPrivateNetworks === true, allowAddress: engineOptions.allowAddress }, policy.refund);
    if (keys) {
      const { createCaptureJobs } = await import('../jobs/index.js');
      const queue = createCaptureJobs(jobs.options);
      httpOptions.asyncCaptures = queue;
      closers.push(() => queue.close());
    }
  }

  const storage = await s3StorageFromEnvIfSet(env);
  if (storage) {
    // A key that is never stored: a reachable bucket answers "not found", a storage that is down throws.
    readiness.push({ name: 'storage', check: async () => void (await storage.get('readyz/probe.png')) });
  }

  const port = metricsPort ?? env.CAPTURE_METRICS_PORT;
  const metrics = port === undefined ? undefined : { metrics: createCaptureMetrics(), port: Number(port) };
  if (metrics) httpOptions.observer = metrics.metrics.httpObserver;
  return {
    engineOptions: { ...engineOptions, log, observer: metrics?.metrics.engineObserver, ...(storage ? { storage } : {}) },
    httpOptions,
    metrics,
    jobs,
    close: async () => {
      await Promise.all(closers.map((close) => close()));
    },
  };
}

/**
 * Keys from `CAPTURE_API_KEYS`; without them and without managed keys, one FREE key made for this
 * run and shown once. Keys under 128 bits stop the start unless `CAPTURE_ALLOW_WEAK_KEYS=true`.
 */
async function keyStoreFromEnv(env: NodeJS.ProcessEnv, makeOneIfNone: boolean): Promise<KeyStore> {
  const configured = (env.CAPTURE_API_KEYS ?? '').split(',').map((entry) => entry.trim()).filter(Boolean);
  const keys = configured.map((entry): { key: string; tier: TierName } => {
    const separator = entry.lastIndexOf(':');
    const tier = entry.slice(separator + 1).toUpperCase();
    if (separator <= 0 || !isTierName(tier)) throw new Error('CAPTURE_API_KEYS entries must look like <key>:<FREE|BASIC|PRO|ENTERPRISE>');
    return { key: entry.slice(0, separator), tier };
  });
  const linkIdSecret = env.CAPTURE_LINK_ID_SECRET || undefined;
  const keyStore = createMemoryKeyStore(keys, { source: 'CAPTURE_API_KEYS', linkIdSecret, allowWeakOperatorKeys: env.CAPTURE_ALLOW_WEAK_KEYS === 'true' });
  if (linkIdSecret !== undefined) {
    // Ids keyed with a secret cannot be derived from the key alone: whoever signs links needs them.
    for (const [index, { key, tier }] of keys.entries()) {
      process.stdout.write(`render links of CAPTURE_API_KEYS entry ${index + 1} (${tier}) name it key=${(await keyStore.lookup(key))?.id}\n`);
    }
  }
  if (keys.length === 0 && makeOneIfNone) {
    const { key } = await keyStore.create('FREE');
    // Shown once, on the terminal only; it is stored hashed and never logged.
    process.stdout.write(`No CAPTURE_API_KEYS set; created a FREE key for this run: ${key}\n`);
  }
  return keyStore;
}

/** S3-compatible storage when `CAPTURE_S3_BUCKET` is set; the AWS SDK is loaded only then. */
async function s3StorageFromEnvIfSet(env: NodeJS.ProcessEnv): Promise<CaptureStorage | undefined> {
  if (!env.CAPTURE_S3_BUCKET) return undefined;
  const { s3StorageFromEnv } = await import('../storage/s3-storage.js');
  return s3StorageFromEnv(env);
}

import type { CaptureStorage } from '../core/storage.js';
import type { Logger } from '../core/telemetry/logger.js';
import { positive } from '../core/options.js';
import type { KeyStore } from '../access/keys/api-key.js';
import { createMemoryKeyStore } from '../access/keys/memory-key-store.js';
import type { LimiterStore } from '../access/limiter-store.js';
import { createPolicy, type LinkLimits, type Policy } from '../access/policy.js';
import type { TierLimits, TierName } from '../access/tiers.js';
import { DEFAULT_BASE_PATH, routeTable, type RouteTable } from './routes.js';
import type { HttpObserver, ReadinessCheck } from './http-observer.js';
import type { PressureLimits } from './health-routes.js';
import type { AsyncCaptures } from './async-captures-port.js';
import { memoryCacheIndex, type CacheIndex } from './cache/cache-index.js';
import { ResultCache } from './cache/result-cache.js';
import { memoryIdempotencyStore, type IdempotencyStore } from './idempotency/idempotency-store.js';
import type { IdempotencySettings } from './idempotency/idempotent-answer.js';
import { parsedParamsMemo } from './parsed-params-memo.js';
import { UPLOAD_DEFAULTS, type UploadLimits } from './multipart-body.js';

/** The result cache of `cache=true` requests and render links. */
export interface ResultCacheOptions {
  /** Which captures are cached and who is capturing one; Redis (`redisCacheIndex`) to share them between instances. @default in memory */
  index?: CacheIndex;
  /** Bytes of small cached files kept in this process, so a hit reads no storage. @default 67108864 (64 MiB) */
  memoryBytes?: number;
}

/** Every option of `createCaptureHttp`. All are optional. */
export interface CaptureHttpOptions {
  /** Path under which the interface lives (`{basePath}/v1/capture`, `{basePath}/files/...`). @default '/api' */
  basePath?: string;
  /** Largest POST body in bytes (JSON and forms; uploads have `uploadLimits`). @default 65536 */
  bodyLimit?: number;
  /**
   * Refuse a capture request with a name that is no capture parameter (`400 INVALID_PARAMETER` naming
   * it), as `strict=true` does for one request; a request's `strict=false` still reads leniently.
   * Either way, unknown names are answered with a `Capture-Warning` header. @default false
   */
  strictParams?: boolean;
  /** Largest `POST {basePath}/v1/bulk` body in bytes: a batch of 1,000 items needs more than one capture. @default 4 MiB */
  bulkBodyLimit?: number;
  /** Limits of `multipart/form-data` uploads (documents and their assets). @default { fileBytes: 10 MiB, totalBytes: 50 MiB, files: 100 } */
  uploadLimits?: Partial<UploadLimits>;
  /**
   * Keys accepted by the in-memory key store. Each must be estimated at 128 bits or more (length ×
   * log2 of the character classes it uses): `openssl rand -hex 32` makes one. @example [{ key: process.env.API_KEY, tier: 'PRO' }]
   */
  apiKeys?: { key: string; tier: TierName }[];
  /**
   * A secret (128 bits or more) the ids of `apiKeys` in render links are derived with, so that a
   * public link tells nothing of its key; the same on every instance. Changing it changes the ids:
   * earlier links of these keys stop working and their quotas start again. @default none: ids are a truncated SHA-256 of the key
   */
  linkIdSecret?: string;
  /** For tests only: accept `apiKeys` (and a `linkIdSecret`) estimated under 128 bits. @default false */
  allowWeakOperatorKeys?: boolean;
  /** Key store; replaces the in-memory one. */
  keyStore?: KeyStore;
  /** Per-tier overrides of the default tiers. @example { FREE: { requestsPerMinute: 10 } } */
  tiers?: Partial<Record<TierName, Partial<TierLimits>>>;
  /** Where rate limits and quotas are counted. @default in memory (use the Redis store for several instances) */
  limiterStore?: LimiterStore;
  /**
   * Fetches a minute of public render links, counted in `limiterStore` apart from every API limit:
   * per link, and per client address. @default { perLink: 600, perAddress: 120 }
   */
  linkLimits?: Partial<LinkLimits>;
  /** Keys, tiers and limits decided elsewhere; replaces `tiers`, `limiterStore` and `linkLimits`. */
  policy?: Policy;
  /** Where stored files are read from. @default the engine's storage */
  storage?: CaptureStorage;
  /** @default the engine's logger */
  log?: Logger;
  /** Told about every answered request (metrics). */
  observer?: HttpObserver;
  /**
   * Answer `GET /healthz` (alive) and `GET /readyz` (browser connected, `readiness` checks pass) at
   * the root. Off by default, so a mounted service leaves an app's own health routes alone.
   * @default false
   */
  healthRoutes?: boolean;
  /**
   * Serve the playground: a page that builds requests from the OpenAPI schema, sends them with a key
   * the user types, previews the file and shows the same request as curl, a client call and a render
   * link. `true` serves it at `{basePath}/playground`, `'root'` at `/` as well (what `npm start` does).
   * Off by default, so a mounted service adds no page to an app.
   * @default false
   */
  playground?: boolean | 'root';
  /** What must work for `/readyz` besides the browser (stores, Redis). @default [] */
  readiness?: ReadinessCheck[];
  /**
   * When `/readyz` calls the instance too loaded to take captures, besides a full queue: the
   * machine's 1-minute load average per core above `maxLoadPerCore`, or less than
   * `minFreeMemoryShare` of its memory available. @default { minFreeMemoryShare: 0.05 } (no load limit)
   */
  pressure?: PressureLimits;
  /** The job queue of `async=true` captures (`createCaptureJobs` from Redis). @default none: async=true is refused */
  asyncCaptures?: AsyncCaptures;
  /** The result cache; its files live in `storage`. @default an index in memory */
  cache?: ResultCacheOptions;
  /**
   * `Idempotency-Key` on `POST /v1/capture`: where keys and their answers are kept
   * (`redisIdempotencyStore` to share them between instances), and for how long.
   * Answers over 16 KiB are kept as files of `storage` (none without one), the store holding
   * their key; `accountBytes` bounds what one account's records may hold in the store.
   * @default in memory, 24 h, 1 MiB per account
   */
  idempotency?: { store?: IdempotencyStore; ttlMs?: number; accountBytes?: number };
}

export const HTTP_DEFAULTS = Object.freeze({ bodyLimit: 64 * 1024, bulkBodyLimit: 4 * 2 ** 20, minFreeMemoryShare: 0.05, cacheMemoryBytes: 64 * 1024 * 1024, idempotencyTtlMs: 24 * 3600 * 1000, idempotencyAccountBytes: 2 ** 20 });

export interface ResolvedHttpOptions {
  routes: RouteTable;
  bodyLimit: number;
  strictParams: boolean;
  bulkBodyLimit: number;
  uploadLimits: UploadLimits;
  keyStore: KeyStore;
  policy: Policy;
  storage: CaptureStorage | undefined;
  log: Logger;
  observer: HttpObserver | undefined;
  readiness: ReadinessCheck[] | undefined;
  pressure: PressureLimits;
  asyncCaptures: AsyncCaptures | undefined;
  /** Undefined without a storage: `cache=true` is then refused. */
  cache: ResultCache | undefined;
  /** The engine's capture timeout, which bounds how long a cache fill may take. */
  captureTimeoutMs: number;
  idempotency: IdempotencySettings;
  /** A request's parameters, parsed and fitted to the caller's tier. */
  parseParams: ReturnType<typeof parsedParamsMemo>;
}

export function resolveHttpOptions(options: CaptureHttpOptions, engine: { storage: CaptureStorage | undefined; log: Logger; timeoutMs: number }): ResolvedHttpOptions {
  const storage = options.storage ?? engine.storage;
  const log = options.log ?? engine.log;
  const policy = options.policy ?? createPolicy({ tiers: options.tiers, store: options.limiterStore, linkLimits: options.linkLimits });
  const memoryBytes = options.cache?.memoryBytes ?? HTTP_DEFAULTS.cacheMemoryBytes;
  if (!(Number.isInteger(memoryBytes) && memoryBytes >= 0)) throw new TypeError(`cache.memoryBytes must be a whole number of bytes, not ${memoryBytes}`);
  return {
    routes: routeTable(options.basePath ?? DEFAULT_BASE_PATH, { health: options.healthRoutes, playground: options.playground }),
    bodyLimit: positive(options.bodyLimit ?? HTTP_DEFAULTS.bodyLimit, 'bodyLimit'),
    strictParams: yesNo(options.strictParams ?? false, 'strictParams'),
    bulkBodyLimit: positive(options.bulkBodyLimit ?? HTTP_DEFAULTS.bulkBodyLimit, 'bulkBodyLimit'),
    uploadLimits: {
      fileBytes: positive(options.uploadLimits?.fileBytes ?? UPLOAD_DEFAULTS.fileBytes, 'uploadLimits.fileBytes'),
      totalBytes: positive(options.uploadLimits?.totalBytes ?? UPLOAD_DEFAULTS.totalBytes, 'uploadLimits.totalBytes'),
      files: positive(options.uploadLimits?.files ?? UPLOAD_DEFAULTS.files, 'uploadLimits.files'),
    },
    keyStore: options.keyStore ?? createMemoryKeyStore(options.apiKeys, { linkIdSecret: options.linkIdSecret, allowWeakOperatorKeys: options.allowWeakOperatorKeys }),
    policy,
    storage,
    log,
    observer: options.observer,
    readiness: options.readiness,
    pressure: { minFreeMemoryShare: HTTP_DEFAULTS.minFreeMemoryShare, ...options.pressure },
    asyncCaptures: options.asyncCaptures,
    cache: storage && new ResultCache({ index: options.cache?.index ?? memoryCacheIndex(), storage, memoryBytes, log, now: () => Date.now() }),
    captureTimeoutMs: engine.timeoutMs,
    idempotency: {
      store: options.idempotency?.store ?? memoryIdempotencyStore(),
      ttlMs: positive(options.idempotency?.ttlMs ?? HTTP_DEFAULTS.idempotencyTtlMs, 'idempotency.ttlMs'),
      accountBytes: positive(options.idempotency?.accountBytes ?? HTTP_DEFAULTS.idempotencyAccountBytes, 'idempotency.accountBytes'),
      storage,
    },
    parseParams: parsedParamsMemo(policy.tiers),
  };
}


function yesNo(value: unknown, name: string): boolean {
  if (typeof value !== 'boolean') throw new TypeError(`Option '${name}' must be true or false, not ${JSON.stringify(value)}`);
  return value;
}

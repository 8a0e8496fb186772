import { LRUCache } from 'lru-cache';

/**
 * An answer kept for replay: status, headers, and the body: its bytes (base64) when small, else
 * the storage key of a file holding them. Never large: the store may be the Redis that keys,
 * quotas and jobs live in.
 */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body?: string;
  file?: string;
  captureId?: string;
}

/** What a key holds: a request still running under it, or the answer it got. Both with the body's fingerprint. */
export type IdempotencyRecord = { state: 'running'; fingerprint: string } | { state: 'done'; fingerprint: string; answer: StoredAnswer };

/**
 * `Idempotency-Key` records, each expiring by itself. In memory for one instance; in Redis
 * (`redisIdempotencyStore`) for several, so a retry that reaches another instance is answered the same.
 */
export interface IdempotencyStore {
  /** Records a running request under `key` for `ms`, unless the key holds something already (false). */
  begin(key: string, fingerprint: string, ms: number): Promise<boolean>;
  get(key: string): Promise<IdempotencyRecord | undefined>;
  /** Replaces the running record with the answer, kept for `ms`. */
  finish(key: string, record: IdempotencyRecord & { state: 'done' }, ms: number): Promise<void>;
  /** Frees the key: its request failed, and a retry must run again. */
  forget(key: string): Promise<void>;
  /**
   * Counts `bytes` more kept for `account` in a window of `ms` that starts with its first record,
   * unless that would pass `budget` (false, nothing counted).
   */
  charge(account: string, bytes: number, ms: number, budget: number): Promise<boolean>;
}

/** Records in this process: at most `maxEntries`, the least recently used going first. */
export function memoryIdempotencyStore({ maxEntries = 10_000 }: { maxEntries?: number } = {}): IdempotencyStore {
  const records = new LRUCache<string, IdempotencyRecord>({ max: maxEntries });
  const kept = new LRUCache<string, { bytes: number }>({ max: maxEntries });
  return {
    async begin(key, fingerprint, ms) {
      if (records.has(key)) return false;
      records.set(key, { state: 'running', fingerprint }, { ttl: ms });
      return true;
    },
    get: async (key) => records.get(key),
    async finish(key, record, ms) {
      records.set(key, record, { ttl: ms });
    },
    async forget(key) {
      records.delete(key);
    },
    async charge(account, bytes, ms, budget) {
      const counted = kept.get(account) ?? { bytes: 0 };
      if (counted.bytes + bytes > budget) return false;
      if (counted.bytes === 0) kept.set(account, counted, { ttl: ms });
      counted.bytes += bytes;
      return true;
    },
  };
}

/** The part of an ioredis client the store uses. */
export interface RedisIdempotencyClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, expiry: 'PX', ms: number): Promise<unknown>;
  set(key: string, value: string, expiry: 'PX', ms: number, mode: 'NX'): Promise<string | null>;
  del(key: string): Promise<number>;
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** INCRBY unless over the budget, with the window's expiry set by the first: one step, for every instance. */
const CHARGE = `local total = redis.call('INCRBY', KEYS[1], ARGV[1])
if total > tonumber(ARGV[3]) then redis.call('DECRBY', KEYS[1], ARGV[1]) return 0 end
if total == tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

const PREFIX = 'capture-engine:idempotency:';

/** Records in Redis, shared by every instance (`SET NX PX`: one request takes a key). */
export function redisIdempotencyStore(client: RedisIdempotencyClient): IdempotencyStore {
  return {
    begin: async (key, fingerprint, ms) => (await client.set(PREFIX + key, JSON.stringify({ state: 'running', fingerprint }), 'PX', ms, 'NX')) === 'OK',
    async get(key) {
      const text = await client.get(PREFIX + key);
      return text === null ? undefined : (JSON.parse(text) as IdempotencyRecord);
    },
    async finish(key, record, ms) {
      await client.set(PREFIX + key, JSON.stringify(record), 'PX', ms);
    },
    async forget(key) {
      await client.del(PREFIX + key);
    },
    charge: async (account, bytes, ms, budget) => (await client.eval(CHARGE, 1, `${PREFIX}bytes:${account}`, bytes, ms, budget)) === 1,
  };
}

import { randomUUID } from 'node:crypto';

/** Gives a slot back. */
export type ReleaseSlot = () => Promise<void>;

/**
 * Things in flight per key, held until given back, counted where every instance sees them: the
 * count is exact at any moment (no window that resets under requests still running).
 */
export interface SlotStore {
  /** Takes one of `limit` slots of `key`: what gives it back, or undefined when none is left. */
  take(key: string, limit: number): Promise<ReleaseSlot | undefined>;
}

/** The part of an ioredis client the slots use. */
export interface RedisSlotClient {
  eval(script: string, keys: number, ...args: (string | number)[]): Promise<unknown>;
}

/** Milliseconds on the Redis server's clock, the one clock every instance shares. */
const NOW = "local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)";

/**
 * One sorted-set entry per slot, scored by when it expires: expired entries are dropped, then a
 * slot is added only while fewer than the limit are left, in one step for every instance.
 * ARGV: limit, slot id, lifetime in ms.
 */
const TAKE = `${NOW}
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then return 0 end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[3]), ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1`;

/** Pushes a held slot's expiry on; a slot already dropped (XX) is not brought back over the limit. ARGV: slot id, lifetime in ms. */
const KEEP = `${NOW}
if redis.call('ZADD', KEYS[1], 'XX', 'CH', now + tonumber(ARGV[2]), ARGV[1]) == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1`;

const GIVE_BACK = "return redis.call('ZREM', KEYS[1], ARGV[1])";

/** A slot of an instance that stopped without giving it back is counted this long. @default 60 s */
export const DEFAULT_SLOT_LIFETIME_MS = 60_000;

/**
 * Slots in a Redis sorted set, one entry per holder, as the counting semaphore of redis-semaphore
 * (swarthy/redis-semaphore) keeps them, but scored by expiry and timed by the server's clock. Each
 * slot expires by itself `lifetimeMs` after it was last kept alive; its holder keeps it alive while
 * it runs (three times a lifetime), so a request of any length stays counted and the slots of an
 * instance that died come back within a lifetime.
 */
export function redisSlots(client: RedisSlotClient, lifetimeMs = DEFAULT_SLOT_LIFETIME_MS): SlotStore {
  return {
    async take(key, limit) {
      const id = randomUUID();
      if ((await client.eval(TAKE, 1, key, limit, id, lifetimeMs)) !== 1) return undefined;
      // A keep-alive that fails (Redis away for a moment) is tried again at the next beat; the slot
      // lapses only if every beat of a lifetime fails, and then nothing over the limit is added back.
      const beat = setInterval(() => void client.eval(KEEP, 1, key, id, lifetimeMs).catch(() => undefined), Math.max(1, Math.floor(lifetimeMs / 3)));
      beat.unref();
      return async () => {
        clearInterval(beat);
        await client.eval(GIVE_BACK, 1, key, id);
      };
    },
  };
}

import type * as RateLimiterFlexible from 'rate-limiter-flexible';
import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';
import { lazyRequire } from '../core/loading/lazy-require.js';
import { redisSlots, type RedisSlotClient, type SlotStore } from './redis-slots.js';

/** rate-limiter-flexible, loaded when the first limiter is made (about 20 ms of a cold start). */
export const rateLimiterFlexible = lazyRequire<typeof RateLimiterFlexible>('rate-limiter-flexible');

/**
 * Where rate limits and quotas are counted: a factory of rate-limiter-flexible limiters. The memory
 * store serves one process; the Redis store shares counts between instances.
 */
export interface LimiterStore {
  readonly name: string;
  create(options: LimiterOptions): RateLimiterAbstract;
  /** Things held in flight (MCP requests), shared like the counts; without it each instance counts its own. */
  readonly slots?: SlotStore;
}

export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  durationSec: number;
  /**
   * Once a key is over its limit, this process refuses it from memory until the window ends
   * instead of asking a shared store each time, so a flood from one key or address never reaches
   * Redis. Only for windows nothing is given back to: a refund could not lift the block.
   */
  refuseFromMemoryWhenOver?: boolean;
}

/**
 * The memory store keeps a timer per key; Node timers cannot run longer than about 24.8 days, so
 * month-long windows never expire here (their keys carry the month instead). Its counts are in
 * memory already, so `refuseFromMemoryWhenOver` changes nothing here.
 */
const LONGEST_MEMORY_TIMER_SEC = 20 * 24 * 3600;

export function memoryLimiterStore(): LimiterStore {
  return {
    name: 'memory',
    create: ({ keyPrefix, points, durationSec }) =>
      new (rateLimiterFlexible().RateLimiterMemory)({ keyPrefix, points, duration: durationSec > LONGEST_MEMORY_TIMER_SEC ? 0 : durationSec }),
  };
}

/**
 * Shared counts in Redis. `client` is an ioredis (or node-redis with `useRedisPackage`, whose
 * instances then count their own slots) client. `slotLifetimeMs`: how long a slot of an instance
 * that stopped stays counted (default 60 s).
 */
export function redisLimiterStore(client: unknown, options: { useRedisPackage?: boolean; slotLifetimeMs?: number } = {}): LimiterStore {
  return {
    name: 'redis',
    ...(options.useRedisPackage ? {} : { slots: redisSlots(client as RedisSlotClient, options.slotLifetimeMs) }),
    create: ({ keyPrefix, points, durationSec, refuseFromMemoryWhenOver }) =>
      new (rateLimiterFlexible().RateLimiterRedis)({
        storeClient: client,
        useRedisPackage: options.useRedisPackage,
        keyPrefix: `capture-engine:${keyPrefix}`,
        points,
        duration: durationSec,
        // rate-limiter-flexible's in-memory block: from the first refusal to the end of the window.
        ...(refuseFromMemoryWhenOver ? { inMemoryBlockOnConsumed: points + 1 } : {}),
      }),
  };
}

/** rate-limiter-flexible rejects with a RateLimiterRes when over the limit, with an Error when the store fails. */
export async function consume(limiter: RateLimiterAbstract, key: string, points = 1): Promise<{ allowed: boolean; res: RateLimiterRes }> {
  try {
    return { allowed: true, res: await limiter.consume(key, points) };
  } catch (rejection) {
    if (rejection instanceof rateLimiterFlexible().RateLimiterRes) return { allowed: false, res: rejection };
    throw rejection;
  }
}

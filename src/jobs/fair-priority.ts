import type { Redis } from 'ioredis';

/** BullMQ's lowest priority; 1 is its highest (0 would go before every prioritised job). */
const LOWEST = 2 ** 21;

/**
 * Job priorities that take accounts in turn: a capture queued while its account has k others
 * waiting or running gets priority k + 1, so every account's next capture runs before any
 * account's (k + 2)-th, and a batch of 200 does not push a lone capture behind it. BullMQ keeps
 * equal priorities in the order they came. The count lives in Redis, shared by every service
 * instance and worker, and expires with the statuses if a settlement is ever lost.
 */
export class FairPriority {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlMs: number,
  ) {}

  /** Counts `count` new captures of the account; the priorities of the first and of the next ones follow it. */
  async take(accountId: string, count = 1): Promise<(index: number) => number> {
    const key = this.key(accountId);
    const [[, pending]] = (await this.redis.multi().incrby(key, count).pexpire(key, this.ttlMs).exec()) as [[unknown, number], unknown];
    const first = pending - count + 1;
    return (index) => Math.min(LOWEST, Math.max(1, first + index));
  }

  /** One capture of the account is over (once per capture). */
  async release(accountId: string): Promise<void> {
    const left = await this.redis.decr(this.key(accountId));
    if (left <= 0) await this.redis.del(this.key(accountId));
  }

  private key(accountId: string): string {
    return `${this.prefix}:pending:${accountId}`;
  }
}

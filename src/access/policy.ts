import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import { resolveTiers, TIER_NAMES, type TierLimits, type TierName, type Tiers } from './tiers.js';
import { consume, memoryLimiterStore, type LimiterStore } from './limiter-store.js';
import { mcpSlots } from './in-flight-slots.js';
import type { ReleaseSlot } from './redis-slots.js';
import { addressKey } from './address-key.js';

/** One window of a limit as the headers show it. `resetMs` is Unix time in milliseconds. */
export interface LimitState {
  limit: number;
  remaining: number;
  resetMs: number;
}

export interface LimitDecision extends LimitState {
  allowed: boolean;
}

export interface Policy {
  readonly tiers: Tiers;
  /** Counts one request of an account at its tier's rate. */
  hitAccount(accountId: string, tier: TierName): Promise<LimitDecision>;
  /** Counts one request without a valid key, per client address (IPv6: per /64) at the FREE rate. */
  hitAddress(address: string): Promise<LimitDecision>;
  /** The account's rate window without counting a request (for reads such as file downloads). */
  peekAccount(accountId: string, tier: TierName): Promise<LimitState>;
  peekAddress(address: string): Promise<LimitState>;
  /**
   * Counts one fetch of a public render link, per link and per client address (IPv6: per /64),
   * apart from every API limit: strangers fetching a link never spend its owner's API rate. The
   * decision of the two that has the least left. A link that is not one (refused) counts for its
   * address alone.
   */
  hitLink(linkId: string | undefined, address: string): Promise<LimitDecision>;
  /** Browser time the account's captures held this hour, in seconds, against its tier's `browserSecondsPerHour`. */
  browserTime(accountId: string, tier: TierName): Promise<LimitState>;
  /** Counts `seconds` of browser time one of the account's captures held, whether it succeeded or not. */
  chargeBrowserTime(accountId: string, tier: TierName, seconds: number): Promise<void>;
  /** The account's quota this month, without using any. */
  quota(accountId: string, tier: TierName): Promise<LimitState>;
  /** Takes `count` captures (default 1) from the quota before capturing; refused (and none taken) when fewer are left. */
  reserve(accountId: string, tier: TierName, count?: number): Promise<LimitDecision>;
  /**
   * Gives back a reservation whose capture failed, to the month it was taken from (an asynchronous
   * capture may fail after the month turned). @param reservedAtMs when it was reserved; default now
   */
  refund(accountId: string, tier: TierName, reservedAtMs?: number, count?: number): Promise<void>;
  /**
   * Takes one of the key's MCP requests in flight (`mcpInFlightLimit`), counted where the limits
   * are (with Redis, across instances, held exactly while the request runs): what gives it back,
   * or undefined when none is left. Without it (the memory store), each instance counts its own.
   */
  holdMcpRequest?(accountId: string, tier: TierName): Promise<ReleaseSlot | undefined>;
}

const MONTH_WINDOW_SEC = 35 * 24 * 3600;

/** Fetches a minute of render links, apart from the API's limits. */
export interface LinkLimits {
  /** Of one link, from anywhere (an image on a busy page). @default 600 */
  perLink: number;
  /** Of any links, from one client address. @default 120 */
  perAddress: number;
}

export const LINK_LIMIT_DEFAULTS: Readonly<LinkLimits> = Object.freeze({ perLink: 600, perAddress: 120 });

/** Start of the next calendar month, UTC, in ms: when quotas reset. */
export function nextMonthStart(now = new Date()): number {
  return Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
}

/**
 * The quota month at a time, remembered until the clock leaves it: quota keys and reset times are
 * needed on every request, and formatting dates was a visible share of answering one.
 */
function monthClock(): (nowMs?: number) => { label: string; endsAt: number } {
  let month = { label: '', startsAt: 0, endsAt: 0 };
  return (nowMs = Date.now()) => {
    if (nowMs < month.startsAt || nowMs >= month.endsAt) {
      const now = new Date(nowMs);
      month = { label: now.toISOString().slice(0, 7), startsAt: Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1), endsAt: nextMonthStart(now) };
    }
    return month;
  };
}

export function createPolicy(options: { tiers?: Partial<Record<TierName, Partial<TierLimits>>>; store?: LimiterStore; linkLimits?: Partial<LinkLimits> } = {}): Policy {
  const tiers = resolveTiers(options.tiers);
  const store = options.store ?? memoryLimiterStore();
  const perTier = <T>(make: (name: TierName, limits: TierLimits) => T): Record<TierName, T> =>
    Object.fromEntries(TIER_NAMES.map((name) => [name, make(name, tiers[name])])) as Record<TierName, T>;
  const rate = perTier((name, limits) => store.create({ keyPrefix: `rate:${name}`, points: limits.requestsPerMinute, durationSec: 60, refuseFromMemoryWhenOver: true }));
  const quota = perTier((name, limits) => store.create({ keyPrefix: `quota:${name}`, points: limits.monthlyQuota, durationSec: MONTH_WINDOW_SEC }));
  const browser = perTier((name, limits) => store.create({ keyPrefix: `browser:${name}`, points: limits.browserSecondsPerHour, durationSec: 3600 }));
  const month = monthClock();
  const monthKey = (accountId: string, atMs?: number): string => `${accountId}:${month(atMs).label}`;
  const addresses = store.create({ keyPrefix: 'rate:address', points: tiers.FREE.requestsPerMinute, durationSec: 60, refuseFromMemoryWhenOver: true });
  const linkLimits = { ...LINK_LIMIT_DEFAULTS, ...options.linkLimits };
  const links = store.create({ keyPrefix: 'rate:link', points: linkLimits.perLink, durationSec: 60, refuseFromMemoryWhenOver: true });
  const linkAddresses = store.create({ keyPrefix: 'rate:link-address', points: linkLimits.perAddress, durationSec: 60, refuseFromMemoryWhenOver: true });
  const holdMcpRequest = mcpSlots(store, tiers);

  const hit = async (limiter: RateLimiterAbstract, key: string, limit: number): Promise<LimitDecision> => {
    const outcome = await consume(limiter, key);
    return {
      allowed: outcome.allowed,
      limit,
      remaining: Math.max(0, outcome.res.remainingPoints),
      resetMs: Date.now() + Math.max(0, outcome.res.msBeforeNext),
    };
  };

  const peek = async (limiter: RateLimiterAbstract, key: string, limit: number): Promise<LimitState> => {
    const res = await limiter.get(key);
    return {
      limit,
      remaining: Math.max(0, limit - (res?.consumedPoints ?? 0)),
      resetMs: Date.now() + Math.max(0, res?.msBeforeNext ?? 60_000),
    };
  };

  return {
    tiers,
    peekAccount: (accountId, tier) => peek(rate[tier], accountId, tiers[tier].requestsPerMinute),
    peekAddress: (address) => peek(addresses, addressKey(address), tiers.FREE.requestsPerMinute),
    hitAccount: (accountId, tier) => hit(rate[tier], accountId, tiers[tier].requestsPerMinute),
    hitAddress: (address) => hit(addresses, addressKey(address), tiers.FREE.requestsPerMinute),
    async hitLink(linkId, address) {
      const from = hit(linkAddresses, addressKey(address), linkLimits.perAddress);
      if (linkId === undefined) return from;
      const [link, fromAddress] = await Promise.all([hit(links, linkId, linkLimits.perLink), from]);
      const tighter = link.remaining / link.limit <= fromAddress.remaining / fromAddress.limit ? link : fromAddress;
      return { ...tighter, allowed: link.allowed && fromAddress.allowed };
    },
    async browserTime(accountId, tier) {
      const res = await browser[tier].get(accountId);
      const limit = tiers[tier].browserSecondsPerHour;
      return { limit, remaining: Math.max(0, limit - (res?.consumedPoints ?? 0)), resetMs: Date.now() + Math.max(0, res?.msBeforeNext ?? 3_600_000) };
    },
    async chargeBrowserTime(accountId, tier, seconds) {
      if (seconds > 0) await browser[tier].penalty(accountId, seconds);
    },
    async quota(accountId, tier) {
      const res = await quota[tier].get(monthKey(accountId));
      const limit = tiers[tier].monthlyQuota;
      return { limit, remaining: Math.max(0, limit - (res?.consumedPoints ?? 0)), resetMs: month().endsAt };
    },
    async reserve(accountId, tier, count = 1) {
      const key = monthKey(accountId);
      const outcome = await consume(quota[tier], key, count);
      // A refused reservation must not count, or raising the quota later would show phantom use.
      if (!outcome.allowed) await quota[tier].reward(key, count);
      const limit = tiers[tier].monthlyQuota;
      return { allowed: outcome.allowed, limit, remaining: Math.max(0, outcome.res.remainingPoints), resetMs: month().endsAt };
    },
    async refund(accountId, tier, reservedAtMs, count = 1) {
      await quota[tier].reward(monthKey(accountId, reservedAtMs), count);
    },
    ...(holdMcpRequest ? { holdMcpRequest } : {}),
  };
}

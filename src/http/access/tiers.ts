import { CaptureError } from '../../core/errors.js';
import type { CaptureParams } from '../../core/schema.js';
import { isVideoFormat } from '../../core/formats.js';

export const TIER_NAMES = ['FREE', 'BASIC', 'PRO', 'ENTERPRISE'] as const;
export type TierName = (typeof TIER_NAMES)[number];

export interface TierLimits {
  /** Requests per minute (every request with a valid key counts). */
  requestsPerMinute: number;
  /** Successful captures per calendar month (UTC). */
  monthlyQuota: number;
  /** Longest video in seconds. */
  maxDuration: number;
  /** Whether latitude/longitude may be set. */
  geolocation: boolean;
}

/** The README's tier table; every number can be overridden with the `tiers` option. */
export const DEFAULT_TIERS: Readonly<Record<TierName, TierLimits>> = Object.freeze({
  FREE: { requestsPerMinute: 20, monthlyQuota: 100, maxDuration: 10, geolocation: false },
  BASIC: { requestsPerMinute: 40, monthlyQuota: 2_000, maxDuration: 30, geolocation: false },
  PRO: { requestsPerMinute: 80, monthlyQuota: 10_000, maxDuration: 300, geolocation: true },
  ENTERPRISE: { requestsPerMinute: 150, monthlyQuota: 100_000, maxDuration: 1800, geolocation: true },
});

export type Tiers = Readonly<Record<TierName, TierLimits>>;

export function resolveTiers(overrides: Partial<Record<TierName, Partial<TierLimits>>> = {}): Tiers {
  return Object.freeze(
    Object.fromEntries(TIER_NAMES.map((name) => [name, Object.freeze({ ...DEFAULT_TIERS[name], ...overrides[name] })])) as Record<TierName, TierLimits>,
  );
}

export function isTierName(value: string): value is TierName {
  return (TIER_NAMES as readonly string[]).includes(value);
}

/** The cheapest tier that allows `allows`, for the `required` detail of TIER_RESTRICTED. */
function cheapestTier(tiers: Tiers, allows: (limits: TierLimits) => boolean): TierName | undefined {
  return TIER_NAMES.find((name) => allows(tiers[name]));
}

/** Refuses what the caller's tier does not include: geolocation below PRO, videos longer than allowed. */
export function checkTierGates(params: CaptureParams, tier: TierName, tiers: Tiers): void {
  const limits = tiers[tier];
  if (params.latitude !== undefined && !limits.geolocation) {
    throw new CaptureError('TIER_RESTRICTED', `Geolocation is not available on the ${tier} tier`, {
      details: { param: 'latitude', tier, required: cheapestTier(tiers, (t) => t.geolocation) ?? 'PRO' },
    });
  }
  if (isVideoFormat(params.format) && params.duration > limits.maxDuration) {
    throw new CaptureError('TIER_RESTRICTED', `duration ${params.duration} s exceeds the ${tier} tier maximum of ${limits.maxDuration} s`, {
      details: {
        param: 'duration',
        tier,
        required: cheapestTier(tiers, (t) => t.maxDuration >= params.duration) ?? 'ENTERPRISE',
        max: limits.maxDuration,
      },
    });
  }
}

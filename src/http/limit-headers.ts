import type { LimitState } from '../access/policy.js';

/** `X-RateLimit-*` of a rate window, written into this response's own header object. */
export function setRateHeaders(headers: Record<string, string>, state: LimitState): void {
  headers['X-RateLimit-Limit'] = String(state.limit);
  headers['X-RateLimit-Remaining'] = String(state.remaining);
  headers['X-RateLimit-Reset'] = String(state.resetMs);
}

/** `X-Quota-*` of an account's month. */
export function setQuotaHeaders(headers: Record<string, string>, state: LimitState): void {
  headers['X-Quota-Limit'] = String(state.limit);
  headers['X-Quota-Remaining'] = String(state.remaining);
}

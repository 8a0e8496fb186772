import type { ApiKey } from '../access/keys/api-key.js';
import { quotaExceeded } from './http-errors.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { setQuotaHeaders } from './limit-headers.js';

/**
 * Runs `work` on a reservation of `count` captures from the account's quota (all or none); what
 * fails before it is done gives them back.
 */
export async function withReservation<T>(options: ResolvedHttpOptions, account: ApiKey, headers: Record<string, string>, work: (reservedAt: number) => Promise<T>, count = 1): Promise<T> {
  const { policy } = options;
  const reservedAt = Date.now();
  const reservation = await policy.reserve(account.id, account.tier, count);
  setQuotaHeaders(headers, reservation);
  if (!reservation.allowed) throw quotaExceeded(reservation, count);
  try {
    return await work(reservedAt);
  } catch (error) {
    await policy.refund(account.id, account.tier, reservedAt, count);
    setQuotaHeaders(headers, { ...reservation, remaining: reservation.remaining + count });
    throw error;
  }
}

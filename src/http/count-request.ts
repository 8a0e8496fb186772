import type { LimitDecision } from '../access/policy.js';
import { addressOf, type Caller } from './caller.js';
import type { HttpRequest } from './http-types.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { setQuotaHeaders, setRateHeaders } from './limit-headers.js';

/**
 * Counts a request that may spend quota against its caller's rate limit (an account's, else its
 * address's; a render link's fetch against the link limits, `link` naming it) and writes the limit headers into `headers` first, so every answer, errors
 * included, carries them. Whether it is allowed is the caller's to act on.
 */
export async function countRequest(options: ResolvedHttpOptions, caller: Caller, request: HttpRequest, headers: Record<string, string>, link?: { id: string | undefined }): Promise<LimitDecision> {
  const { policy } = options;
  const rate =
    link !== undefined
      ? await policy.hitLink(link.id, addressOf(request))
      : caller.kind === 'account'
        ? await policy.hitAccount(caller.record.id, caller.record.tier)
        : await policy.hitAddress(addressOf(request));
  setRateHeaders(headers, rate);
  if (caller.kind === 'account') setQuotaHeaders(headers, await policy.quota(caller.record.id, caller.record.tier));
  return rate;
}

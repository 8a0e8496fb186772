import type { HttpRequest } from './http-types.js';
import type { ApiKey, KeyStore } from '../access/keys/api-key.js';
import type { ParamBag } from './request-body.js';
import { invalidApiKey, missingApiKey, signedOnlyKey } from './http-errors.js';
import type { CaptureError } from '../core/errors/catalogue.js';

/** Who is asking: an account behind a valid key (or signed link), or an address refused for a reason. */
export type Caller = { kind: 'account'; record: ApiKey } | { kind: 'anonymous'; address: string; refusal: CaptureError };

/** Finds the caller from the three places a key may travel; two different keys are a conflict. */
export async function identify(keyStore: KeyStore, request: HttpRequest, query: ParamBag, params: ParamBag): Promise<Caller> {
  const address = addressOf(request);
  const keys = new Set<string>();
  for (const place of [request.headers['x-api-key'], query.api_key, params.api_key]) addKeys(keys, place);
  if (keys.size === 0) return { kind: 'anonymous', address, refusal: missingApiKey() };
  if (keys.size > 1) return { kind: 'anonymous', address, refusal: invalidApiKey('Different API keys were sent in one request') };
  const record = await keyStore.lookup(keys.values().next().value as string);
  if (!record || record.revoked) return { kind: 'anonymous', address, refusal: invalidApiKey() };
  // A key meant to sit in pages works there only, signed: presented whole, it is refused.
  if (record.signedOnly) return { kind: 'anonymous', address, refusal: signedOnlyKey() };
  return { kind: 'account', record };
}

export function addressOf(request: HttpRequest): string {
  return request.remoteAddress ?? 'unknown';
}

/** Every non-empty key a place holds; a repeated parameter holds several. */
function addKeys(keys: Set<string>, place: unknown): void {
  for (const key of Array.isArray(place) ? place : [place]) {
    if (typeof key === 'string' && key.length > 0) keys.add(key);
  }
}

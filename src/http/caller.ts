import type { HttpRequest } from './http-types.js';
import type { ApiKey, KeyStore } from '../access/keys/api-key.js';
import type { ParamBag } from './request-body.js';
import { invalidApiKey, missingApiKey } from './http-errors.js';
import type { CaptureError } from '../core/errors/catalogue.js';

/** Who is asking: an account behind a valid key, or an address without one. */
export type Caller =
  | { kind: 'account'; record: ApiKey }
  | { kind: 'anonymous'; address: string; problem: 'missing' | 'invalid' | 'conflicting' };

/** Finds the caller from the three places a key may travel; two different keys are a conflict. */
export async function identify(keyStore: KeyStore, request: HttpRequest, query: ParamBag, params: ParamBag): Promise<Caller> {
  const address = addressOf(request);
  const keys = new Set<string>();
  for (const place of [request.headers['x-api-key'], query.api_key, params.api_key]) addKeys(keys, place);
  if (keys.size === 0) return { kind: 'anonymous', address, problem: 'missing' };
  if (keys.size > 1) return { kind: 'anonymous', address, problem: 'conflicting' };
  const record = await keyStore.lookup(keys.values().next().value as string);
  if (!record || record.revoked) return { kind: 'anonymous', address, problem: 'invalid' };
  return { kind: 'account', record };
}

/** Why an anonymous caller may not capture. */
export function unauthenticated(caller: Extract<Caller, { kind: 'anonymous' }>): CaptureError {
  return caller.problem === 'missing' ? missingApiKey() : invalidApiKey(caller.problem === 'conflicting');
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

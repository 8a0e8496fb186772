import { signatureMatches, SIGNATURE_PARAM } from '../access/link-signature.js';
import type { KeyStore } from '../access/keys/api-key.js';
import { captureErrors } from '../core/errors/factories.js';
import type { CaptureError } from '../core/errors/catalogue.js';
import { addressOf, type Caller } from './caller.js';
import { invalidApiKey, invalidSignature, linkExpired, missingApiKey } from './http-errors.js';
import type { HttpRequest } from './http-types.js';

/** Parameters of a render link that are about the link, not the capture. */
export const LINK_PARAMS = ['key', SIGNATURE_PARAM, 'expires'] as const;

/**
 * The account behind a render link: its key named by public id, a signature over every other
 * parameter made with that key's signing secret, and an expiry not yet past. The API key itself
 * never travels in a link, and is refused there.
 */
export async function identifyByLink(keyStore: KeyStore, request: HttpRequest, search: URLSearchParams, now = Date.now()): Promise<Caller> {
  const address = addressOf(request);
  const refuse = (refusal: CaptureError): Caller => ({ kind: 'anonymous', address, refusal });
  const ids = search.getAll('key');
  if (ids.length === 0 || ids[0] === '') return refuse(missingApiKey('A render link names its key (the public prefix, never the key itself) in `key`'));
  if (ids.length > 1) return refuse(invalidApiKey('A render link names one key'));
  const record = await keyStore.lookupId(ids[0] as string);
  if (!record || record.revoked) return refuse(invalidApiKey());
  const signatures = search.getAll(SIGNATURE_PARAM);
  if (signatures.length !== 1) return refuse(invalidSignature('A render link carries one `signature`'));
  if (record.signingSecret === undefined) return refuse(invalidSignature(`Key ${record.id} has no signing secret yet: make one with \`capture-engine keys rotate-signing ${record.id}\``));
  if (!signatureMatches(search, record.signingSecret, signatures[0] as string)) {
    return refuse(invalidSignature("The signature does not match the link's parameters"));
  }
  const expires = search.getAll('expires');
  if (expires.length > 1 || (expires.length === 1 && !/^\d{1,12}$/.test(expires[0] as string))) {
    return refuse(captureErrors.invalidParameter('expires', 'Invalid parameter \'expires\': expected one time in Unix seconds', 'Unix time in seconds'));
  }
  if (expires.length === 1 && Number(expires[0]) * 1000 <= now) return refuse(linkExpired(Number(expires[0])));
  if (search.has('api_key')) return refuse(captureErrors.invalidParameter('api_key', 'A render link is signed; it must never carry the API key', 'nothing: remove api_key'));
  return { kind: 'account', record };
}

import type { CaptureResult } from '../../core/capture-result.js';
import { parseCaptureParams, type CaptureParams } from '../../core/schema/capture-params.js';
import { captureErrors } from '../../core/errors/factories.js';
import { isVideoFormat } from '../../core/schema/formats.js';
import { applyTier } from '../../access/tiers.js';
import type { ApiKey } from '../../access/keys/api-key.js';
import type { ResolvedHttpOptions } from '../http-options.js';
import type { RouteAnswer } from '../http-observer.js';
import type { CaptureAsk } from '../capture-ask.js';
import { cacheKeyOf } from './cache-key.js';
import { cachedFileResponse, cachedJsonResponse } from './cached-response.js';

/** Longer than any capture of these parameters may take: a claim outliving its instance ends then. */
export function claimMs(options: ResolvedHttpOptions, params: CaptureParams): number {
  return 2 * options.captureTimeoutMs + (isVideoFormat(params.format) ? 2 * params.duration * 1000 : 0);
}

/**
 * A `cache=true` request: answered from the account's cached capture of the same parameters, or
 * captured once (quota spent only then) and cached. `response_type=json` points at the entry's file.
 */
export async function answerFromCache(
  options: ResolvedHttpOptions,
  ask: CaptureAsk,
  account: ApiKey,
  parsed: CaptureParams,
  headers: Record<string, string>,
  capture: (params: CaptureParams) => Promise<CaptureResult>,
): Promise<Omit<RouteAnswer, 'route'>> {
  const { cache } = options;
  if (!cache) throw captureErrors.invalidParameter('cache', 'The result cache needs a storage, and this service has none', 'false (this service has no storage)');
  // The entry is the file; how it is answered is the request's business.
  const fileParams = parsed.response_type === 'image' ? parsed : applyTier(parseCaptureParams({ ...ask.params, response_type: 'image' }), account.tier, options.policy.tiers);
  const lifetimes = { owner: account.id, ttlSeconds: parsed.cache_ttl, staleSeconds: parsed.cache_stale_ttl, claimMs: claimMs(options, parsed) };
  const cached = await cache.answer(cacheKeyOf(account, parsed), lifetimes, () => capture(fileParams), parsed.fresh);
  const response =
    parsed.response_type === 'json'
      ? cachedJsonResponse(cached, headers, options.routes.fileUrl)
      : cachedFileResponse(cached, ask.request, { visibility: ask.route === 'render' ? 'public' : 'private', headers, headOnly: ask.headOnly === true, now: cache.now() });
  return { cache: cached.outcome, captureId: cached.entry.id, ...(cached.outcome === 'miss' ? { bytes: cached.entry.size } : {}), response };
}

import { LRUCache } from 'lru-cache';
import { parseCaptureParams, type CaptureParams } from '../core/schema/capture-params.js';
import { applyTier, type TierName, type Tiers } from '../access/tiers.js';
import type { HttpRequest } from './http-types.js';
import type { ParamBag } from './request-body.js';

/** Query strings remembered; a render link asked a thousand times is one. */
const REMEMBERED = 1000;

/**
 * The parameters of a request, parsed and fitted to the caller's tier. A GET's query string is all
 * of its parameters, and parsing is pure, so the same string on the same tier parses the same: a
 * cached link's hits skip it (it was most of a hit's own time).
 */
export function parsedParamsMemo(tiers: Tiers): (request: HttpRequest, params: ParamBag, tier: TierName) => CaptureParams {
  const memo = new LRUCache<string, CaptureParams>({ max: REMEMBERED });
  return (request, params, tier) => {
    const method = request.method.toUpperCase();
    const query = request.url.indexOf('?');
    const key = (method === 'GET' || method === 'HEAD') && query >= 0 ? `${tier} ${request.url.slice(query)}` : undefined;
    const known = key === undefined ? undefined : memo.get(key);
    if (known) return known;
    const parsed = applyTier(parseCaptureParams(params), tier, tiers);
    if (key !== undefined) memo.set(key, parsed);
    return parsed;
  };
}

import { LRUCache } from 'lru-cache';
import { parseCaptureParams, type CaptureParams } from '../core/schema/capture-params.js';
import { applyTier, type Tiers } from '../access/tiers.js';
import type { ApiKey } from '../access/keys/api-key.js';
import type { CaptureAsk } from './capture-ask.js';

/** Query strings remembered; a render link asked a thousand times is one. */
const REMEMBERED = 1000;

/**
 * The parameters of a request, parsed and fitted to the caller's tier. A GET's query string is all
 * the client sent, and parsing is pure, so a cached link's hits skip it (it was most of a hit's own
 * time). What is parsed is not the query itself, though: a route rewrites it first (a render link
 * drops its signature and turns the cache on), so an entry belongs to the route, the account and the
 * tier that parsed it, and nobody else's request can ever be answered with it.
 */
export function parsedParamsMemo(tiers: Tiers): (ask: Pick<CaptureAsk, 'route' | 'request' | 'params'>, account: ApiKey) => CaptureParams {
  const memo = new LRUCache<string, CaptureParams>({ max: REMEMBERED });
  return ({ route, request, params }, account) => {
    const method = request.method.toUpperCase();
    const query = request.url.indexOf('?');
    const key = (method === 'GET' || method === 'HEAD') && query >= 0 ? `${route}\0${account.id}\0${account.tier}\0${request.url.slice(query)}` : undefined;
    const known = key === undefined ? undefined : memo.get(key);
    if (known) return known;
    const parsed = applyTier(parseCaptureParams(params), account.tier, tiers);
    if (key !== undefined) memo.set(key, parsed);
    return parsed;
  };
}

import type { CaptureEngine, CaptureOptions } from '../core/engine.js';
import { parseCaptureParams } from '../core/schema/capture-params.js';
import { toCaptureError } from '../core/errors/to-capture-error.js';
import type { CaptureError } from '../core/errors/catalogue.js';
import { applyTier } from '../access/tiers.js';
import { addressOf, identify, unauthenticated } from './caller.js';
import { quotaExceeded, rateLimitExceeded } from './http-errors.js';
import type { HttpRequest } from './http-types.js';
import type { ResolvedHttpOptions } from './http-options.js';
import type { RouteAnswer } from './http-observer.js';
import { setQuotaHeaders, setRateHeaders } from './limit-headers.js';
import { readBodyParams, type ParamBag } from './request-body.js';
import { captureResponse, errorResponse } from './responses.js';
import { asyncCapturesFor, enqueueCapture } from './async-capture-routes.js';

/**
 * `GET|POST {base}/v1/capture`: who asks, their rate limit, the parameters, the tier's gates, a
 * quota reservation, the capture (or, with `async=true`, its job), and a refund when that fails. Headers are computed
 * first, so every answer, errors included, carries them.
 */
export async function handleCapture(
  engine: CaptureEngine,
  options: ResolvedHttpOptions,
  request: HttpRequest,
  query: ParamBag,
  captureOptions: CaptureOptions,
): Promise<RouteAnswer> {
  const answer: Omit<RouteAnswer, 'response'> = { route: 'capture' };
  let params: ParamBag = query;
  let bodyError: CaptureError | undefined;
  if (request.method.toUpperCase() === 'POST') {
    try {
      params = Object.assign(Object.create(null) as ParamBag, query, readBodyParams(request, options.bodyLimit));
    } catch (error) {
      bodyError = toCaptureError(error);
    }
  }
  const { policy } = options;
  const caller = await identify(options.keyStore, request, query, params);
  if (caller.kind === 'account') answer.keyId = caller.record.id;
  const headers: Record<string, string> = {};
  const rate = caller.kind === 'account' ? await policy.hitAccount(caller.record.id, caller.record.tier) : await policy.hitAddress(addressOf(request));
  setRateHeaders(headers, rate);
  if (caller.kind === 'account') setQuotaHeaders(headers, await policy.quota(caller.record.id, caller.record.tier));

  try {
    if (!rate.allowed) throw rateLimitExceeded(rate);
    if (bodyError) throw bodyError;
    if (caller.kind === 'anonymous') throw unauthenticated(caller);
    const account = caller.record;
    const parsed = applyTier(parseCaptureParams(params), account.tier, policy.tiers);
    answer.format = parsed.format;
    answer.scenario = parsed.scenario;
    const jobs = parsed.async ? await asyncCapturesFor(options, parsed, account) : undefined;
    const reservedAt = Date.now();
    const reservation = await policy.reserve(account.id, account.tier);
    setQuotaHeaders(headers, reservation);
    if (!reservation.allowed) throw quotaExceeded(reservation);
    // What fails before the capture is done (or queued) gives the reservation back.
    const refundOnFailure = async <T>(run: () => Promise<T>): Promise<T> => {
      try {
        return await run();
      } catch (error) {
        await policy.refund(account.id, account.tier, reservedAt);
        setQuotaHeaders(headers, { ...reservation, remaining: reservation.remaining + 1 });
        throw error;
      }
    };
    if (jobs) {
      const queued = await refundOnFailure(() => enqueueCapture(jobs, options, parsed, account, reservedAt, headers));
      return { ...answer, captureId: queued.id, response: queued.response };
    }
    // Not a spread: an adapter's options may make `signal` in a getter, on first read.
    const result = await refundOnFailure(() => engine.capture(parsed, { signal: captureOptions.signal, reuseKey: account.id }));
    const response = await captureResponse(result, parsed.response_type === 'json', headers, options.routes.fileUrl);
    return { ...answer, bytes: result.size, captureId: result.id, response };
  } catch (error) {
    return { ...answer, response: errorResponse(error, headers, options.log) };
  }
}

import type { CaptureEngine, CaptureOptions } from '../core/engine.js';
import { parseCaptureParams } from '../core/schema.js';
import { toCaptureError } from '../core/to-capture-error.js';
import type { CaptureError } from '../core/errors.js';
import { applyTier } from './access/tiers.js';
import { addressOf, identify, unauthenticated } from './caller.js';
import { quotaExceeded, rateLimitExceeded } from './http-errors.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import type { ResolvedHttpOptions } from './http-options.js';
import type { AnsweredRequest } from './http-observer.js';
import { setQuotaHeaders, setRateHeaders } from './limit-headers.js';
import { readBodyParams, type ParamBag } from './request-body.js';
import { captureResponse, errorResponse } from './responses.js';

/**
 * `GET|POST {base}/v1/capture`: who asks, their rate limit, the parameters, the tier's gates, a
 * quota reservation, the capture, and a refund when the capture fails. Headers are computed
 * first, so every answer, errors included, carries them.
 */
export async function handleCapture(
  engine: CaptureEngine,
  options: ResolvedHttpOptions,
  request: HttpRequest,
  query: ParamBag,
  captureOptions: CaptureOptions,
  note: Partial<AnsweredRequest>,
): Promise<HttpResponse> {
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
  if (caller.kind === 'account') note.keyId = caller.record.id;
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
    note.format = parsed.format;
    note.scenario = parsed.scenario;
    const reservation = await policy.reserve(account.id, account.tier);
    setQuotaHeaders(headers, reservation);
    if (!reservation.allowed) throw quotaExceeded(reservation);
    let result;
    try {
      result = await engine.capture(parsed, captureOptions);
    } catch (error) {
      await policy.refund(account.id, account.tier);
      setQuotaHeaders(headers, { ...reservation, remaining: reservation.remaining + 1 });
      throw error;
    }
    note.bytes = result.size;
    note.captureId = result.id;
    return await captureResponse(result, parsed.response_type === 'json', headers, options.routes.fileUrl);
  } catch (error) {
    return errorResponse(error, headers, options.log);
  }
}

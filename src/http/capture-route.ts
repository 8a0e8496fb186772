import type { CaptureEngine, CaptureOptions } from '../core/engine.js';
import type { CaptureParams } from '../core/schema/capture-params.js';
import { toCaptureError } from '../core/errors/to-capture-error.js';
import type { CaptureError } from '../core/errors/catalogue.js';
import type { CaptureResult } from '../core/capture-result.js';
import type { PhaseTimings } from '../core/phases.js';
import { identify } from './caller.js';
import { countRequest } from './count-request.js';
import type { CaptureAsk } from './capture-ask.js';
import { browserTimeExceeded, missingApiKey, rateLimitExceeded } from './http-errors.js';
import { withReservation } from './quota-reservation.js';
import type { HttpRequest } from './http-types.js';
import type { ResolvedHttpOptions } from './http-options.js';
import type { RouteAnswer } from './http-observer.js';
import { isMultipart, readBodyParams, type ParamBag } from './request-body.js';
import { readMultipartParams, type UploadedFiles } from './multipart-body.js';
import { captureResponse, errorResponse, withJsonFields } from './responses.js';
import { asyncCapturesFor, enqueueCapture, withUploadsInline } from './async-capture-routes.js';
import { answerFromCache, claimMs } from './cache/cached-capture.js';
import { answerIdempotently, idempotencyKeyOf } from './idempotency/idempotent-answer.js';
import { cacheHeader } from './cache/cached-response.js';
import { serverTiming } from './server-timing.js';
import { requestIdOf } from './request-id.js';
import { isStrict, refuseUnknown, unknownParams, unknownWarnings, warningHeader, type UnknownParams } from './unknown-params.js';

/** `GET|POST {base}/v1/capture`: the caller by key, from the headers, the query or the body. */
export async function handleCapture(
  engine: CaptureEngine,
  options: ResolvedHttpOptions,
  request: HttpRequest,
  query: ParamBag,
  captureOptions: CaptureOptions,
): Promise<RouteAnswer> {
  const post = request.method.toUpperCase() === 'POST';
  if (post && isMultipart(request.headers)) return handleUpload(engine, options, request, query, captureOptions);
  let params: ParamBag = query;
  let bodyError: CaptureError | undefined;
  if (post) {
    try {
      params = Object.assign(Object.create(null) as ParamBag, query, readBodyParams(request, options.bodyLimit, options.uploadLimits.fileBytes));
    } catch (error) {
      bodyError = toCaptureError(error);
    }
  }
  const caller = await identify(options.keyStore, request, query, params);
  return answerCapture(engine, options, { route: 'capture', request, caller, params, bodyError }, captureOptions);
}

/**
 * An upload is read only once its caller is known and within its rate limit: the key travels in
 * the header or the query, never in the body, so a stranger's upload is refused unread.
 */
async function handleUpload(engine: CaptureEngine, options: ResolvedHttpOptions, request: HttpRequest, query: ParamBag, captureOptions: CaptureOptions): Promise<RouteAnswer> {
  let caller = await identify(options.keyStore, request, query, query);
  const headers: Record<string, string> = {};
  const rate = await countRequest(options, caller, request, headers);
  if (caller.kind === 'anonymous' && caller.refusal.code === 'MISSING_API_KEY') {
    caller = { ...caller, refusal: missingApiKey('An upload (multipart/form-data) carries its API key in X-API-Key or the api_key query parameter: its body is not read without one') };
  }
  let params = query;
  let bodyError: CaptureError | undefined;
  let uploads: UploadedFiles | undefined;
  if (rate.allowed && caller.kind === 'account') {
    try {
      const read = await readMultipartParams(request, options.uploadLimits);
      params = Object.assign(Object.create(null) as ParamBag, query, read.params);
      uploads = read.uploads;
    } catch (error) {
      bodyError = toCaptureError(error);
    }
  }
  try {
    return await answerCapture(engine, options, { route: 'capture', request, caller, params, bodyError, counted: { rate, headers }, uploads }, captureOptions);
  } finally {
    // The capture is over (a queued one carries its files in its job): the files go.
    await uploads?.dispose();
  }
}

/**
 * Its rate limit, the parameters, the tier's gates, then the cache, the queue (`async=true`) or a
 * capture, each capture with a quota reservation refunded when it fails. Headers are computed
 * first, so every answer, errors included, carries them; `Server-Timing` last, with how long each
 * part took.
 */
export async function answerCapture(engine: CaptureEngine, options: ResolvedHttpOptions, ask: CaptureAsk, captureOptions: CaptureOptions): Promise<RouteAnswer> {
  const started = performance.now();
  let phases: PhaseTimings | undefined;
  const unknown = unknownParams(ask.params);
  const answer = await answerTimedCapture(engine, options, ask, captureOptions, unknown, (timings) => void (phases = timings));
  answer.response.headers['Server-Timing'] = serverTiming({ phases, cache: answer.cache && cacheHeader(answer.cache), totalMs: performance.now() - started });
  if (unknown) answer.response = withJsonFields(answer.response, { warnings: unknownWarnings(unknown) });
  return answer;
}

async function answerTimedCapture(
  engine: CaptureEngine,
  options: ResolvedHttpOptions,
  ask: CaptureAsk,
  captureOptions: CaptureOptions,
  unknown: UnknownParams | undefined,
  ran: (timings: PhaseTimings | undefined) => void,
): Promise<RouteAnswer> {
  const { caller } = ask;
  const answer: Omit<RouteAnswer, 'response'> = { route: ask.route };
  const { policy } = options;
  if (caller.kind === 'account') answer.keyId = caller.record.id;
  const headers = ask.counted?.headers ?? {};
  // On every answer, errors too: a misspelt name often is why a request failed (`ulr=`).
  if (unknown) headers['Capture-Warning'] = warningHeader(unknown);
  const rate = ask.counted?.rate ?? (await countRequest(options, caller, ask.request, headers, ask.link));

  try {
    if (!rate.allowed) throw rateLimitExceeded(rate);
    if (ask.bodyError) throw ask.bodyError;
    if (caller.kind === 'anonymous') throw caller.refusal;
    if (isStrict(ask.params, options.strictParams) && unknown) refuseUnknown(unknown);
    const account = caller.record;
    const parsed = options.parseParams(ask, account);
    ask.check?.(parsed);
    answer.format = parsed.format;
    answer.scenario = parsed.scenario;
    answer.tier = account.tier;
    // Not a spread: an adapter's options may make `signal` in a getter, on first read.
    const capture = (params: CaptureParams, signal: AbortSignal | undefined): Promise<CaptureResult> =>
      withReservation(options, account, headers, async () => {
        const time = await policy.browserTime(account.id, account.tier);
        if (time.remaining <= 0) throw browserTimeExceeded(time);
        const started = performance.now();
        let timings: PhaseTimings | undefined;
        try {
          const result = await engine.capture(params, { signal, tenant: account.id, maxConcurrent: policy.tiers[account.tier].maxConcurrent, uploads: ask.uploads?.paths });
          timings = result.timings;
          return result;
        } catch (error) {
          timings = toCaptureError(error).timings;
          throw error;
        } finally {
          ran(timings);
          // What held a browser, failed or not: the wait for one does not count.
          const seconds = Math.max(0, (performance.now() - started - (timings?.queue ?? 0)) / 1000);
          answer.browserSeconds = (answer.browserSeconds ?? 0) + seconds;
          await policy.chargeBrowserTime(account.id, account.tier, Math.ceil(seconds));
        }
      });
    const answering = async (): Promise<Omit<RouteAnswer, 'route'>> => {
      if (parsed.cache) {
        // Without the client's signal: a cached capture serves every request waiting for it, and
        // the entry it leaves; one client going away must not abort it.
        return answerFromCache(options, ask, account, parsed, headers, (params) => capture(params, undefined));
      }
      if (parsed.async) {
        const carried = ask.uploads ? await withUploadsInline(parsed, ask.uploads) : parsed;
        const jobs = await asyncCapturesFor(options, carried, account);
        await engine.checkAddresses(parsed);
        const queued = await withReservation(options, account, headers, (reservedAt) => enqueueCapture(jobs, options, carried, account, reservedAt, headers, requestIdOf(ask.request)));
        return { captureId: queued.id, response: queued.response };
      }
      const result = await capture(parsed, captureOptions.signal);
      const response = await captureResponse(result, parsed.response_type === 'json', headers, options.routes.fileUrl);
      if (ask.headOnly) response.body = '';
      return { bytes: result.size, captureId: result.id, response };
    };
    // The JSON names the request that asked, as X-Request-Id does; a replay under an Idempotency-Key is the first answer, its id included.
    const run = async (): Promise<Omit<RouteAnswer, 'route'>> => {
      const answered = await answering();
      return { ...answered, response: withJsonFields(answered.response, { request_id: requestIdOf(ask.request) }) };
    };
    const key = ask.route === 'capture' && ask.request.method.toUpperCase() === 'POST' ? idempotencyKeyOf(ask.request) : undefined;
    // Awaited before the spread: the capture adds what it learnt (its browser time) to `answer`.
    const answered = key === undefined ? await run() : await answerIdempotently(options.idempotency, key, account, parsed, headers, claimMs(options, parsed), run);
    return { ...answer, ...answered };
  } catch (error) {
    return { ...answer, response: errorResponse(error, headers, options.log) };
  }
}

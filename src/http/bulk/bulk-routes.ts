import { checkBulkSize } from '../../access/tiers.js';
import type { ApiKey } from '../../access/keys/api-key.js';
import { captureErrors } from '../../core/errors/factories.js';
import { toCaptureError } from '../../core/errors/to-capture-error.js';
import type { AsyncCaptures, BulkPage } from '../async-captures-port.js';
import { identify, type Caller } from '../caller.js';
import { countRequest } from '../count-request.js';
import { notFound, rateLimitExceeded } from '../http-errors.js';
import type { RouteAnswer } from '../http-observer.js';
import type { ResolvedHttpOptions } from '../http-options.js';
import type { HttpRequest, HttpResponse } from '../http-types.js';
import { answerIdempotently, idempotencyKeyOf, type RunAnswer } from '../idempotency/idempotent-answer.js';
import { withReservation } from '../quota-reservation.js';
import { requestIdOf } from '../request-id.js';
import { readBodyParams, type ParamBag } from '../request-body.js';
import { errorResponse, json } from '../responses.js';
import { itemError, parseBulkBody, type BulkBody } from './bulk-body.js';
import type { CaptureEngine } from '../../core/engine.js';

/** How long an `Idempotency-Key` is held by a batch being queued (it is queued at once). */
const QUEUEING_MS = 60_000;
const PAGE = { default: 100, max: 1000 };
/** Items whose addresses are checked at once (each may wait for DNS). */
const ADDRESS_CHECKS_AT_ONCE = 32;

/**
 * `POST {base}/v1/bulk`: a batch of asynchronous captures. Counted like one request against the
 * rate limit; every item is validated first (one bad item refuses the batch, naming its index),
 * then one quota reservation per item (all or none), then the batch is queued: 202 at once.
 */
export async function handleBulk(engine: CaptureEngine, options: ResolvedHttpOptions, request: HttpRequest, query: ParamBag): Promise<RouteAnswer> {
  let body: ParamBag = query;
  let bodyError: unknown;
  try {
    body = readBodyParams(request, options.bulkBodyLimit);
  } catch (error) {
    bodyError = error;
  }
  const caller = await identify(options.keyStore, request, query, body);
  const answer: Omit<RouteAnswer, 'response'> = { route: 'bulk', ...(caller.kind === 'account' ? { keyId: caller.record.id } : {}) };
  const headers: Record<string, string> = {};
  const rate = await countRequest(options, caller, request, headers);
  try {
    if (!rate.allowed) throw rateLimitExceeded(rate);
    if (bodyError !== undefined) throw bodyError;
    if (caller.kind === 'anonymous') throw caller.refusal;
    const account = caller.record;
    const bulk = parseBulkBody(
      body,
      (bag) => options.parseParams({ route: 'bulk', request, params: bag }, account),
      (count) => checkBulkSize(count, account.tier, options.policy.tiers),
    );
    await checkAddresses(engine, bulk);
    const jobs = await queueFor(options, bulk, account);
    const run = (): Promise<RunAnswer> => enqueueBulk(jobs, options, bulk, account, headers, requestIdOf(request));
    const key = idempotencyKeyOf(request);
    return { ...answer, ...(key === undefined ? await run() : await answerIdempotently(options.idempotency, key, account, bulk, headers, QUEUEING_MS, run)) };
  } catch (error) {
    return { ...answer, response: errorResponse(error, headers, options.log) };
  }
}

/** Every item's target, proxy and upload address, as its capture will check them, a few at a time. */
async function checkAddresses(engine: CaptureEngine, bulk: BulkBody): Promise<void> {
  for (let from = 0; from < bulk.items.length; from += ADDRESS_CHECKS_AT_ONCE) {
    await Promise.all(
      bulk.items.slice(from, from + ADDRESS_CHECKS_AT_ONCE).map((item, at) =>
        engine.checkAddresses(item.params).catch((error: unknown) => {
          throw itemError(error, from + at);
        }),
      ),
    );
  }
}

/** The job queue, and every webhook of the batch checked (the batch's, and each item's own). */
async function queueFor(options: ResolvedHttpOptions, bulk: BulkBody, account: ApiKey): Promise<AsyncCaptures> {
  const jobs = options.asyncCaptures;
  if (!jobs) throw captureErrors.invalidParameter('items', 'Batches run as asynchronous captures and need a job queue: set CAPTURE_REDIS_URL (or the `asyncCaptures` option)', 'none (this service has no job queue)');
  const hooks = new Set([bulk.webhookUrl, ...bulk.items.map((item) => item.params.webhook_url)].filter((url) => url !== undefined));
  for (const url of hooks) await jobs.checkWebhook(url, account.id);
  return jobs;
}

async function enqueueBulk(jobs: AsyncCaptures, options: ResolvedHttpOptions, bulk: BulkBody, account: ApiKey, headers: Record<string, string>, requestId: string): Promise<RunAnswer> {
  const count = bulk.items.length;
  const { id } = await withReservation(
    options,
    account,
    headers,
    (reservedAt) =>
      jobs
        .enqueueBulk({ ...bulk, accountId: account.id, tier: account.tier, reservedAt, maxConcurrent: options.policy.tiers[account.tier].maxConcurrent, requestId })
        .catch((error: unknown) => {
          throw captureErrors.queueUnavailable(error);
        }),
    count,
  );
  const statusUrl = options.routes.bulkStatusUrl(id);
  headers.Location = statusUrl;
  return { captureId: id, response: json(202, headers, { id, status: 'queued', status_url: statusUrl, items: count }) };
}

/** `GET {base}/v1/bulk/<id>?offset=&limit=`: the batch's counts and a page of its items, for the account that sent it. */
export async function bulkStatus(options: ResolvedHttpOptions, caller: Caller, id: string, query: ParamBag): Promise<HttpResponse> {
  if (caller.kind === 'anonymous') throw caller.refusal;
  const page: BulkPage = { offset: whole(query, 'offset', 0, Number.MAX_SAFE_INTEGER, 0), limit: whole(query, 'limit', 1, PAGE.max, PAGE.default) };
  const status = await options.asyncCaptures?.bulkStatus(id, caller.record.id, page).catch((error: unknown) => {
    throw captureErrors.queueUnavailable(toCaptureError(error));
  });
  if (!status) throw notFound(`No batch ${id}`);
  return json(200, {}, status);
}

function whole(query: ParamBag, name: string, min: number, max: number, fallback: number): number {
  const raw = query[name];
  if (raw === undefined) return fallback;
  const value = typeof raw === 'string' && /^\d{1,16}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= max)) throw captureErrors.invalidParameter(name, `${name} must be a whole number from ${min} to ${max}`, `${min}..${max}`);
  return value;
}

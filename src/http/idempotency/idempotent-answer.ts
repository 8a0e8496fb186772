import { hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { CaptureError } from '../../core/errors/catalogue.js';
import type { ApiKey } from '../../access/keys/api-key.js';
import type { HttpRequest, HttpResponse } from '../http-types.js';
import type { IdempotencyStore, StoredAnswer } from './idempotency-store.js';

/** The header, as the IETF draft (draft-ietf-httpapi-idempotency-key-header) and Stripe name it. */
const HEADER = 'idempotency-key';
/** A key is an opaque string of visible ASCII, as Stripe allows (at most 255 characters). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;
/** Larger answers (long videos) are sent, not kept: a retry of one captures again. */
export const MAX_REPLAY_BYTES = 32 * 2 ** 20;

export interface IdempotencySettings {
  store: IdempotencyStore;
  /** How long an answer is replayed. */
  ttlMs: number;
}

/** What `run` answered, and the capture it made. */
export interface RunAnswer {
  response: HttpResponse;
  captureId?: string;
}

/** The key a request gives, checked; undefined without one. */
export function idempotencyKeyOf(request: HttpRequest): string | undefined {
  const raw = request.headers[HEADER];
  const key = Array.isArray(raw) ? raw.join(',') : raw;
  if (key === undefined) return undefined;
  if (!VALID_KEY.test(key)) throw new CaptureError('INVALID_PARAMETER', "Invalid header 'Idempotency-Key': 1 to 255 visible ASCII characters", { details: { param: 'Idempotency-Key', allowed: '1 to 255 visible ASCII characters' } });
  return key;
}

/** The request's body as it was understood: every parameter, defaults filled in, in one order. */
function fingerprintOf(params: object): string {
  return hash('sha256', JSON.stringify(Object.entries(params).sort(([a], [b]) => (a < b ? -1 : 1))), 'hex');
}

/** Headers that describe this request's limits, not the answer: a replay carries today's. */
const isLimitHeader = (name: string): boolean => /^x-(ratelimit|quota)-/i.test(name);

/**
 * Runs a request under its `Idempotency-Key`: the first one with a key runs and its successful
 * answer is kept for `ttlMs`; the same key with the same parameters gets that answer again (the
 * same capture, no quota), with another one 422 IDEMPOTENCY_KEY_REUSED, and while the first
 * still runs 409 IDEMPOTENCY_KEY_IN_USE. A failed request frees its key, so a retry runs again.
 */
export async function answerIdempotently(
  settings: IdempotencySettings,
  key: string,
  account: ApiKey,
  params: object,
  headers: Record<string, string>,
  runningMs: number,
  run: () => Promise<RunAnswer>,
): Promise<RunAnswer> {
  const { store } = settings;
  const storeKey = hash('sha256', `${account.id}\0${key}`, 'hex');
  const fingerprint = fingerprintOf(params);
  // A record gone between the two calls (its request failed, or it expired) makes this one new: once.
  let began = await store.begin(storeKey, fingerprint, runningMs);
  let record = began ? undefined : await store.get(storeKey);
  if (!began && record === undefined) {
    began = await store.begin(storeKey, fingerprint, runningMs);
    record = began ? undefined : await store.get(storeKey);
  }
  if (!began) {
    if (record !== undefined && record.fingerprint !== fingerprint) throw new CaptureError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with other parameters', { details: { param: 'Idempotency-Key' } });
    if (record === undefined || record.state === 'running') throw new CaptureError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running', { details: { param: 'Idempotency-Key' }, headers: { 'Retry-After': '1' } });
    return replay(record.answer, headers);
  }
  let answered: RunAnswer;
  try {
    answered = await run();
  } catch (error) {
    await store.forget(storeKey);
    throw error;
  }
  const { response } = answered;
  const body = response.status < 300 ? await keptBody(response) : undefined;
  if (body === undefined) {
    await store.forget(storeKey);
    return answered;
  }
  const kept = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !isLimitHeader(name)));
  const answer: StoredAnswer = { status: response.status, headers: kept, body: body.toString('base64'), captureId: answered.captureId };
  await store.finish(storeKey, { state: 'done', fingerprint, answer }, settings.ttlMs);
  return answered;
}

/**
 * The answer's bytes when they can be kept: a streamed file (a video) is read whole first, and
 * sent from memory, when its length is known and small enough. Undefined otherwise.
 */
async function keptBody(response: HttpResponse): Promise<Buffer | undefined> {
  const { body } = response;
  if (body === undefined || typeof body === 'string' || Buffer.isBuffer(body)) return Buffer.from(body ?? '');
  const length = Number(response.headers['Content-Length']);
  if (!(length <= MAX_REPLAY_BYTES)) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of body as Readable) chunks.push(chunk as Buffer);
  const whole = Buffer.concat(chunks);
  await response.onFinish?.();
  response.onFinish = undefined;
  response.body = whole;
  return whole;
}

function replay(answer: StoredAnswer, headers: Record<string, string>): RunAnswer {
  const replayed = { ...answer.headers, ...headers, 'Idempotent-Replayed': 'true' };
  return { captureId: answer.captureId, response: { status: answer.status, headers: replayed, body: Buffer.from(answer.body, 'base64') } };
}


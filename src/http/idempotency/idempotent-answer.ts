import { hash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { CaptureError } from '../../core/errors/catalogue.js';
import type { ApiKey } from '../../access/keys/api-key.js';
import type { HttpRequest, HttpResponse } from '../http-types.js';
import type { CaptureStorage } from '../../core/storage.js';
import type { IdempotencyStore, StoredAnswer } from './idempotency-store.js';
import { replayFileKey } from './replay-files.js';

/** The header, as the IETF draft (draft-ietf-httpapi-idempotency-key-header) and Stripe name it. */
const HEADER = 'idempotency-key';
/** A key is an opaque string of visible ASCII, as Stripe allows (at most 255 characters). */
const VALID_KEY = /^[\x21-\x7e]{1,255}$/;
/** Larger answers (long videos) are sent, not kept: a retry of one captures again. */
export const MAX_REPLAY_BYTES = 32 * 2 ** 20;
/** Answers up to this size are kept in the store itself; larger ones in a file of the storage. */
export const INLINE_REPLAY_BYTES = 16 * 1024;

export interface IdempotencySettings {
  store: IdempotencyStore;
  /** How long an answer is replayed. */
  ttlMs: number;
  /** Bytes of records one account may hold in the store over `ttlMs`; past it, answers are sent, not kept. */
  accountBytes: number;
  /** Where answers too large for the store are kept; without one, they are not kept. */
  storage: CaptureStorage | undefined;
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
  // A record gone between two calls (its request failed, it expired) makes this one new; a record
  // whose file was swept is forgotten, and this one runs again. A few tries, then it is in use.
  for (let attempt = 0; !(await store.begin(storeKey, fingerprint, runningMs)); attempt++) {
    const record = await store.get(storeKey);
    if (record !== undefined && record.fingerprint !== fingerprint) throw new CaptureError('IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was used with other parameters', { details: { param: 'Idempotency-Key' } });
    if (record?.state === 'done') {
      const replayed = await replay(settings, record.answer, headers);
      if (replayed) return replayed;
      await store.forget(storeKey);
    }
    if ((record === undefined || record.state === 'done') && attempt < 2) continue;
    throw new CaptureError('IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still running', { details: { param: 'Idempotency-Key' }, headers: { 'Retry-After': '1' } });
  }
  let answered: RunAnswer;
  try {
    answered = await run();
  } catch (error) {
    await store.forget(storeKey);
    throw error;
  }
  const answer = answered.response.status < 300 ? await keptAnswer(settings, answered, account.id) : undefined;
  if (answer === undefined) await store.forget(storeKey);
  else await store.finish(storeKey, { state: 'done', fingerprint, answer }, settings.ttlMs);
  return answered;
}

/**
 * The answer as the store keeps it, within the account's budget, or undefined when it cannot be
 * kept (too large, no storage for it, budget spent): the key is then freed, and a retry runs again.
 */
async function keptAnswer(settings: IdempotencySettings, { response, captureId }: RunAnswer, accountId: string): Promise<StoredAnswer | undefined> {
  const body = await keptBody(response);
  if (body === undefined) return undefined;
  const headers = Object.fromEntries(Object.entries(response.headers).filter(([name]) => !isLimitHeader(name)));
  const inline = body.length <= INLINE_REPLAY_BYTES;
  if (!inline && settings.storage === undefined) return undefined;
  const file = inline ? undefined : replayFileKey();
  const answer: StoredAnswer = { status: response.status, headers, captureId, ...(inline ? { body: body.toString('base64') } : { file }) };
  if (!(await settings.store.charge(accountId, JSON.stringify(answer).length, settings.ttlMs, settings.accountBytes))) return undefined;
  if (file !== undefined) await settings.storage?.put(file, { data: body }, { contentType: headers['Content-Type'] ?? 'application/octet-stream', size: body.length }, { lifetimeMs: settings.ttlMs });
  return answer;
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

/** The kept answer again, or undefined when its file is gone. */
async function replay(settings: IdempotencySettings, answer: StoredAnswer, headers: Record<string, string>): Promise<RunAnswer | undefined> {
  const replayed = { ...answer.headers, ...headers, 'Idempotent-Replayed': 'true' };
  if (answer.file === undefined) return { captureId: answer.captureId, response: { status: answer.status, headers: replayed, body: Buffer.from(answer.body ?? '', 'base64') } };
  const file = await settings.storage?.get(answer.file);
  return file && { captureId: answer.captureId, response: { status: answer.status, headers: replayed, body: file.stream() } };
}

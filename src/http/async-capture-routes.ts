import { readFile, stat } from 'node:fs/promises';
import { CaptureError } from '../core/errors/catalogue.js';
import { documentPath } from '../core/schema/document-params.js';
import type { UploadedFiles } from './multipart-body.js';
import type { CaptureParams } from '../core/schema/capture-params.js';
import { captureErrors } from '../core/errors/factories.js';
import type { ApiKey } from '../access/keys/api-key.js';
import type { AsyncCaptures } from './async-captures-port.js';
import type { Caller } from './caller.js';
import { notFound } from './http-errors.js';
import type { HttpResponse } from './http-types.js';
import type { ResolvedHttpOptions } from './http-options.js';
import { json } from './responses.js';

/** The queue an `async=true` capture goes to; refused, naming what is missing, when there is none. */
/**
 * Largest parameters a queued capture carries, as JSON: a job lives in Redis beside keys, quotas
 * and the cache index, so a document uploaded whole into it would fill Redis for anyone.
 */
export const MAX_JOB_PARAMS_BYTES = 2 ** 20;

/**
 * The parameters with an upload's files in them, as a queued capture must carry them (its worker
 * may run elsewhere); refused unread when they could not fit in a job.
 */
export async function withUploadsInline(params: CaptureParams, uploads: UploadedFiles): Promise<CaptureParams> {
  const sizes = await Promise.all([...uploads.paths.values()].map(async (file) => (await stat(file)).size));
  if ((sizes.reduce((sum, size) => sum + size, 0) * 4) / 3 > MAX_JOB_PARAMS_BYTES) throw jobTooLarge();
  const files = await Promise.all(
    (params.files ?? []).map(async (file) => {
      const onDisk = uploads.paths.get(documentPath(file.name) ?? '');
      return onDisk === undefined ? file : { ...file, content: (await readFile(onDisk)).toString('base64'), encoding: 'base64' as const };
    }),
  );
  return { ...params, files };
}

function jobTooLarge(): CaptureError {
  return new CaptureError('PAYLOAD_TOO_LARGE', `An asynchronous capture carries its parameters, documents included, in the job queue: at most ${MAX_JOB_PARAMS_BYTES} bytes. Capture a larger document synchronously (without async)`, {
    details: { param: 'async', limit: MAX_JOB_PARAMS_BYTES },
  });
}

export async function asyncCapturesFor(options: ResolvedHttpOptions, params: CaptureParams, account: ApiKey): Promise<AsyncCaptures> {
  const jobs = options.asyncCaptures;
  if (!jobs) {
    throw captureErrors.invalidParameter('async', 'Asynchronous captures need a job queue: set CAPTURE_REDIS_URL (or the `asyncCaptures` option)', 'false (this service has no job queue)');
  }
  if (Buffer.byteLength(JSON.stringify(params)) > MAX_JOB_PARAMS_BYTES) throw jobTooLarge();
  if (params.webhook_url !== undefined) await jobs.checkWebhook(params.webhook_url, account.id);
  return jobs;
}

/** Queues an `async=true` capture whose quota is reserved: 202 with where to read its status. */
export async function enqueueCapture(
  jobs: AsyncCaptures,
  options: ResolvedHttpOptions,
  params: CaptureParams,
  account: ApiKey,
  reservedAt: number,
  headers: Record<string, string>,
  requestId?: string,
): Promise<{ id: string; response: HttpResponse }> {
  let id: string;
  try {
    ({ id } = await jobs.enqueue({ params, accountId: account.id, tier: account.tier, reservedAt, requestId }));
  } catch (error) {
    throw captureErrors.queueUnavailable(error);
  }
  const statusUrl = options.routes.statusUrl(id);
  headers.Location = statusUrl;
  return { id, response: json(202, headers, { id, status: 'queued', status_url: statusUrl }) };
}

/** `GET {base}/v1/captures/<id>`: the status for the account that asked for it; 404 for anyone else. */
export async function captureStatus(options: ResolvedHttpOptions, caller: Caller, id: string): Promise<HttpResponse> {
  if (caller.kind === 'anonymous') throw caller.refusal;
  const status = await options.asyncCaptures?.status(id, caller.record.id);
  if (!status) throw notFound(`No capture ${id}`);
  return json(200, {}, status);
}

/**
 * `GET {base}/v1/webhook-secret`: the secret the caller's own webhooks are signed with, to verify
 * them. Each account has its own, so showing it to whoever holds the account's key gives away no
 * other account's.
 */
export async function webhookSecret(options: ResolvedHttpOptions, caller: Caller): Promise<HttpResponse> {
  if (caller.kind === 'anonymous') throw caller.refusal;
  const secret = options.asyncCaptures?.webhookSecret(caller.record.id);
  if (secret === undefined) throw notFound('This service signs no webhooks: it has no job queue (CAPTURE_REDIS_URL) or no webhook secret (CAPTURE_WEBHOOK_SECRET)');
  // A secret has no business in a shared cache or a browser's history.
  return json(200, { 'Cache-Control': 'no-store' }, { secret });
}

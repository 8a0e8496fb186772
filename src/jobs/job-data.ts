import type { TierName } from '../access/tiers.js';
import type { CaptureError } from '../core/errors/catalogue.js';
import type { CaptureDiagnostics } from '../core/diagnostics.js';
import type { UploadOutcome } from '../core/ports.js';

/** What a capture job carries: parameters already validated and gated, and whose quota it holds. */
export interface CaptureJobData {
  params: Record<string, unknown>;
  accountId: string;
  tier: TierName;
  reservedAt: number;
  /** The tier's cap on one account's captures running at once. */
  maxConcurrent?: number;
  /** The id of the request that queued it (`X-Request-Id`). */
  requestId?: string;
}

/** A batch's parent job: whose it is, its items in order, and whom to tell when all are settled. */
export interface BulkJobData {
  accountId: string;
  /** Each item's capture id (its child job's id) and the caller's id for it. */
  items: Array<{ id: string; itemId?: string }>;
  webhookUrl?: string;
  /** The id of the request that queued the batch. */
  requestId?: string;
}

/** What a completed capture job returns (kept in Redis with the job). */
export interface CaptureJobResult {
  url: string;
  size: number;
  format: string;
  /** The waits a `best_effort` capture went on without. */
  incomplete?: string[];
  /** With `diagnostics=true`: what the page did. */
  diagnostics?: CaptureDiagnostics;
  /** Files stored beside the capture (`har`), by name, with where each is served. */
  sidecarUrls?: Record<string, string>;
  /** With `upload_url`: how the upload went. */
  upload?: UploadOutcome;
}

/** A webhook delivery job: the status body to POST and to whom. */
export interface WebhookJobData {
  url: string;
  accountId: string;
  body: string;
  /** Sent as `X-Request-Id`: the request that asked for what is reported. */
  requestId?: string;
}

/**
 * A failure as a job keeps it (`failedReason` is a string): `CODE: message`, read back into the
 * status's `error`. Unexposed errors keep the catalogue's message only.
 */
export function encodeFailure(failure: CaptureError): string {
  return `${failure.code}: ${failure.expose ? failure.message : 'Internal error'}`;
}

const ENCODED = /^([A-Z][A-Z_]+): ([\s\S]*)$/;

/** A job's `failedReason` as `{ code, error }`; BullMQ's own reasons (a worker lost twice) are internal errors. */
export function decodeFailure(reason: string | undefined): { code: string; error: string } {
  const match = ENCODED.exec(reason ?? '');
  if (match) return { code: match[1] as string, error: match[2] as string };
  return { code: 'CAPTURE_FAILED', error: `The capture could not be completed: ${reason || 'unknown reason'}` };
}

import type { CaptureParams } from '../core/schema/capture-params.js';
import type { TierName } from '../access/tiers.js';
import type { CaptureDiagnostics } from '../core/diagnostics.js';
import type { UploadOutcome } from '../core/ports.js';
import { SPLIT_FILE_PREFIX } from '../core/schema/pdf-split-params.js';

/** Where an asynchronous capture is; `queued` includes waiting for a retry. */
export type CaptureJobState = 'queued' | 'processing' | 'completed' | 'failed';

/** `GET {base}/v1/captures/<id>`, and the body of its webhook. Times are ISO 8601. */
export interface CaptureJobStatus {
  id: string;
  status: CaptureJobState;
  created_at: string;
  /** The id of the request that asked for it (`X-Request-Id`, or the one the service made). */
  request_id?: string;
  started_at?: string;
  finished_at?: string;
  /** Where a completed capture's file is served. */
  url?: string;
  size?: number;
  format?: string;
  /** The waits a `best_effort` capture went on without. */
  incomplete?: string[];
  /** With `diagnostics=true`: what the page did. */
  diagnostics?: CaptureDiagnostics;
  /** Where each file stored beside the capture is served (`har_url`). */
  [sidecarUrl: `${string}_url`]: string | undefined;
  /** With `upload_url`: the file was PUT there, the storage answered `upload_status` after `upload_attempts` tries. */
  uploaded?: boolean;
  upload_status?: number;
  upload_attempts?: number;
  error?: { code: string; error: string };
}

/** A capture that passed validation, auth, the tier's gates and the quota reservation. */
export interface AsyncCaptureRequest {
  params: CaptureParams;
  accountId: string;
  tier: TierName;
  /** When the quota was reserved (Unix ms): a refund goes back to that month. */
  reservedAt: number;
  /** The tier's cap on the account's captures running at once. */
  maxConcurrent?: number;
  /** The asking request's id, carried into the status, the webhook and the worker's logs. */
  requestId?: string;
}

/** One item of a batch: its parameters (the batch's defaults and its own), and the caller's id for it. */
export interface BulkItem {
  params: CaptureParams;
  itemId?: string;
}

/** A batch whose every item passed validation, with a quota reservation per item. */
export interface BulkCaptureRequest extends Omit<AsyncCaptureRequest, 'params'> {
  items: BulkItem[];
  /** Told once, when every item has its final outcome. */
  webhookUrl?: string;
}

/** One item as the batch's status lists it: the item's capture status, where it sits and the caller's id. */
export type BulkItemStatus = CaptureJobStatus & { index: number; item_id?: string };

/** `GET {base}/v1/bulk/<id>`, and the body of the batch's webhook (with every item). */
export interface BulkStatus {
  id: string;
  /** `completed` once every item is completed or failed. */
  status: 'queued' | 'processing' | 'completed';
  created_at: string;
  finished_at?: string;
  /** The id of the request that asked for the batch. */
  request_id?: string;
  /** Items in the batch. */
  total: number;
  counts: Record<CaptureJobState, number>;
  /** The page of items listed: from `offset`, at most `limit`. */
  offset: number;
  limit: number;
  items: BulkItemStatus[];
}

/** Which items a batch's status lists. */
export interface BulkPage {
  offset: number;
  limit: number;
}

/**
 * The job queue the HTTP service hands `async=true` captures to (the BullMQ implementation is in
 * `src/jobs`). Without one, `async=true` is refused.
 */
export interface AsyncCaptures {
  /** Refuses (INVALID_PARAMETER, URL_NOT_ALLOWED) a webhook this account cannot be sent. */
  checkWebhook(url: string, accountId: string): Promise<void>;
  /** The secret (`whsec_...`) this account's webhooks are signed with, or undefined when none are signed. */
  webhookSecret(accountId: string): string | undefined;
  /** Queues the capture; its id is the capture's id. */
  enqueue(request: AsyncCaptureRequest): Promise<{ id: string }>;
  /** Queues a batch: one capture per item, all at once (none when it fails). */
  enqueueBulk(request: BulkCaptureRequest): Promise<{ id: string }>;
  /** The batch's status with one page of its items, or undefined when there is none for this account. */
  bulkStatus(id: string, accountId: string, page: BulkPage): Promise<BulkStatus | undefined>;
  /** The capture's status, or undefined when there is none for this account (unknown, expired or someone else's). */
  status(id: string, accountId: string): Promise<CaptureJobStatus | undefined>;
}

/** What a finished capture reports besides its file, as a synchronous JSON answer and an async status both say it. */
export interface CaptureReport {
  incomplete?: string[];
  diagnostics?: CaptureDiagnostics | unknown;
  /** Files stored beside the capture (`har`), by name, with where each is served. */
  sidecarUrls?: Record<string, string>;
  upload?: UploadOutcome;
}

/**
 * The report's JSON fields: `incomplete`, `diagnostics`, `<name>_url` per file beside it, or for the
 * PDFs of a pdf_split `files` (`{ url, pages }` each, in order), `uploaded` with the upload's status.
 */
export function reportFields({ incomplete, diagnostics, sidecarUrls = {}, upload }: CaptureReport): Record<string, unknown> {
  const beside = Object.entries(sidecarUrls);
  const split = beside.filter(([name]) => name.startsWith(SPLIT_FILE_PREFIX));
  return {
    ...(incomplete === undefined ? {} : { incomplete }),
    ...(diagnostics === undefined ? {} : { diagnostics }),
    ...Object.fromEntries(beside.filter(([name]) => !name.startsWith(SPLIT_FILE_PREFIX)).map(([name, url]) => [`${name}_url`, url])),
    ...(split.length === 0 ? {} : { files: split.map(([name, url]) => ({ url, pages: name.slice(SPLIT_FILE_PREFIX.length) })) }),
    ...(upload === undefined ? {} : { uploaded: true, upload_status: upload.status, upload_attempts: upload.attempts }),
  };
}

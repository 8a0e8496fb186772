import type { CaptureParams } from '../core/schema/capture-params.js';
import type { TierName } from '../access/tiers.js';
import type { CaptureDiagnostics } from '../core/diagnostics.js';

/** Where an asynchronous capture is; `queued` includes waiting for a retry. */
export type CaptureJobState = 'queued' | 'processing' | 'completed' | 'failed';

/** `GET {base}/v1/captures/<id>`, and the body of its webhook. Times are ISO 8601. */
export interface CaptureJobStatus {
  id: string;
  status: CaptureJobState;
  created_at: string;
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
  error?: { code: string; error: string };
}

/** A capture that passed validation, auth, the tier's gates and the quota reservation. */
export interface AsyncCaptureRequest {
  params: CaptureParams;
  accountId: string;
  tier: TierName;
  /** When the quota was reserved (Unix ms): a refund goes back to that month. */
  reservedAt: number;
}

/**
 * The job queue the HTTP service hands `async=true` captures to (the BullMQ implementation is in
 * `src/jobs`). Without one, `async=true` is refused.
 */
export interface AsyncCaptures {
  /** Refuses (INVALID_PARAMETER, URL_NOT_ALLOWED) a webhook this account cannot be sent. */
  checkWebhook(url: string, accountId: string): Promise<void>;
  /** Queues the capture; its id is the capture's id. */
  enqueue(request: AsyncCaptureRequest): Promise<{ id: string }>;
  /** The capture's status, or undefined when there is none for this account (unknown, expired or someone else's). */
  status(id: string, accountId: string): Promise<CaptureJobStatus | undefined>;
}

import type { CaptureJobsOptions, CaptureWorkerOptions, QuotaRefund } from '../jobs/index.js';
import { positiveIntegerEnv } from './options-from-env.js';

/** How the service and its workers run asynchronous captures, from the environment. */
export interface JobsSetup {
  /** The queue side, for the HTTP service. */
  options: CaptureJobsOptions;
  /** The worker side: the same plus the lock and the quota refund. */
  workerOptions(concurrency: number | undefined): CaptureWorkerOptions;
}

/**
 * `CAPTURE_REDIS_URL` (required), `CAPTURE_QUEUE_NAME`, `CAPTURE_WEBHOOK_SECRET`, `CAPTURE_JOB_ATTEMPTS`,
 * `CAPTURE_JOB_BACKOFF_MS`, `CAPTURE_JOB_LOCK_MS`, `CAPTURE_WEBHOOK_BACKOFF_MS`. Webhooks may go
 * where captures may (`CAPTURE_ALLOW_PRIVATE_NETWORKS`, `CAPTURE_ALLOW_ADDRESSES`).
 */
export function jobsSetupFromEnv(env: NodeJS.ProcessEnv, egress: Pick<CaptureJobsOptions, 'allowPrivateNetworks' | 'allowAddress'>, refund: QuotaRefund): JobsSetup {
  const options: CaptureJobsOptions = {
    connection: env.CAPTURE_REDIS_URL as string,
    queueName: env.CAPTURE_QUEUE_NAME || undefined,
    webhookSecret: env.CAPTURE_WEBHOOK_SECRET || undefined,
    attempts: positiveIntegerEnv('CAPTURE_JOB_ATTEMPTS', env),
    backoffMs: positiveIntegerEnv('CAPTURE_JOB_BACKOFF_MS', env),
    webhookBackoffMs: positiveIntegerEnv('CAPTURE_WEBHOOK_BACKOFF_MS', env),
    ...egress,
  };
  const lockDurationMs = positiveIntegerEnv('CAPTURE_JOB_LOCK_MS', env);
  return { options, workerOptions: (concurrency) => ({ ...options, refund, lockDurationMs, concurrency }) };
}

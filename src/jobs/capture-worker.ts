import { Queue, UnrecoverableError, Worker, type Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../core/telemetry/logger.js';
import type { CaptureEngine } from '../core/engine.js';
import { parseCaptureParams } from '../core/schema/capture-params.js';
import { toCaptureError } from '../core/errors/to-capture-error.js';
import type { CaptureError } from '../core/errors/catalogue.js';
import { DEFAULTS } from '../core/defaults.js';
import { tracer } from '../core/telemetry/tracing.js';
import { decodeFailure, encodeFailure, type BulkJobData, type CaptureJobData, type CaptureJobResult, type WebhookJobData } from './job-data.js';
import { bulkStatusOf } from './bulk-status.js';
import { FairPriority } from './fair-priority.js';
import { jobStatus, resultFields } from './job-status.js';
import { JOBS_DEFAULTS, resolveJobsOptions, type CaptureJobsOptions, type ResolvedJobsOptions } from './jobs-options.js';
import { Settlement, type QuotaRefund } from './settlement.js';
import { startWebhookWorker, WebhookOutbox } from './webhooks.js';

export interface CaptureWorkerOptions extends CaptureJobsOptions {
  /** Captures this worker runs at once; give it the engine's `concurrency`. @default the engine's default, 2 × the cores */
  concurrency?: number;
  /** Gives a failed capture's quota back (`policy.refund` of the HTTP service's policy, on the same Redis). */
  refund?: QuotaRefund;
  /** A running capture's lock: a worker silent this long is taken for lost and its job runs elsewhere. @default 30000 */
  lockDurationMs?: number;
}

export interface CaptureWorker {
  /** Stops taking jobs, lets the running ones finish, and closes its connections (not the engine). */
  close(): Promise<void>;
}

/** A failure worth another try: the page or the machine may do better; a bad request will not. */
function isRetryable(failure: CaptureError): boolean {
  const status = failure.details.status;
  if (failure.details.reason === 'http_status' && typeof status === 'number' && status < 500) return false;
  return failure.retryable;
}

/**
 * Runs queued captures on `engine` and settles each once it ends (webhook, quota), and delivers
 * webhooks. Jobs of a worker that dies are taken over by another one after `lockDurationMs`
 * (BullMQ's stalled-job recovery).
 */
export function startCaptureWorker(engine: CaptureEngine, options: CaptureWorkerOptions): CaptureWorker {
  const resolved = resolveJobsOptions(options);
  const log = engine.options.log;
  const connection = resolved.connect();
  const outbox = new WebhookOutbox(resolved, connection);
  const priority = new FairPriority(connection, resolved.queueName, resolved.retentionMs);
  const settlement = new Settlement(connection, outbox, options.refund, priority, resolved.retentionMs, resolved.queueName);
  const lockDuration = options.lockDurationMs ?? JOBS_DEFAULTS.lockDurationMs;

  const process = async (job: Job<CaptureJobData, CaptureJobResult>, _token?: string, signal?: AbortSignal): Promise<CaptureJobResult> => {
    const startedAt = Date.now();
    // The time the job waited in the queue, inside BullMQ's span of this run.
    tracer().startSpan('job.wait', { startTime: job.timestamp, attributes: { 'capture.id': job.id, 'job.attempt': job.attemptsMade + 1 } }).end(startedAt);
    const earlier = await settlement.completed(job.id as string);
    if (earlier) return earlier;
    try {
      // Stored, whatever the request asked: the result is read later from the status.
      const params = parseCaptureParams({ ...job.data.params, response_type: 'json' });
      const result = await engine.capture(params, { signal, tenant: job.data.accountId, maxConcurrent: job.data.maxConcurrent });
      await result.dispose();
      const done: CaptureJobResult = {
        url: result.url as string,
        size: result.size,
        format: result.format.toUpperCase(),
        ...(result.incomplete ? { incomplete: result.incomplete } : {}),
        ...(result.diagnostics ? { diagnostics: result.diagnostics } : {}),
        ...(result.sidecars ? { sidecarUrls: Object.fromEntries(Object.entries(result.sidecars).map(([name, { url }]) => [name, url])) } : {}),
        ...(result.upload ? { upload: result.upload } : {}),
      };
      await settlement.settle(job, jobStatus(job, 'completed', { ...resultFields(done), started_at: new Date(job.processedOn ?? startedAt).toISOString(), finished_at: new Date().toISOString() }), done);
      return done;
    } catch (error) {
      const failure = toCaptureError(error);
      const final = !isRetryable(failure) || job.attemptsMade + 1 >= (job.opts.attempts ?? 1);
      const reason = encodeFailure(failure);
      log.warn({ captureId: job.id, requestId: job.data.requestId, code: failure.code, attempt: job.attemptsMade + 1, final }, 'capture job failed');
      if (final) {
        await settlement.settle(job, jobStatus(job, 'failed', { started_at: new Date(job.processedOn ?? startedAt).toISOString(), finished_at: new Date().toISOString(), error: decodeFailure(reason) }));
      }
      throw isRetryable(failure) ? new Error(reason) : new UnrecoverableError(reason);
    }
  };

  const captures = new Worker<CaptureJobData, CaptureJobResult>(resolved.queueName, process, {
    connection,
    concurrency: options.concurrency ?? DEFAULTS.concurrency,
    lockDuration,
    stalledInterval: lockDuration,
    maxStalledCount: 1,
    telemetry: resolved.telemetry,
  });
  // Failures the processor never saw (a job lost by workers more often than allowed) settle here;
  // for the others this is the second call, and a no-op.
  captures.on('failed', (job) => {
    if (!job) return;
    void job
      .getState()
      .then(async (state) => {
        if (state === 'failed') await settlement.settle(job, jobStatus(job, 'failed'));
      })
      .catch((error: unknown) => log.error({ captureId: job.id, error: String(error) }, 'settling a failed capture job failed'));
  });
  captures.on('error', (error) => log.error({ error: String(error) }, 'capture worker error'));
  const webhooks: Worker<WebhookJobData> = startWebhookWorker(resolved, connection, log);
  webhooks.on('error', (error) => log.error({ error: String(error) }, 'webhook worker error'));
  const batches = startBatchWorker(resolved, connection, outbox, log);

  return {
    async close() {
      await captures.close();
      await batches.close();
      await webhooks.close();
      await outbox.close();
      await connection.quit().catch(() => undefined);
    },
  };
}

/**
 * Runs a batch's parent job, which BullMQ hands over once every item has its final outcome: the
 * batch's webhook, with every item's status, queued under the batch's id (a rerun sends no other).
 */
function startBatchWorker(options: ResolvedJobsOptions, connection: Redis, outbox: WebhookOutbox, log: Logger): CaptureWorker {
  const captures = new Queue<CaptureJobData, CaptureJobResult>(options.queueName, { connection, telemetry: options.telemetry });
  const worker = new Worker<BulkJobData>(
    options.bulkQueueName,
    async (job) => {
      if (job.data.webhookUrl === undefined) return;
      const status = await bulkStatusOf(job, captures, { offset: 0, limit: job.data.items.length });
      await outbox.send(job.data.webhookUrl, job.data.accountId, { ...status, finished_at: new Date().toISOString() });
    },
    { connection, concurrency: 4, telemetry: options.telemetry },
  );
  worker.on('error', (error) => log.error({ error: String(error) }, 'batch worker error'));
  return {
    async close() {
      await worker.close();
      await captures.close();
    },
  };
}

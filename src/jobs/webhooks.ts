import http from 'node:http';
import https from 'node:https';
import { Queue, UnrecoverableError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from '../core/telemetry/logger.js';
import { createOutboundGuard } from '../egress/index.js';
import type { BulkStatus, CaptureJobStatus } from '../http/async-captures-port.js';
import type { WebhookJobData } from './job-data.js';
import type { ResolvedJobsOptions } from './jobs-options.js';
import { webhookHeaders, type WebhookAttempt } from './webhook-signature.js';
import { inSpan, SpanKind, SpanStatusCode, traceHeaders } from '../core/telemetry/tracing.js';

/** Longest a receiver may take to answer one delivery. */
const DELIVERY_TIMEOUT_MS = 10_000;

/** Webhook deliveries as jobs of their own: retried with exponential backoff, at most one per capture. */
export class WebhookOutbox {
  private readonly queue: Queue<WebhookJobData>;

  constructor(
    private readonly options: ResolvedJobsOptions,
    connection: Redis,
  ) {
    this.queue = new Queue(options.webhookQueueName, { connection, telemetry: options.telemetry });
  }

  /** Queues the delivery of a capture's (or batch's) final status; its id as job id makes a second call a no-op. */
  async send(url: string, accountId: string, status: CaptureJobStatus | BulkStatus): Promise<void> {
    await this.queue.add(
      'webhook',
      { url, accountId, body: JSON.stringify(status), ...(status.request_id ? { requestId: status.request_id } : {}) },
      { jobId: status.id, attempts: this.options.webhookAttempts, backoff: { type: 'exponential', delay: this.options.webhookBackoffMs }, removeOnComplete: this.options.keepFinished, removeOnFail: this.options.keepFinished },
    );
  }

  close(): Promise<void> {
    return this.queue.close();
  }
}

/** Delivers queued webhooks: a signed POST through the egress guard; anything but 2xx is retried. */
export function startWebhookWorker(options: ResolvedJobsOptions, connection: Redis, log: Logger): Worker<WebhookJobData> {
  const guard = createOutboundGuard(options);
  return new Worker<WebhookJobData>(
    options.webhookQueueName,
    async (job) => {
      const id = job.id as string;
      const url = await guard.check(job.data.url, 'webhook_url').catch((error: unknown) => {
        throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
      });
      // The id is the job's, the same on every retry, so a receiver can drop what it already has; the
      // timestamp is this attempt's, so a receiver can refuse a delivery replayed later.
      const headers = { ...signed(options, job.data.accountId, { id, timestamp: Math.floor(Date.now() / 1000), body: job.data.body }), 'X-Capture-Id': id, ...(job.data.requestId ? { 'X-Request-Id': job.data.requestId } : {}) };
      // The receiver gets the capture's trace in `traceparent`, to continue it on its side.
      const status = await inSpan('webhook.deliver', { 'url.full': url.origin + url.pathname, 'capture.id': id, 'job.attempt': job.attemptsMade + 1 }, async (span) => {
        const answered = await post(url, job.data.body, { ...headers, ...traceHeaders() }, guard.lookupFor(url));
        span.setAttribute('http.response.status_code', answered);
        // Anything but 2xx is retried: this delivery failed.
        if (answered < 200 || answered >= 300) span.setStatus({ code: SpanStatusCode.ERROR, message: `webhook answered ${answered}` });
        return answered;
      }, { kind: SpanKind.CLIENT });
      if (status < 200 || status >= 300) throw new Error(`webhook answered ${status}`);
      log.info({ captureId: id, requestId: job.data.requestId, status, attempt: job.attemptsMade + 1 }, 'webhook delivered');
    },
    { connection, concurrency: 8, telemetry: options.telemetry },
  );
}

/** The attempt's signature headers with the account's secret; without a usable one no retry can help. */
function signed(options: ResolvedJobsOptions, accountId: string, attempt: WebhookAttempt): Record<string, string> {
  try {
    const secret = options.secretFor(accountId);
    if (secret === undefined) throw new Error('no webhook secret for this account');
    return webhookHeaders(attempt, secret);
  } catch (error) {
    throw new UnrecoverableError(error instanceof Error ? error.message : String(error));
  }
}

function post(url: URL, body: string, headers: Record<string, string>, lookup: http.RequestOptions['lookup']): Promise<number> {
  const client = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const request = client.request(
      url,
      {
        method: 'POST',
        lookup,
        timeout: DELIVERY_TIMEOUT_MS,
        headers: { ...headers, 'Content-Type': 'application/json', 'Content-Length': String(Buffer.byteLength(body)), 'User-Agent': 'capture-engine-webhook' },
      },
      (response) => {
        // Only the status matters; the body is read and dropped so the socket is freed.
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new Error(`webhook did not answer within ${DELIVERY_TIMEOUT_MS} ms`)));
    request.on('error', reject);
    request.end(body);
  });
}

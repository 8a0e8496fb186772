import { randomBytes } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { captureErrors } from '../core/errors/factories.js';
import { createOutboundGuard, type OutboundGuard } from '../egress/index.js';
import type { AsyncCaptureRequest, AsyncCaptures, CaptureJobStatus } from '../http/async-captures-port.js';
import type { CaptureJobData, CaptureJobResult } from './job-data.js';
import { jobStatus, stateOf } from './job-status.js';
import { resolveJobsOptions, type CaptureJobsOptions, type ResolvedJobsOptions } from './jobs-options.js';

const CAPTURE_ID = /^[A-Za-z0-9_-]{22}$/;

/**
 * The queue side of asynchronous captures, on BullMQ: what the HTTP service enqueues and reads
 * statuses from. Any number of service instances and workers share one Redis.
 */
export class CaptureJobs implements AsyncCaptures {
  private readonly options: ResolvedJobsOptions;
  private readonly connection: Redis;
  private readonly queue: Queue<CaptureJobData, CaptureJobResult>;
  private readonly guard: OutboundGuard;

  constructor(options: CaptureJobsOptions) {
    this.options = resolveJobsOptions(options);
    this.connection = this.options.connect();
    this.queue = new Queue(this.options.queueName, { connection: this.connection });
    this.guard = createOutboundGuard({ allowPrivateNetworks: this.options.allowPrivateNetworks, resolver: this.options.resolver });
  }

  async checkWebhook(url: string, accountId: string): Promise<void> {
    if (this.options.secretFor(accountId) === undefined) {
      throw captureErrors.invalidParameter('webhook_url', 'Webhooks need a signing secret: set CAPTURE_WEBHOOK_SECRET (or the `webhookSecret` option)', 'none (this service signs no webhooks)');
    }
    await this.guard.check(url, 'webhook_url');
  }

  async enqueue(request: AsyncCaptureRequest): Promise<{ id: string }> {
    // 128 random bits, like a synchronous capture's id; the job id is the capture id.
    const id = randomBytes(16).toString('base64url');
    await this.queue.add(
      'capture',
      { params: { ...request.params }, accountId: request.accountId, tier: request.tier, reservedAt: request.reservedAt },
      { jobId: id, attempts: this.options.attempts, backoff: { type: 'exponential', delay: this.options.backoffMs }, removeOnComplete: this.options.keepFinished, removeOnFail: this.options.keepFinished },
    );
    return { id };
  }

  async status(id: string, accountId: string): Promise<CaptureJobStatus | undefined> {
    // Only ids this queue makes: anything else could name one of BullMQ's own keys.
    if (!CAPTURE_ID.test(id)) return undefined;
    // The state first: a job read before it finished and a state read after would say
    // `completed` without the result. Read the other way round, the job is at least that far.
    const status = stateOf(await this.queue.getJobState(id));
    if (status === undefined) return undefined;
    const job = await this.queue.getJob(id);
    if (!job || job.data.accountId !== accountId) return undefined;
    return jobStatus(job, status);
  }

  /** Whether Redis answers (for `/readyz`). */
  async ping(): Promise<void> {
    await this.connection.ping();
  }

  async close(): Promise<void> {
    await this.queue.close();
    await this.connection.quit().catch(() => undefined);
  }
}

export function createCaptureJobs(options: CaptureJobsOptions): CaptureJobs {
  return new CaptureJobs(options);
}

import { randomBytes } from 'node:crypto';
import { FlowProducer, Queue, type JobsOptions } from 'bullmq';
import type { Redis } from 'ioredis';
import { captureErrors } from '../core/errors/factories.js';
import { createOutboundGuard, type OutboundGuard } from '../egress/index.js';
import type { AsyncCaptureRequest, AsyncCaptures, BulkCaptureRequest, BulkPage, BulkStatus, CaptureJobStatus } from '../http/async-captures-port.js';
import type { BulkJobData, CaptureJobData, CaptureJobResult } from './job-data.js';
import { bulkStatusOf } from './bulk-status.js';
import { FairPriority } from './fair-priority.js';
import { jobStatus, stateOf } from './job-status.js';
import { resolveJobsOptions, type CaptureJobsOptions, type ResolvedJobsOptions } from './jobs-options.js';

const CAPTURE_ID = /^[A-Za-z0-9_-]{22}$/;

/** 128 random bits, like a synchronous capture's id; a job's id is its capture's (or batch's) id. */
const newId = (): string => randomBytes(16).toString('base64url');

/**
 * The queue side of asynchronous captures, on BullMQ: what the HTTP service enqueues and reads
 * statuses from. Any number of service instances and workers share one Redis.
 */
export class CaptureJobs implements AsyncCaptures {
  private readonly options: ResolvedJobsOptions;
  private readonly connection: Redis;
  private readonly queue: Queue<CaptureJobData, CaptureJobResult>;
  private readonly batches: Queue<BulkJobData>;
  private readonly flows: FlowProducer;
  private readonly priority: FairPriority;
  private readonly guard: OutboundGuard;

  constructor(options: CaptureJobsOptions) {
    this.options = resolveJobsOptions(options);
    this.connection = this.options.connect();
    const { telemetry } = this.options;
    this.queue = new Queue(this.options.queueName, { connection: this.connection, telemetry });
    this.batches = new Queue(this.options.bulkQueueName, { connection: this.connection, telemetry });
    this.flows = new FlowProducer({ connection: this.connection, telemetry });
    this.priority = new FairPriority(this.connection, this.options.queueName, this.options.retentionMs);
    this.guard = createOutboundGuard(this.options);
  }

  async checkWebhook(url: string, accountId: string): Promise<void> {
    if (this.options.secretFor(accountId) === undefined) {
      throw captureErrors.invalidParameter('webhook_url', 'Webhooks need a signing secret: set CAPTURE_WEBHOOK_SECRET (or the `webhookSecret` option)', 'none (this service signs no webhooks)');
    }
    await this.guard.check(url, 'webhook_url');
  }

  webhookSecret(accountId: string): string | undefined {
    return this.options.secretFor(accountId);
  }

  async enqueue(request: AsyncCaptureRequest): Promise<{ id: string }> {
    const id = newId();
    const priority = await this.priority.take(request.accountId);
    await this.queue.add('capture', this.jobData(request, request.params), { ...this.captureOptions(id), priority: priority(0) });
    return { id };
  }

  /**
   * A batch as one BullMQ flow, added in one transaction: a parent job in the batches' queue, and
   * one capture job per item as its children. The parent runs once every child has its final
   * outcome (a failed item is set aside, not blocking it) and sends the batch's webhook.
   */
  async enqueueBulk(request: BulkCaptureRequest): Promise<{ id: string }> {
    const id = newId();
    const items = request.items.map((item) => ({ ...item, id: newId() }));
    const priority = await this.priority.take(request.accountId, items.length);
    await this.flows.add({
      name: 'bulk',
      queueName: this.options.bulkQueueName,
      data: { accountId: request.accountId, items: items.map(({ id: itemJob, itemId }) => ({ id: itemJob, itemId })), webhookUrl: request.webhookUrl, requestId: request.requestId },
      opts: { jobId: id, removeOnComplete: this.options.keepFinished, removeOnFail: this.options.keepFinished },
      children: items.map((item, index) => ({
        name: 'capture',
        queueName: this.options.queueName,
        data: this.jobData(request, item.params),
        opts: { ...this.captureOptions(item.id), priority: priority(index), ignoreDependencyOnFailure: true },
      })),
    });
    return { id };
  }

  async bulkStatus(id: string, accountId: string, page: BulkPage): Promise<BulkStatus | undefined> {
    if (!CAPTURE_ID.test(id)) return undefined;
    const parent = await this.batches.getJob(id);
    if (!parent || parent.data.accountId !== accountId) return undefined;
    return bulkStatusOf(parent, this.queue, page);
  }

  private jobData(request: Omit<AsyncCaptureRequest, 'params'>, params: AsyncCaptureRequest['params']): CaptureJobData {
    return { params: { ...params }, accountId: request.accountId, tier: request.tier, reservedAt: request.reservedAt, maxConcurrent: request.maxConcurrent, ...(request.requestId ? { requestId: request.requestId } : {}) };
  }

  private captureOptions(id: string): JobsOptions {
    const { attempts, backoffMs, keepFinished } = this.options;
    return { jobId: id, attempts, backoff: { type: 'exponential', delay: backoffMs }, removeOnComplete: keepFinished, removeOnFail: keepFinished };
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
    await this.flows.close();
    await this.batches.close();
    await this.queue.close();
    await this.connection.quit().catch(() => undefined);
  }
}

export function createCaptureJobs(options: CaptureJobsOptions): CaptureJobs {
  return new CaptureJobs(options);
}

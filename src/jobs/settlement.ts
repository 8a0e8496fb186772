import type { Job } from 'bullmq';
import type { Redis } from 'ioredis';
import type { TierName } from '../access/tiers.js';
import type { CaptureJobStatus } from '../http/async-captures-port.js';
import type { CaptureJobData, CaptureJobResult } from './job-data.js';
import type { WebhookOutbox } from './webhooks.js';
import type { FairPriority } from './fair-priority.js';

/** Gives back an account's reserved capture (the HTTP policy's `refund`). */
export type QuotaRefund = (accountId: string, tier: TierName, reservedAtMs: number) => Promise<void>;

/**
 * What happens once a capture job has its final outcome, exactly once however often it is reached
 * (a retried job, a worker lost after settling, the stalled checker failing a job): a success's
 * result is recorded (a run of the same job after that returns it instead of capturing again, so
 * the webhook and the status name the same file), the webhook is queued under the capture's id (a
 * second time is a no-op), the account's count of captures pending goes down once (behind a Redis
 * `SET NX` marker), and a failure's quota is refunded behind another. A success keeps the quota
 * reserved at enqueue.
 */
export class Settlement {
  constructor(
    private readonly redis: Redis,
    private readonly outbox: WebhookOutbox,
    private readonly refund: QuotaRefund | undefined,
    private readonly priority: FairPriority,
    private readonly retentionMs: number,
    private readonly prefix: string,
  ) {}

  /** The result of this capture if an earlier run of its job already completed it. */
  async completed(id: string): Promise<CaptureJobResult | undefined> {
    const recorded = await this.redis.get(this.key('result', id));
    return recorded === null ? undefined : (JSON.parse(recorded) as CaptureJobResult);
  }

  /** @param result a completed capture's whole result (its upload, diagnostics), recorded for a later run; else what the status says */
  async settle(job: Job<CaptureJobData, CaptureJobResult>, status: CaptureJobStatus, result?: CaptureJobResult): Promise<void> {
    const { accountId, tier, reservedAt, params } = job.data;
    const { url, size, format } = status;
    if (status.status === 'completed' && url !== undefined && size !== undefined && format !== undefined) {
      await this.redis.set(this.key('result', status.id), JSON.stringify(result ?? { url, size, format }), 'PX', this.retentionMs, 'NX');
    }
    if (typeof params.webhook_url === 'string') await this.outbox.send(params.webhook_url, accountId, status);
    if (await this.once('settled', status.id)) await this.priority.release(accountId);
    if (status.status !== 'failed' || !this.refund) return;
    // Marked first: a worker lost between the two costs the account one capture, never gives one away.
    if (await this.once('refunded', status.id)) await this.refund(accountId, tier, reservedAt);
  }

  /** Whether this is the first call for this capture and kind (a `SET NX` marker kept as long as the statuses). */
  private async once(kind: 'settled' | 'refunded', id: string): Promise<boolean> {
    return (await this.redis.set(this.key(kind, id), '1', 'PX', this.retentionMs, 'NX')) === 'OK';
  }

  private key(kind: 'result' | 'settled' | 'refunded', id: string): string {
    return `${this.prefix}:${kind}:${id}`;
  }
}

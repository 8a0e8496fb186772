import { Redis } from 'ioredis';
import type { Telemetry } from 'bullmq';
import { BullMQOtel } from 'bullmq-otel';
import type { Resolver } from '../egress/resolver.js';
import { allowAddressOption, type AllowAddress } from '../egress/allowed-addresses.js';
import { positive } from '../core/options.js';
import { DEFAULTS } from '../core/defaults.js';
import { accountWebhookSecret, normalWebhookSecret } from './webhook-signature.js';

/** What the queue side (HTTP service) and the worker side share. All but `connection` are optional. */
export interface CaptureJobsOptions {
  /** Redis: a URL, or an ioredis client to copy the settings of (BullMQ needs connections of its own). */
  connection: string | Redis;
  /** Name of the BullMQ queue; the webhooks' queue is `<name>-webhooks`, the batches' `<name>-bulk`. @default 'capture-engine' */
  queueName?: string;
  /** Tries per capture before it ends `failed` (errors that cannot get better are not retried). @default 3 */
  attempts?: number;
  /** First retry's delay; each next one doubles. @default 2000 */
  backoffMs?: number;
  /** How long statuses (and webhook jobs) are kept after a capture ends. @default 24 h, the files' default lifetime */
  retentionMs?: number;
  /**
   * What webhooks are signed with. A string is the server's secret (`CAPTURE_WEBHOOK_SECRET`): each
   * account signs with its own, derived from it (`accountWebhookSecret`). A function gives an
   * account's own secret as you keep them, in Standard Webhooks' form (`whsec_<base64 of 24+ bytes>`).
   * Without one, `webhook_url` is refused.
   */
  webhookSecret?: string | ((accountId: string) => string | undefined);
  /** Tries per webhook delivery. @default 5 */
  webhookAttempts?: number;
  /** First webhook retry's delay; each next one doubles. @default 1000 */
  webhookBackoffMs?: number;
  /** Let webhooks go to private networks and loopback (tests, intranets). @default false */
  allowPrivateNetworks?: boolean;
  /** Chosen non-public addresses webhooks may go to, as the engine's `allowAddress` (a function or a list). */
  allowAddress?: AllowAddress | readonly string[];
  /** DNS resolver of the webhooks' egress guard. @default the system resolver */
  resolver?: Resolver;
}

export interface ResolvedJobsOptions {
  connect(): Redis;
  queueName: string;
  webhookQueueName: string;
  bulkQueueName: string;
  attempts: number;
  backoffMs: number;
  retentionMs: number;
  /** BullMQ's `removeOnComplete` / `removeOnFail`: finished jobs are kept as long as files. */
  keepFinished: { age: number };
  /** The account's webhook secret (`whsec_...`), or undefined when webhooks are not signed for it. */
  secretFor(accountId: string): string | undefined;
  webhookAttempts: number;
  webhookBackoffMs: number;
  allowPrivateNetworks: boolean;
  allowAddress: ((address: string, port: number) => boolean) | undefined;
  resolver: Resolver | undefined;
  /**
   * BullMQ's OpenTelemetry bridge, given to every queue and worker: a job carries the trace of the
   * request that queued it, so its capture and webhook continue that trace on whichever worker runs them.
   */
  telemetry: Telemetry;
}

/** The defaults of `CaptureJobsOptions` and `CaptureWorkerOptions`. */
export const JOBS_DEFAULTS = Object.freeze({ queueName: 'capture-engine', attempts: 3, backoffMs: 2_000, webhookAttempts: 5, webhookBackoffMs: 1_000, lockDurationMs: 30_000 });

export function resolveJobsOptions(options: CaptureJobsOptions): ResolvedJobsOptions {
  const { connection, webhookSecret } = options;
  const queueName = options.queueName ?? JOBS_DEFAULTS.queueName;
  const retentionMs = positive(options.retentionMs ?? DEFAULTS.fileLifetimeMs, 'retentionMs');
  return {
    // BullMQ's blocking commands must wait as long as they need: `maxRetriesPerRequest: null`.
    connect: () => (typeof connection === 'string' ? new Redis(connection, { maxRetriesPerRequest: null }) : connection.duplicate({ maxRetriesPerRequest: null })),
    queueName,
    webhookQueueName: `${queueName}-webhooks`,
    bulkQueueName: `${queueName}-bulk`,
    attempts: positive(options.attempts ?? JOBS_DEFAULTS.attempts, 'attempts'),
    backoffMs: positive(options.backoffMs ?? JOBS_DEFAULTS.backoffMs, 'backoffMs'),
    retentionMs,
    keepFinished: { age: Math.ceil(retentionMs / 1000) },
    secretFor: secretsFrom(webhookSecret),
    webhookAttempts: positive(options.webhookAttempts ?? JOBS_DEFAULTS.webhookAttempts, 'webhookAttempts'),
    webhookBackoffMs: positive(options.webhookBackoffMs ?? JOBS_DEFAULTS.webhookBackoffMs, 'webhookBackoffMs'),
    allowPrivateNetworks: options.allowPrivateNetworks ?? false,
    allowAddress: allowAddressOption(options.allowAddress),
    resolver: options.resolver,
    telemetry: new BullMQOtel({ tracerName: 'capture-engine' }),
  };
}

function secretsFrom(webhookSecret: CaptureJobsOptions['webhookSecret']): ResolvedJobsOptions['secretFor'] {
  if (typeof webhookSecret === 'function') {
    return (accountId) => {
      const secret = webhookSecret(accountId);
      return secret === undefined ? undefined : normalWebhookSecret(secret);
    };
  }
  // An empty secret would sign with a key anyone knows: no webhooks rather than forgeable ones.
  if (!webhookSecret) return () => undefined;
  return (accountId) => accountWebhookSecret(webhookSecret, accountId);
}

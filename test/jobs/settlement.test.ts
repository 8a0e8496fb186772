import { Queue, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveJobsOptions } from '../../src/jobs/jobs-options.js';
import { Settlement } from '../../src/jobs/settlement.js';
import { FairPriority } from '../../src/jobs/fair-priority.js';
import { WebhookOutbox } from '../../src/jobs/webhooks.js';
import { jobStatus } from '../../src/jobs/job-status.js';
import type { CaptureJobData, CaptureJobResult } from '../../src/jobs/job-data.js';
import { startRedis, type TestRedis } from '../helpers/redis-server.js';

/** Settling a capture job twice (a worker lost after settling, the stalled checker) acts once; real Redis. */
let redis: TestRedis;
let connection: Redis;
let outbox: WebhookOutbox;
let queue: Queue<CaptureJobData, CaptureJobResult>;
const refunds: string[] = [];
let settlement: Settlement;

beforeAll(async () => {
  redis = await startRedis();
  const options = resolveJobsOptions({ connection: redis.url, queueName: 'settle-test' });
  connection = options.connect();
  outbox = new WebhookOutbox(options, connection);
  queue = new Queue(options.queueName, { connection });
  settlement = new Settlement(connection, outbox, async (accountId) => void refunds.push(accountId), new FairPriority(connection, options.queueName, options.retentionMs), options.retentionMs, options.queueName);
});
afterAll(async () => {
  await outbox?.close();
  await queue?.close();
  await connection?.quit();
  await redis?.stop();
});

async function captureJob(id: string): Promise<Job<CaptureJobData, CaptureJobResult>> {
  return queue.add('capture', { params: { url: 'https://a.example', webhook_url: 'https://hooks.example/x' }, accountId: 'acct', tier: 'PRO', reservedAt: Date.now() }, { jobId: id });
}

describe('settlement', () => {
  it('records the first success and queues its webhook once; a later run of the job gets that result back', async () => {
    const job = await captureJob('successAAAAAAAAAAAAAAA');
    expect(await settlement.completed('successAAAAAAAAAAAAAAA')).toBeUndefined();
    const first = { url: '/api/files/one.png', size: 10, format: 'PNG', upload: { status: 200, attempts: 2 } };
    await settlement.settle(job, jobStatus(job, 'completed', { url: first.url, size: first.size, format: first.format }), first);
    await settlement.settle(job, jobStatus(job, 'completed', { url: '/api/files/two.png', size: 20, format: 'PNG' }));
    // The whole result, its upload included: a later run of the job reports what the first did.
    expect(await settlement.completed('successAAAAAAAAAAAAAAA')).toEqual(first);
    const webhooks = new Queue('settle-test-webhooks', { connection });
    const delivery = await webhooks.getJob('successAAAAAAAAAAAAAAA');
    expect(JSON.parse(delivery?.data.body as string)).toMatchObject({ status: 'completed', url: '/api/files/one.png' });
    expect(await webhooks.getJobCounts('waiting')).toEqual({ waiting: 1 });
    await webhooks.close();
  });

  it('refunds a failure once however often it is settled', async () => {
    const job = await captureJob('failureAAAAAAAAAAAAAAA');
    for (let i = 0; i < 3; i++) await settlement.settle(job, jobStatus(job, 'failed', { error: { code: 'CAPTURE_FAILED', error: 'x' } }));
    expect(refunds).toEqual(['acct']);
  });
});

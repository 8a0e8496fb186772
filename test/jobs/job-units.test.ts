import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { decodeFailure, encodeFailure } from '../../src/jobs/job-data.js';
import { stateOf } from '../../src/jobs/job-status.js';
import { accountWebhookSecret, webhookHeaders } from '../../src/jobs/index.js';
import { resolveJobsOptions } from '../../src/jobs/jobs-options.js';

describe('capture jobs: the parts without Redis', () => {
  it("keeps a failure's code and exposed message through BullMQ's failedReason", () => {
    expect(decodeFailure(encodeFailure(new CaptureError('ELEMENT_NOT_FOUND', "No visible element matches selector '#x'")))).toEqual({ code: 'ELEMENT_NOT_FOUND', error: "No visible element matches selector '#x'" });
    expect(decodeFailure(encodeFailure(new CaptureError('INTERNAL_ERROR', 'secret detail')))).toEqual({ code: 'INTERNAL_ERROR', error: 'Internal error' });
    expect(decodeFailure('job stalled more than allowable limit')).toMatchObject({ code: 'CAPTURE_FAILED', error: expect.stringMatching(/stalled/) });
  });

  it("names BullMQ's states as the interface does", () => {
    expect(['waiting', 'delayed', 'prioritized', 'waiting-children', 'active', 'completed', 'failed', 'unknown'].map((s) => stateOf(s as never))).toEqual([
      'queued', 'queued', 'queued', 'queued', 'processing', 'completed', 'failed', undefined,
    ]);
  });

  it("signs as Standard Webhooks do: the specification's own example, and the same HMAC as hex in X-Capture-Signature", () => {
    // From standard-webhooks' reference library tests ("sign function works").
    const attempt = { id: 'msg_p5jXN8AQM9LWM0D4loKWxJek', timestamp: 1614265330, body: '{"test": 2432232314}' };
    const headers = webhookHeaders(attempt, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(headers).toEqual({
      'webhook-id': attempt.id,
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
      'X-Capture-Signature': `sha256=${Buffer.from('g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=', 'base64').toString('hex')}`,
    });
    // The prefix is optional, as in Standard Webhooks.
    expect(webhookHeaders(attempt, 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toEqual(headers);
    // The id, the timestamp and the body are all signed.
    for (const changed of [{ ...attempt, id: 'msg_other' }, { ...attempt, timestamp: attempt.timestamp + 1 }, { ...attempt, body: `${attempt.body} ` }]) {
      expect(webhookHeaders(changed, 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')['webhook-signature']).not.toBe(headers['webhook-signature']);
    }
    expect(() => webhookHeaders(attempt, 'whsec_c2hvcnQ=')).toThrow(/at least 24 bytes/);
    expect(() => webhookHeaders(attempt, 'not base64!')).toThrow(/whsec_/);
  });

  it("gives each account a secret of its own, derived from the server's", () => {
    const a = accountWebhookSecret('server-secret', 'key_accountA');
    const b = accountWebhookSecret('server-secret', 'key_accountB');
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(a).toBe(`whsec_${createHmac('sha256', 'server-secret').update('capture-engine webhook key_accountA').digest('base64')}`);
    expect(b).not.toBe(a);
    expect(accountWebhookSecret('server-secret', 'key_accountA')).toBe(a);
    expect(accountWebhookSecret('other-server-secret', 'key_accountA')).not.toBe(a);
    // A's secret signs nothing B's would accept.
    const attempt = { id: 'capture1', timestamp: 1_800_000_000, body: '{}' };
    expect(webhookHeaders(attempt, a)['webhook-signature']).not.toBe(webhookHeaders(attempt, b)['webhook-signature']);
  });

  it('resolves the webhookSecret option: derived per account from a string, as given (prefixed) from a function, none when empty', () => {
    const derived = resolveJobsOptions({ connection: 'redis://127.0.0.1:1', webhookSecret: 'server-secret' });
    expect(derived.secretFor('key_accountA')).toBe(accountWebhookSecret('server-secret', 'key_accountA'));
    const kept = { acct: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', bare: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', short: 'whsec_c2hvcnQ=' } as Record<string, string>;
    const given = resolveJobsOptions({ connection: 'redis://127.0.0.1:1', webhookSecret: (accountId) => kept[accountId] });
    expect(given.secretFor('acct')).toBe('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(given.secretFor('bare')).toBe('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    expect(given.secretFor('nobody')).toBeUndefined();
    expect(() => given.secretFor('short')).toThrow(/at least 24 bytes/);
    expect(resolveJobsOptions({ connection: 'redis://127.0.0.1:1', webhookSecret: '' }).secretFor('acct')).toBeUndefined();
    expect(resolveJobsOptions({ connection: 'redis://127.0.0.1:1' }).secretFor('acct')).toBeUndefined();
  });
});

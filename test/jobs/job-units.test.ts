import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { decodeFailure, encodeFailure } from '../../src/jobs/job-data.js';
import { stateOf } from '../../src/jobs/job-status.js';
import { webhookSignature } from '../../src/jobs/index.js';

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

  it('signs the exact body with HMAC-SHA256', () => {
    const body = '{"id":"x","status":"completed"}';
    expect(webhookSignature(body, 's3cret')).toBe(`sha256=${createHmac('sha256', 's3cret').update(body).digest('hex')}`);
    expect(webhookSignature(`${body} `, 's3cret')).not.toBe(webhookSignature(body, 's3cret'));
  });
});

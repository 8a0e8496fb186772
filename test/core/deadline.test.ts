import { describe, expect, it } from 'vitest';
import { createDeadline, bestEffort, sleep } from '../../src/core/deadline.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

describe('deadline', () => {
  it('aborts with CAPTURE_TIMEOUT when the budget runs out', async () => {
    const deadline = createDeadline(20);
    await expect(sleep(1000, deadline.signal)).rejects.toMatchObject({ code: 'CAPTURE_TIMEOUT' });
    deadline.dispose();
  });

  it('passes a parent abort through as the capture reason', async () => {
    const parent = new AbortController();
    const deadline = createDeadline(10_000, parent.signal);
    parent.abort();
    expect(deadline.signal.aborted).toBe(true);
    expect((deadline.signal.reason as CaptureError).code).toBe('CAPTURE_FAILED');
    deadline.dispose();
  });

  it('gives a best-effort step what it wants, but never more than a quarter of what is left', () => {
    const deadline = createDeadline(4000);
    expect(deadline.share(100)).toBe(100);
    expect(deadline.share(2500)).toBeLessThanOrEqual(1000);
    expect(deadline.share(2500)).toBeGreaterThan(500);
    deadline.dispose();
  });

  it('lets a best-effort step fail or overrun without failing the capture', async () => {
    const deadline = createDeadline(5000);
    await bestEffort(() => Promise.reject(new Error('boom')), 100, deadline.signal);
    let overrun: AbortSignal | undefined;
    await bestEffort((signal) => {
      overrun = signal;
      return new Promise(() => undefined);
    }, 50, deadline.signal);
    // It returned although the step never settles: its own budget ended it, not the capture's.
    expect(overrun?.aborted).toBe(true);
    expect(deadline.signal.aborted).toBe(false);
    deadline.dispose();
  });
});

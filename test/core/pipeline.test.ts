import { describe, expect, it } from 'vitest';
import { Pipeline } from '../../src/core/pipeline.js';
import { createDeadline, bestEffort, sleep } from '../../src/core/deadline.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';

describe('pipeline', () => {
  it('keeps registration order within a phase and prefixes stage names', () => {
    const pipeline = new Pipeline();
    pipeline.use({ name: 'a', stages: [{ name: 'one', phase: 'settle', run: () => undefined }] });
    pipeline.use({ name: 'b', stages: [{ name: 'two', phase: 'settle', run: () => undefined }, { name: 'x', phase: 'prepare', run: () => undefined }] });
    expect(pipeline.stages('settle').map((stage) => stage.name)).toEqual(['a/one', 'b/two']);
    expect(pipeline.stages('prepare').map((stage) => stage.name)).toEqual(['b/x']);
  });

  it('checks dependencies and duplicate names at registration', () => {
    const pipeline = new Pipeline();
    expect(() => pipeline.use({ name: 'needs', dependencies: ['base'] })).toThrow(/needs 'base'/);
    pipeline.use({ name: 'base' });
    pipeline.use({ name: 'needs', dependencies: ['base'] });
    expect(() => pipeline.use({ name: 'base' })).toThrow(/already registered/);
  });

  it('refuses a stage in an unknown phase', () => {
    expect(() => new Pipeline().use({ name: 'p', stages: [{ name: 's', phase: 'later' as never, run: () => undefined }] })).toThrow(/unknown phase/);
  });
});

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

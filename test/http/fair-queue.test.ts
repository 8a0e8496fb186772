import { describe, expect, it } from 'vitest';
import { FairQueue } from '../../src/browser/fair-queue.js';

/** A task that runs until `finish()` is called, noting when it started. */
function gate(log: string[], name: string) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return { task: async () => void (log.push(name), await done), finish: () => finish() };
}
const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('fair queue (the browser pool\'s)', () => {
  it('hands a freed slot to the tenant served least recently: a lone capture waits for one of a burst, not all of it', async () => {
    const queue = new FairQueue(2);
    const started: string[] = [];
    const burst = Array.from({ length: 6 }, (_, i) => gate(started, `a${i}`));
    const running = burst.map(({ task }) => queue.add(task, { tenant: 'a' }));
    await tick();
    const lone = gate(started, 'b0');
    const waiting = queue.add(lone.task, { tenant: 'b' });
    expect(queue.size).toBe(5);
    expect(queue.waitingOf('b')).toBe(1);
    burst[0]?.finish();
    await tick();
    expect(started).toEqual(['a0', 'a1', 'b0']);
    for (const { finish } of burst) finish();
    lone.finish();
    await Promise.all([...running, waiting]);
    expect(started).toEqual(['a0', 'a1', 'b0', 'a2', 'a3', 'a4', 'a5']);
    await queue.onIdle();
  });

  it('keeps a tenant within its cap while slots are free, and takes turns between tenants', async () => {
    const queue = new FairQueue(4);
    const started: string[] = [];
    const a = Array.from({ length: 3 }, (_, i) => gate(started, `a${i}`));
    const c = Array.from({ length: 3 }, (_, i) => gate(started, `c${i}`));
    const all = [...a.map(({ task }) => queue.add(task, { tenant: 'a', maxRunning: 1 })), ...c.map(({ task }) => queue.add(task, { tenant: 'c', maxRunning: 1 }))];
    await tick();
    expect(started).toEqual(['a0', 'c0']);
    a[0]?.finish();
    await tick();
    expect(started).toEqual(['a0', 'c0', 'a1']);
    for (const { finish } of [...a, ...c]) finish();
    await Promise.all(all);
    expect(started.slice(3).sort()).toEqual(['a2', 'c1', 'c2']);
  });

  it('forgets a waiting task whose signal aborts, rejecting with its reason', async () => {
    const queue = new FairQueue(1);
    const started: string[] = [];
    const first = gate(started, 'first');
    const running = queue.add(first.task);
    const controller = new AbortController();
    const waiting = queue.add(async () => void started.push('never'), { signal: controller.signal });
    controller.abort(new Error('gave up'));
    await expect(waiting).rejects.toThrow('gave up');
    expect(queue.size).toBe(0);
    first.finish();
    await running;
    await queue.onIdle();
    expect(started).toEqual(['first']);
  });
});

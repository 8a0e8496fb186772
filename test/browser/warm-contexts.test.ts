import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp, type CaptureEngine } from '../../src/index.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { createTestEngine } from '../helpers/engine.js';
import { renderersBelow } from '../helpers/processes.js';
import { until } from '../helpers/wait.js';

// Issue 49: a service at rest holds what a bare browser does; its warm context comes back with the next capture.
let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer();
});
afterAll(async () => fixtures?.close());

describe('warm contexts', () => {
  let engine: CaptureEngine;
  afterAll(async () => engine?.close());

  it('are one by default, closed with their renderers after warmIdleMs at rest, and opened again by the next capture', async () => {
    engine = await createTestEngine({ warmIdleMs: 800 });
    await until(() => engine.stats.warm === 1, 'the warm context');
    const renderersWarm = renderersBelow(process.pid).length;
    expect(renderersWarm).toBeGreaterThanOrEqual(1);
    await until(() => engine.stats.warm === 0 && engine.stats.contexts === 0, 'the warm context to close at rest', 5_000);
    await until(() => renderersBelow(process.pid).length === renderersWarm - 1, 'its renderer to go', 5_000);
    // Resting: nothing opens again by itself.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(engine.stats.warm).toBe(0);
    const shot = await engine.capture({ url: fixtures.url('/solid?color=%23123456'), viewport_width: 200, viewport_height: 100 });
    expect(shot.size).toBeGreaterThan(0);
    await shot.dispose();
    await until(() => engine.stats.warm === 1, 'the warm context to come back after a capture');
    // The readings a container's limit is sized from.
    const ready = JSON.parse((await createCaptureHttp(engine).ready(true)).body as string) as { pressure: Record<string, number> };
    expect(ready.pressure.serviceMemoryMb).toBeGreaterThan(20);
    expect(ready.pressure.browserMemoryMb).toBeGreaterThan(20);
  });

  it('refuses a count that is not a whole number of 0 or more, naming the option', async () => {
    await expect(createTestEngine({ warmContexts: -1 })).rejects.toThrow(/warmContexts/);
    await expect(createTestEngine({ warmIdleMs: 1.5 })).rejects.toThrow(/warmIdleMs/);
  });
});

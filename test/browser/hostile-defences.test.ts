import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCaptureHttp, type CaptureEngine, type CapturePlugin } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { cpuShareBelow, isAlive, renderersBelow } from '../helpers/processes.js';
import { until } from '../helpers/wait.js';

let fixtures: FixtureServer;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    // Starts spinning once loaded, so a navigation to it finishes.
    '/spin-later': (_req, res) => html(res, '<body style="background:#0000ff"><script>setTimeout(() => { while (true) {} }, 200)</script></body>'),
    // Holds about 600 MB of written array buffers (outside V8's heap, so only the watchdog sees them).
    '/buffers': (_req, res) =>
      html(res, '<body style="background:#ff0000"><script>window.keep = []; for (let i = 0; i < 12; i++) window.keep.push(new Uint8Array(50e6).fill(1));</script></body>'),
  });
});
afterAll(async () => fixtures?.close());

const solid = (): { url: string; viewport_width: number; viewport_height: number } => ({ url: fixtures.url('/solid?color=%2300ff00'), viewport_width: 100, viewport_height: 100 });

/** A test-only plugin that opens a page outside the pool in the capture's browser and leaves it spinning. */
function leakSpinningPage(url: () => string): CapturePlugin {
  return {
    name: 'leak-spinning-page',
    stages: [
      {
        name: 'leak',
        phase: 'settle',
        when: (params) => (params.url ?? '').includes('leak'),
        run: async (ctx) => {
          const browser = ctx.browserContext.browser();
          if (!browser) throw new Error('no browser');
          const page = await (await browser.newContext()).newPage();
          await page.goto(url());
        },
      },
    ],
  };
}

describe('hostile-page defences of the pool', () => {
  let engine: CaptureEngine;
  beforeAll(async () => {
    engine = await createTestEngine({ concurrency: 1, warmContexts: 1, plugins: [leakSpinningPage(() => fixtures.url('/spin-later'))] });
  });
  afterAll(async () => engine?.close());

  it('runs renderers in Chromium\'s sandbox (seccomp), and not as root', async () => {
    await engine.capture(solid());
    const renderers = renderersBelow(process.pid);
    expect(renderers.length).toBeGreaterThan(0);
    for (const pid of renderers) {
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      expect(status).toMatch(/^Seccomp:\s+2$/m);
      const uid = Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]);
      if (process.getuid?.() === 0) expect(uid).not.toBe(0);
      else expect(uid).toBe(process.getuid?.());
    }
  });

  it('kills a renderer still busy while no capture runs, and counts it', async () => {
    await engine.capture({ ...solid(), url: fixtures.url('/solid?color=%2300ff00&leak=1') });
    const leaked = renderersBelow(process.pid);
    await until(() => engine.stats.renderersKilled.busy >= 1, 'the watchdog to kill the spinning renderer', 10_000);
    // Killed is not yet gone: the renderer stays a zombie until Chromium reaps it.
    await until(() => leaked.some((pid) => !isAlive(pid)), 'the killed renderer to be reaped', 5_000);
    expect(await cpuShareBelow(process.pid, 1000)).toBeLessThan(0.05);
    const shot = await engine.capture(solid());
    expect(shot.size).toBeGreaterThan(0);
  });
});

describe('memory ceilings', () => {
  it('kills a renderer past rendererMemoryMb: its capture fails at once with renderer_crashed', async () => {
    const engine = await createTestEngine({ concurrency: 1, warmContexts: 1, rendererMemoryMb: 300 });
    try {
      const started = Date.now();
      await expect(engine.capture({ url: fixtures.url('/buffers'), delay: 20_000 })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'renderer_crashed' } });
      expect(Date.now() - started).toBeLessThan(15_000);
      expect(engine.stats.renderersKilled.memory).toBe(1);
      expect((await engine.capture(solid())).size).toBeGreaterThan(0);
    } finally {
      await engine.close();
    }
  });

  it('recycles a browser past browserMemoryMb once its captures end', async () => {
    const engine = await createTestEngine({ concurrency: 1, warmContexts: 1, browserMemoryMb: 64 });
    try {
      await engine.capture(solid());
      await until(() => engine.stats.browserMemoryBytes > 64 * 2 ** 20, 'a reading of the browser over its ceiling');
      await engine.capture(solid());
      await engine.capture(solid());
      expect(engine.stats.launches).toBeGreaterThan(1);
    } finally {
      await engine.close();
    }
  });
});

describe('queue limits', () => {
  it('maxQueue 0 runs a capture on a free slot and refuses one that would wait; /readyz says the queue is full meanwhile', async () => {
    const engine = await createTestEngine({ concurrency: 1, warmContexts: 1, maxQueue: 0 });
    try {
      expect((await engine.capture(solid())).size).toBeGreaterThan(0);
      const slow = engine.capture({ ...solid(), delay: 2000 });
      await until(() => engine.stats.running === 1, 'the slow capture to run');
      await expect(engine.capture(solid())).rejects.toMatchObject({ code: 'SERVICE_BUSY' });
      const ready = await createCaptureHttp(engine).ready(true);
      expect(ready.status).toBe(503);
      expect(JSON.parse(ready.body as string)).toMatchObject({ status: 'not ready', failures: { queue: expect.stringContaining('full') }, pressure: { running: 1 } });
      await slow;
      expect((await createCaptureHttp(engine).ready()).status).toBe(200);
    } finally {
      await engine.close();
    }
  });
});

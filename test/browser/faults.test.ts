import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CapturePlugin } from '../../src/index.js';
import { CaptureError } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';
import { chromiumChildren } from '../helpers/processes.js';
import { until } from '../helpers/wait.js';

let fixtures: FixtureServer;
const BUDGET = 8000;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/spin': (_req, res) => res.writeHead(200, { 'Content-Type': 'text/html' }).end('<body><script>while (true) {}</script></body>'),
    '/dialogs': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;background:#00ff00;height:100vh"><script>
        alert('hello'); confirm('sure?'); prompt('name?'); window.print();
        setInterval(() => alert('again'), 5);
        window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = 'stay'; });
      </script></body>`),
    // As pdf.js's viewer starts: strict code that puts its own print in place, then goes on.
    '/own-print': (_req, res) =>
      res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;background:#ff0000;height:100vh"><script>
        'use strict';
        window.print = function print() { document.body.style.background = '#00ff00'; };
        window.print();
      </script></body>`),
  });
});
afterAll(async () => fixtures?.close());

/** A test-only plugin whose stage runs `fault` in the given phase when the url asks for it. */
function faultPlugin(marker: string, fault: Parameters<NonNullable<CapturePlugin['stages']>[number]['run']>[0] extends infer C ? (ctx: C) => Promise<void> : never): CapturePlugin {
  return { name: `fault-${marker}`, stages: [{ name: marker, phase: 'settle', when: (p) => (p.url ?? '').includes(marker), run: fault }] };
}

const browsersOfThisProcess = (): number[] => chromiumChildren(process.pid);

function settled(engine: CaptureEngine): Promise<void> {
  return until(() => engine.stats.running === 0 && engine.stats.contexts <= engine.stats.warm, 'captures to end and their contexts to close');
}

describe('faults', () => {
  let engine: CaptureEngine;
  beforeAll(async () => {
    engine = await createTestEngine({
      timeoutMs: BUDGET,
      concurrency: 1,
      warmContexts: 1,
      plugins: [
        faultPlugin('crash-tab', async (ctx) => {
          await ctx.cdp.send('Page.crash').catch(() => undefined);
        }),
        faultPlugin('kill-browser', async () => {
          for (const pid of browsersOfThisProcess()) process.kill(pid, 'SIGKILL');
          await new Promise((r) => setTimeout(r, 300));
        }),
      ],
    });
  });
  afterAll(async () => engine?.close());

  const ok = async (): Promise<void> => {
    const shot = await engine.capture({ url: fixtures.url('/solid?color=%2300ff00'), viewport_width: 100, viewport_height: 100 });
    expect(near((await decode(shot.data as Buffer)).at(50, 50), '#00ff00')).toBe(true);
  };

  it('a renderer crash fails only its capture, at once (not by its deadline)', async () => {
    await expect(engine.capture({ url: fixtures.url('/solid?crash-tab') })).rejects.toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'renderer_crashed' } });
    await ok();
  });

  it('Chromium killed mid-capture: a clean 502, then the pool relaunches it', async () => {
    expect(browsersOfThisProcess().length).toBeGreaterThan(0);
    const failure = await engine.capture({ url: fixtures.url('/solid?kill-browser') }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(CaptureError);
    expect((failure as CaptureError).status).toBeGreaterThanOrEqual(502);
    await ok();
  });

  it('while(true) pages end in CAPTURE_TIMEOUT and the browser stays usable', async () => {
    // A budget of its own, shorter than the engine's: the page takes all of it.
    await expect(engine.capture({ url: fixtures.url('/spin'), timeout: 1000 })).rejects.toMatchObject({ code: 'CAPTURE_TIMEOUT', status: 504 });
    await ok();
  });

  it('never-ending responses end in CAPTURE_TIMEOUT', async () => {
    await expect(engine.capture({ url: fixtures.url('/never'), timeout: 1000 })).rejects.toMatchObject({ code: 'CAPTURE_TIMEOUT' });
    await ok();
  });

  it('dialogs (alert, confirm, prompt, print, beforeunload) never block a capture', async () => {
    const shot = await engine.capture({ url: fixtures.url('/dialogs'), delay: 200, viewport_width: 100, viewport_height: 100 });
    expect(near((await decode(shot.data as Buffer)).at(50, 50), '#00ff00')).toBe(true);
  });

  it('lets a page put its own print in place of the quiet one (strict code assigning window.print)', async () => {
    const shot = await engine.capture({ url: fixtures.url('/own-print'), viewport_width: 100, viewport_height: 100 });
    expect(near((await decode(shot.data as Buffer)).at(50, 50), '#00ff00')).toBe(true);
  });

  it('leaves no context behind after the faults', async () => {
    await settled(engine);
    expect(engine.stats.running).toBe(0);
    expect(engine.stats.contexts).toBeLessThanOrEqual(engine.stats.warm);
  });
});

describe('queue limits', () => {
  it('a full queue answers SERVICE_BUSY with Retry-After at once; aborting a queued capture frees its place', async () => {
    const engine = await createTestEngine({ concurrency: 1, maxQueue: 1, timeoutMs: 5000 });
    try {
      const runningAbort = new AbortController();
      const running = engine.capture({ url: fixtures.url('/never') }, { signal: runningAbort.signal }).catch((error: unknown) => error);
      await until(() => engine.stats.running === 1, 'the first capture to run');
      const queuedAbort = new AbortController();
      const queued = engine.capture({ url: fixtures.url('/never') }, { signal: queuedAbort.signal }).catch((error: unknown) => error);
      await until(() => engine.stats.queued === 1, 'the second capture to queue');
      const busy = await engine.capture({ url: fixtures.url('/solid') }).catch((error: unknown) => error);
      expect(busy).toMatchObject({ code: 'SERVICE_BUSY', status: 503 });
      expect(Number((busy as CaptureError).headers['Retry-After'])).toBeGreaterThan(0);
      queuedAbort.abort();
      expect(await queued).toBeInstanceOf(Error);
      expect(engine.stats.queued).toBe(0);
      // Given up rather than left to run out its 5 s: the queue's checks are done.
      runningAbort.abort();
      expect(await running).toBeInstanceOf(Error);
    } finally {
      await engine.close();
    }
  });
});

describe('abandoned captures', () => {
  it('a capture given up while its context opens leaves no context behind', async () => {
    const engine = await createTestEngine({ warmContexts: 0 });
    try {
      for (const afterMs of [0, 2, 5, 10, 20]) {
        const abort = new AbortController();
        const capture = engine.capture({ url: fixtures.url('/solid') }, { signal: abort.signal }).catch((error: unknown) => error);
        setTimeout(() => abort.abort(), afterMs);
        expect(await capture).toBeInstanceOf(CaptureError);
      }
      await until(() => engine.stats.running === 0 && engine.stats.contexts === 0, 'the contexts of the abandoned captures to close');
    } finally {
      await engine.close();
    }
  });
});

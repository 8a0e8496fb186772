import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureEngineOptions, CapturePlugin } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';
import { chromiumChildren } from '../helpers/processes.js';
import { until } from '../helpers/wait.js';
import { startService } from '../ops/service-under-test.js';

/** What each load of /state found, in order. */
let seen: Record<string, string>[] = [];
/** history.length of a fresh tab's first page: its initial about:blank and the page. */
const FRESH = '2';
let fixtures: FixtureServer;

beforeAll(async () => {
  fixtures = await startFixtureServer({
    // Reports what an earlier capture could have left (its cookie, its storage, the tab's history),
    // leaves all of it behind, and turns red when it found any of the cookie or local storage.
    '/state': (_req, res) =>
      html(
        res,
        `<body style="margin:0;height:100vh;background:#00ff00"><script>
          const found = { cookie: document.cookie.includes('k=1'), local: localStorage.getItem('k') === '1', session: sessionStorage.getItem('k') === '1', history: history.length };
          document.cookie = 'k=1; path=/; max-age=3600';
          localStorage.setItem('k', '1');
          sessionStorage.setItem('k', '1');
          const report = new XMLHttpRequest();
          report.open('GET', '/seen?' + new URLSearchParams(Object.entries(found).map(([k, v]) => [k, String(v)])), false);
          report.send();
          if (found.cookie || found.local) document.body.style.background = '#ff0000';
          if (${'location.search'}.includes('popup')) window.open('/state');
        </script></body>`,
      ),
    // Keeps about 20 MB of objects alive until the page is left.
    '/garbage': (_req, res) =>
      html(res, `<body style="margin:0;height:100vh;background:#00ff00"><script>window.junk = Array.from({ length: 300000 }, (_, i) => ({ i, text: 'item ' + i }));</script></body>`),
    '/seen': (_req, res, query) => {
      seen.push(Object.fromEntries(query));
      res.writeHead(204).end();
    },
  });
});
afterAll(async () => fixtures?.close());

let engine: CaptureEngine | undefined;
afterEach(async () => {
  await engine?.close();
  engine = undefined;
  seen = [];
});

async function start(options: CaptureEngineOptions): Promise<CaptureEngine> {
  engine = await createTestEngine({ warmContexts: 0, ...options });
  return engine;
}

/** Captures /state and returns what that load found; the image must be green (nothing left over). */
async function captureState(target: CaptureEngine, reuseKey?: string, params: Record<string, unknown> = {}, query = ''): Promise<Record<string, string>> {
  const before = seen.length;
  const shot = await target.capture({ url: fixtures.url(`/state${query}`), viewport_width: 200, viewport_height: 100, ...params }, { reuseKey });
  const image = await decode(await shot.buffer());
  expect(near(image.at(100, 50), '#00ff00')).toBe(true);
  expect(seen.length).toBeGreaterThan(before);
  return seen[before] as Record<string, string>;
}

describe('context reuse (contextReuse)', () => {
  it('is off by default: every capture gets a fresh context', async () => {
    const target = await start({});
    await captureState(target, 'a');
    const second = await captureState(target, 'a');
    expect(second.history).toBe(FRESH);
    expect(target.stats.reusable).toBe(0);
  });

  it('keeps the context for the same key, with cookies and local storage cleared in between', async () => {
    const target = await start({ contextReuse: true, concurrency: 1 });
    const first = await captureState(target, 'a');
    expect(first.history).toBe(FRESH);
    // The context is reset and kept after the caller has its result.
    await until(() => target.stats.reusable === 1, 'the context to be kept');
    for (let i = 0; i < 2; i++) {
      const again = await captureState(target, 'a');
      // The same tab: its history grew (about:blank between two loads).
      expect(Number(again.history)).toBeGreaterThan(Number(FRESH));
      expect(again.cookie).toBe('false');
      expect(again.local).toBe('false');
      expect(again.session).toBe('false');
    }
    await until(() => target.stats.reusable === 1, 'the context to be kept');
    expect(target.stats.contexts).toBe(1);
  });

  it('never lends one key\'s context to another key', async () => {
    const target = await start({ contextReuse: true, concurrency: 2 });
    await captureState(target, 'a');
    const other = await captureState(target, 'b');
    expect(other.history).toBe(FRESH);
    await until(() => target.stats.reusable === 2, 'both contexts to be kept');
  });

  it('keeps contexts lent and kept within concurrency: another key\'s kept context makes room', async () => {
    const target = await start({ contextReuse: true, concurrency: 2 });
    await captureState(target, 'a');
    await captureState(target, 'b');
    await until(() => target.stats.reusable === 2, 'both contexts to be kept');
    // Sampled while c's capture runs: once it has its result, its context moves to the kept ones.
    let capturing = true;
    let most = 0;
    const watch = setInterval(() => {
      if (capturing) most = Math.max(most, target.stats.running + target.stats.reusable);
    }, 2);
    try {
      const shot = await target.capture({ url: fixtures.url('/state'), viewport_width: 200, viewport_height: 100 }, { reuseKey: 'c' }).finally(() => (capturing = false));
      expect(near((await decode(await shot.buffer())).at(100, 50), '#00ff00')).toBe(true);
    } finally {
      clearInterval(watch);
    }
    expect(most).toBe(2);
    await until(() => target.stats.reusable === 2 && target.stats.contexts === 2, 'a and c kept, b closed');
  });

  it('closes warm contexts a kept one stands in for: lent, kept and warm stay within warmContexts', async () => {
    // Asked at once, the first captures open their own contexts while the warm ones are opening.
    const target = await start({ contextReuse: true, concurrency: 2, warmContexts: 2 });
    await Promise.all([captureState(target, 'a'), captureState(target, 'a')]);
    // Nothing running, opening or closing: every context is kept or warm.
    const settled = (): boolean => {
      const { running, reusable, contexts, warm } = target.stats;
      return running === 0 && reusable === 2 && contexts === reusable + warm;
    };
    await until(settled, 'both contexts to be kept, none opening');
    await captureState(target, 'a');
    await until(() => settled() && target.stats.warm === 0, 'the warm contexts beyond warmContexts to close');
    expect(target.stats.contexts).toBe(2);
  });

  it('gives a capture that sets context state (cookies) a fresh context, and does not keep it', async () => {
    const target = await start({ contextReuse: true, concurrency: 1 });
    const withCookies = await captureState(target, 'a', { cookies: 'other=1' });
    expect(withCookies.history).toBe(FRESH);
    expect(target.stats.reusable).toBe(0);
    expect((await captureState(target, 'a')).history).toBe(FRESH);
  });

  it('keeps the context of a printed document, its storage cleared; a single-page PDF, laid out in print media first, gets its own', async () => {
    // Red: a capture found the storage an earlier one left; blue: the tab was reused (its history
    // grew); green: a fresh tab.
    const document = `<body style="margin:0;height:100vh"><script>
      const found = localStorage.getItem('k') === '1';
      localStorage.setItem('k', '1');
      document.body.style.background = found ? '#ff0000' : history.length > ${FRESH} ? '#0000ff' : '#00ff00';
    </script></body>`;
    const target = await start({ contextReuse: true, concurrency: 1 });
    const colour = async (): Promise<string> => {
      const shot = await target.capture({ html: document, viewport_width: 200, viewport_height: 100 }, { reuseKey: 'a' });
      const image = await decode(await shot.buffer());
      return ['#ff0000', '#0000ff', '#00ff00'].find((expected) => near(image.at(100, 50), expected)) ?? 'another colour';
    };
    const pdf = await target.capture({ html: document, format: 'pdf' }, { reuseKey: 'a' });
    expect((await pdf.buffer()).subarray(0, 5).toString()).toBe('%PDF-');
    await until(() => target.stats.reusable === 1, 'the printed document\'s context to be kept');
    expect(await colour()).toBe('#0000ff');
    await until(() => target.stats.reusable === 1, 'the context to be kept again');
    await target.capture({ html: document, format: 'pdf', pdf_single_page: true }, { reuseKey: 'a' });
    expect(target.stats.reusable).toBe(0);
    expect(await colour()).toBe('#00ff00');
  });

  it('closes a context after maxUses captures, and the popups a capture opened before the next', async () => {
    const target = await start({ contextReuse: { maxUses: 2 }, concurrency: 1 });
    await captureState(target, 'a', {}, '?popup');
    expect(Number((await captureState(target, 'a')).history)).toBeGreaterThan(Number(FRESH));
    expect((await captureState(target, 'a')).history).toBe(FRESH);
  });

  it('counts every capture a kept context serves towards recycleAfter, and relaunches the browser on time', async () => {
    const target = await start({ contextReuse: true, concurrency: 1, recycleAfter: 2 });
    expect((await captureState(target, 'a')).history).toBe(FRESH);
    await until(() => target.stats.reusable === 1, 'the context to be kept');
    expect(Number((await captureState(target, 'a')).history)).toBeGreaterThan(Number(FRESH));
    await until(() => target.stats.reusable === 1, 'the context to be kept again');
    // Two captures served: the kept context is not lent again, a new browser serves the third.
    expect((await captureState(target, 'a')).history).toBe(FRESH);
    expect(target.stats.launches).toBe(2);
  });

  it('over HTTP, keys contexts by account: the same key reuses, another key does not', async () => {
    const keys = { a: 'reuse_key_a_0123456789abcdef', b: 'reuse_key_b_0123456789abcdef' };
    const service = await startService({ contextReuse: true, concurrency: 2, warmContexts: 0 }, { apiKeys: [{ key: keys.a, tier: 'PRO' }, { key: keys.b, tier: 'PRO' }] });
    try {
      const load = async (key: string): Promise<Record<string, string>> => {
        const before = seen.length;
        const response = await fetch(`${service.origin}/api/v1/capture?url=${encodeURIComponent(fixtures.url('/state'))}&viewport_width=200&viewport_height=100`, { headers: { 'X-API-Key': key } });
        expect(response.status).toBe(200);
        expect(near((await decode(Buffer.from(await response.arrayBuffer()))).at(100, 50), '#00ff00')).toBe(true);
        return seen[before] as Record<string, string>;
      };
      expect((await load(keys.a)).history).toBe(FRESH);
      await until(() => service.engine.stats.reusable === 1, 'the context to be kept');
      expect(Number((await load(keys.a)).history)).toBeGreaterThan(Number(FRESH));
      await until(() => service.engine.stats.reusable === 1, 'the context to be kept again');
      expect((await load(keys.b)).history).toBe(FRESH);
    } finally {
      await service.close();
    }
  });

  it('collects the garbage a capture left in a kept renderer before lending it again', async () => {
    // Each capture's page, and what its renderer's heap holds when the capture starts, before it navigates.
    const pages: unknown[] = [];
    const heapAtStart: number[] = [];
    const heapProbe: CapturePlugin = {
      name: 'test-heap-probe',
      stages: [
        {
          name: 'heap',
          phase: 'prepare',
          // Reads only: an undeclared stage would be taken to leave state, and its capture not share.
          leavesContextState: false,
          run: async (ctx) => {
            pages.push(ctx.page);
            heapAtStart.push((await ctx.cdp.send('Runtime.getHeapUsage')).usedSize);
          },
        },
      ],
    };
    const target = await start({ contextReuse: true, concurrency: 1, plugins: [heapProbe] });
    const capture = async (): Promise<void> => {
      const shot = await target.capture({ url: fixtures.url('/garbage'), viewport_width: 200, viewport_height: 100 }, { reuseKey: 'a' });
      expect(near((await decode(await shot.buffer())).at(100, 50), '#00ff00')).toBe(true);
      await until(() => target.stats.reusable === 1, 'the context to be kept');
    };
    await capture();
    await capture();
    expect(pages).toHaveLength(2);
    expect(pages[1]).toBe(pages[0]);
    // The kept renderer left the page with 20 MB of objects: collected, it starts near a fresh one.
    expect(heapAtStart[1]).toBeLessThan(8 * 1024 * 1024);
  });

  it('closes the kept contexts with the engine: no browser process stays', async () => {
    const target = await start({ contextReuse: { idleMs: 60_000 }, concurrency: 2 });
    await captureState(target, 'a');
    await captureState(target, 'b');
    await until(() => target.stats.reusable === 2, 'both contexts to be kept');
    await target.close();
    engine = undefined;
    expect(chromiumChildren(process.pid)).toEqual([]);
  });
});

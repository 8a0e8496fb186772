import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

let fixtures: FixtureServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startFixtureServer({
    '/plain': (_req, res) => html(res, '<body style="height:100vh;background:#ff0000"></body>'),
  });
  engine = await createTestEngine({ timeoutMs: 8000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const small = { viewport_width: 200, viewport_height: 100 };
const colourOf = async (data: Buffer | undefined): Promise<[number, number, number]> => (await decode(data as Buffer)).at(100, 50);

describe("library hooks (capture-website's beforeNavigation and beforeScreenshot)", () => {
  it('beforeNavigation gets the blank page before it navigates; beforeCapture the ready page, after styles and before delay', async () => {
    const seen: { hook: string; url: string; page: Page }[] = [];
    const result = await engine.capture(
      { url: fixtures.url('/plain'), ...small, styles: 'body{background:#ffff00!important}', delay: 1000 },
      {
        beforeNavigation: async (page) => {
          seen.push({ hook: 'beforeNavigation', url: page.url(), page });
          // What the page's own scripts would see first.
          await page.addInitScript(() => Object.assign(window, { fromHook: '#00ff00' }));
        },
        beforeCapture: async (page) => {
          seen.push({ hook: 'beforeCapture', url: page.url(), page });
          expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(255, 255, 0)');
          // Changed a moment later: only a shot taken after `delay` shows it.
          await page.evaluate(() => setTimeout(() => document.body.setAttribute('style', `height:100vh;background:${(window as unknown as { fromHook: string }).fromHook}!important`), 100));
        },
      },
    );
    expect(seen.map(({ hook, url }) => [hook, url])).toEqual([
      ['beforeNavigation', 'about:blank'],
      ['beforeCapture', fixtures.url('/plain')],
    ]);
    expect(seen[0]?.page).toBe(seen[1]?.page);
    expect(near(await colourOf(result.data), '#00ff00')).toBe(true);
  });

  it('beforeNavigation may route the target itself', async () => {
    const result = await engine.capture({ url: fixtures.url('/routed'), ...small }, { beforeNavigation: (page) => page.route('**/routed', (route) => route.fulfill({ contentType: 'text/html', body: '<body style="margin:0;height:100vh;background:#0000ff"></body>' })) });
    expect(near(await colourOf(result.data), '#0000ff')).toBe(true);
    expect(fixtures.hits('/routed')).toBe(0);
  });

  it('a hook that throws fails the capture as CAPTURE_FAILED (reason hook) with its error as the cause', async () => {
    const mine = new Error('not today');
    const failure = await engine.capture({ url: fixtures.url('/plain'), ...small }, { beforeCapture: () => Promise.reject(mine) }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ code: 'CAPTURE_FAILED', details: { reason: 'hook' }, cause: mine });
    expect((failure as Error).message).toContain('beforeCapture failed: not today');
  });

  it('a hook that never ends is ended by the capture\'s deadline', async () => {
    await expect(engine.capture({ url: fixtures.url('/plain'), ...small, timeout: 2000 }, { beforeNavigation: () => new Promise(() => undefined) })).rejects.toMatchObject({ code: 'CAPTURE_TIMEOUT' });
  });
});

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { createTestEngine } from '../helpers/engine.js';
import { decode, differingPixels, near } from '../helpers/pixels.js';
import { startPageServer, type PageServer } from '../../fixtures/page-server.js';
import { GREEN, LATE_PAGES, RED, serveLatePages } from '../../fixtures/late-pages/pages.js';

const BLUE = '#0000ff';
const PAGES: Record<string, string> = {
  '/ticking': `<p id="clock"></p><script>document.body.style.background = '${GREEN}'; setInterval(() => (clock.textContent = Date.now()), 16);</script>`,
  // A poll that sets a new timer from each one, with a fresh callback each time, and never changes the page.
  '/polls': `<script>document.body.style.background = '${GREEN}'; const poll = () => setTimeout(() => poll(), 300); poll();</script>`,
  // The page's timers behave as the browser's own: their `this`, extra arguments, clearTimeout.
  '/timers': `<script>
    setTimeout(function (colour, times) { if (this === window && times === 2) document.body.style.background = colour; }, 10, '${GREEN}', 2);
    const cancelled = setTimeout(() => (document.body.style.background = '${BLUE}'), 20);
    clearTimeout(cancelled);
  </script>`,
  // Script without a script element: an inline handler that keeps changing the page for 300 ms after it runs, one task after another.
  '/handler-changes': `<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onerror="const until = performance.now() + 300; const { port1, port2 } = new MessageChannel(); port1.onmessage = () => { document.body.dataset.at = performance.now(); if (performance.now() < until) port2.postMessage(0); else document.body.style.background = '${GREEN}'; }; port2.postMessage(0);">`,
  // No script at all, a background that comes slowly: loaded, still not finished before it.
  '/no-script-slow-background': `<div style="position:fixed;inset:0;background:url(/late/image.svg) 0 0 / 100% 100%"></div>`,
};

let fixtures: PageServer;
let engine: CaptureEngine;
beforeAll(async () => {
  fixtures = await startPageServer((_req, res, url) => {
    if (serveLatePages(res, url.pathname)) return;
    const page = PAGES[url.pathname];
    if (page) return void res.writeHead(200, { 'Content-Type': 'text/html' }).end(`<body style="margin:0;height:100vh;background:${RED}">${page}</body>`);
    res.writeHead(404).end();
  });
  engine = await createTestEngine({ timeoutMs: 20_000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const capture = async (path: string, params: Omit<CaptureInput, 'url'> = {}) =>
  engine.capture({ url: fixtures.url(path), viewport_width: 400, viewport_height: 300, ...params });
/** What a person sees who waits: the network idle, then two more seconds. */
const PATIENT = { settle: false, wait_until: 'networkidle0', delay: 2000 } as const;

describe('the default settle step', () => {
  it.each(LATE_PAGES.map((page) => [page.path, page] as const))('captures %s as a patient capture does, pixel for pixel', async (_path, page) => {
    const [byDefault, patient, unsettled] = await Promise.all([
      capture(page.path, page.params),
      capture(page.path, { ...page.params, ...PATIENT }),
      page.finishesLate ? capture(page.path, { ...page.params, settle: false }) : undefined,
    ]);
    expect(await differingPixels(byDefault.data as Buffer, patient.data as Buffer)).toBe(0);
    // Without the step, a page that finishes late is captured unfinished: the comparison can fail.
    if (unsettled) expect(await differingPixels(unsettled.data as Buffer, patient.data as Buffer)).toBeGreaterThan(0);
  });

  it('captures a page that never stills once its time is up, and says so with best_effort', async () => {
    const started = Date.now();
    // A budget of 4 s gives the settle step 1 s (a quarter) instead of its 3 s at most: the same end, sooner.
    const result = await capture('/ticking', { best_effort: true, timeout: 4000 });
    expect(Date.now() - started).toBeLessThan(6_000);
    expect(result.incomplete).toEqual(['settle']);
    expect(near((await decode(result.data as Buffer)).at(200, 250), GREEN)).toBe(true);
  });

  it('takes script in an attribute for script: a page without script elements is watched for changes', async () => {
    expect(near((await decode((await capture('/handler-changes')).data as Buffer)).at(200, 150), GREEN)).toBe(true);
  });

  it('waits for the loads of a page that runs no script', async () => {
    expect(near((await decode((await capture('/no-script-slow-background')).data as Buffer)).at(200, 150), GREEN)).toBe(true);
  });

  it('does not wait for a poll that sets itself again, and leaves the page\'s timers as they were', async () => {
    const polled = await capture('/polls', { response_type: 'json', diagnostics: true });
    expect(polled.diagnostics?.waits.find((wait) => wait.name === 'settle')?.outcome).toBe('met');
    expect(near((await decode(polled.data as Buffer)).at(200, 150), GREEN)).toBe(true);
    expect(near((await decode((await capture('/timers')).data as Buffer)).at(200, 150), GREEN)).toBe(true);
  });
});

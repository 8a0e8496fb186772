import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CaptureEngine, CaptureInput } from '../../src/index.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { createTestEngine } from '../helpers/engine.js';
import { html, startFixtureServer, type FixtureServer } from '../helpers/fixture-server.js';
import { decode, near } from '../helpers/pixels.js';

const RED = '#ff0000';
const GREEN = '#00ff00';

/** A page red at first that a script turns green after `ms`, doing `then` at the same moment. */
const lateGreen = (ms: number, then = ''): string =>
  `<body style="margin:0;height:100vh;background:${RED}"><script>setTimeout(() => { document.body.style.background = '${GREEN}'; ${then} }, ${ms});</script></body>`;

let fixtures: FixtureServer;
let engine: CaptureEngine;
/** A port nothing listens on: loads from it fail with a refused connection. */
let closedPort: number;
beforeAll(async () => {
  closedPort = await new Promise<number>((resolve) => {
    const probe = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  fixtures = await startFixtureServer({
    '/ready-flag': (_req, res) => html(res, lateGreen(600, 'window.ready = true;')),
    '/ready-promise': (_req, res) => html(res, lateGreen(600, 'window.resolveReady(true);') + '<script>window.readyPromise = new Promise((resolve) => (window.resolveReady = resolve));</script>'),
    '/spinner': (_req, res) =>
      html(res, `<body style="margin:0;height:100vh;background:${RED}"><div class="spinner" style="width:10px;height:10px;background:#000"></div>${lateGreen(600, "document.querySelector('.spinner').remove();").replace(/^<body[^>]*>/, '')}`),
    '/spinner-stays': (_req, res) => html(res, `<body style="margin:0;height:100vh;background:${RED}"><div class="spinner" style="width:10px;height:10px;background:#000"></div></body>`),
    '/late-event': (_req, res) => html(res, lateGreen(600, "document.dispatchEvent(new Event('rendered'));")),
    '/early-event': (_req, res) => html(res, `<body style="margin:0;height:100vh;background:${GREEN}"><script>window.dispatchEvent(new Event('rendered'));</script></body>`),
    '/console-error': (_req, res) => html(res, `<body style="margin:0;height:100vh;background:${GREEN}"><script>console.error('chart data missing');</script></body>`),
    '/uncaught': (_req, res) => html(res, `<body style="margin:0;height:100vh;background:${GREEN}"><script>undefinedFunction();</script></body>`),
    '/missing-image': (_req, res) => html(res, `<body style="margin:0;height:100vh;background:${GREEN}"><img src="/nothing-here.png"></body>`),
    '/failed-font': (_req, res) =>
      html(
        res,
        `<style>@font-face { font-family: Gone; src: url(http://127.0.0.1:${closedPort}/gone.woff2); }</style><body style="margin:0;height:100vh;background:${GREEN};font-family:Gone">text</body>`,
      ),
    '/long-poll': (_req, res) => html(res, `<body style="margin:0;height:100vh;background:${GREEN}"><script>fetch('/hang');</script></body>`),
    '/hang': () => undefined,
    // What changes on a page without scripts: a CSS animation hides the spinner and turns the page green 400 ms in.
    '/css-spinner': (_req, res) =>
      html(
        res,
        `<style>@keyframes done { to { background: ${GREEN} } } @keyframes gone { to { visibility: hidden } }</style><body style="margin:0;height:100vh;background:${RED};animation:done 0s 400ms forwards"><div class="spinner" style="width:10px;height:10px;background:#000;animation:gone 0s 400ms forwards"></div></body>`,
      ),
    // A click that needs no script: the label checks its box, and the checked box turns the page green.
    '/checkbox': (_req, res) =>
      html(res, `<style>body:has(:checked) { background: ${GREEN} !important }</style><body style="margin:0;height:100vh;background:${RED}"><label id="go" style="display:block;width:100px;height:40px"><input type="checkbox"> go</label></body>`),
    '/content': (_req, res) => html(res, `<body style="margin:0;height:100vh;background:${GREEN}"><p class="notice">Access denied</p></body>`),
  });
  engine = await createTestEngine({ timeoutMs: 6000 });
});
afterAll(async () => {
  await engine?.close();
  await fixtures?.close();
});

const small = { viewport_width: 200, viewport_height: 100 };
const capture = (path: string, params: Omit<CaptureInput, 'url'> = {}) => engine.capture({ url: fixtures.url(path), ...small, ...params });
const colourOf = async (path: string, params: Omit<CaptureInput, 'url'> = {}) => (await decode((await capture(path, params)).data as Buffer)).at(100, 50);

async function refusal(path: string, params: Omit<CaptureInput, 'url'>): Promise<CaptureError> {
  const error = await capture(path, params).then(
    () => undefined,
    (failure: unknown) => failure,
  );
  if (!(error instanceof CaptureError)) throw new Error(`expected a CaptureError, got ${String(error)}`);
  return error;
}

describe('explicit waits', () => {
  it('wait_for_function waits for a truthy value, or for the promise it gives to resolve to one', async () => {
    // Without the settle step (which waits for a page's own short timers), nothing waits for the flag.
    expect(near(await colourOf('/ready-flag', { settle: false }), RED)).toBe(true);
    expect(near(await colourOf('/ready-flag', { wait_for_function: 'window.ready === true' }), GREEN)).toBe(true);
    expect(near(await colourOf('/ready-promise', { wait_for_function: 'window.readyPromise' }), GREEN)).toBe(true);
    // What it reads may not exist yet: that is "not yet", not a failure.
    expect(near(await colourOf('/ready-flag', { wait_for_function: 'window.ready.valueOf()' }), GREEN)).toBe(true);
  });

  it('wait_for_function that is never met ends in CAPTURE_TIMEOUT naming it, within the request\'s timeout; one that does not compile is 400', async () => {
    const started = Date.now();
    const never = await refusal('/ready-flag', { wait_for_function: 'window.never === true', timeout: 2000 });
    expect(Date.now() - started).toBeLessThan(4000);
    expect(never.code).toBe('CAPTURE_TIMEOUT');
    const broken = await refusal('/ready-flag', { wait_for_function: 'window.ready ===' });
    expect(broken.code).toBe('INVALID_PARAMETER');
    expect(broken.details.param).toBe('wait_for_function');
  });

  it('wait_for_hidden waits for a spinner to leave', async () => {
    expect(near(await colourOf('/spinner', { wait_for_hidden: '.spinner' }), GREEN)).toBe(true);
    const stays = await refusal('/spinner-stays', { wait_for_hidden: '.spinner', timeout: 1500 });
    expect(stays.code).toBe('CAPTURE_TIMEOUT');
  });

  it('wait_for_event waits for an event on document or window, also one fired before the wait began', async () => {
    expect(near(await colourOf('/late-event', { wait_for_event: 'rendered' }), GREEN)).toBe(true);
    const started = Date.now();
    expect(near(await colourOf('/early-event', { wait_for_event: 'rendered', timeout: 3000 }), GREEN)).toBe(true);
    expect(Date.now() - started).toBeLessThan(2500);
    expect((await refusal('/late-event', { wait_for_event: 'never-fired', timeout: 1500 })).code).toBe('CAPTURE_TIMEOUT');
  });

  it('with javascript=false the waits are checked from Node (the page runs no timer), click needs no script, and wait_for_event is refused', async () => {
    // Both used to run to the timeout: their in-page poll waited on a timer of the page's.
    expect(near(await colourOf('/css-spinner', { javascript: false, wait_for_hidden: '.spinner', timeout: 3000 }), GREEN)).toBe(true);
    expect(near(await colourOf('/css-spinner', { javascript: false, wait_for_function: `getComputedStyle(document.body).backgroundColor === 'rgb(0, 255, 0)'`, timeout: 3000 }), GREEN)).toBe(true);
    expect(near(await colourOf('/checkbox', { javascript: false, click: '#go' }), GREEN)).toBe(true);
    // Its listener is a script in the page, which never runs.
    const listening = await refusal('/late-event', { javascript: false, wait_for_event: 'rendered' });
    expect([listening.code, listening.details]).toEqual(['INCOMPATIBLE_PARAMETERS', { params: ['wait_for_event', 'javascript'] }]);
  });

  it('refuses a timeout above the capture\'s budget', async () => {
    const error = await refusal('/ready-flag', { timeout: 60_000 });
    expect(error.code).toBe('INVALID_PARAMETER');
    expect(error.details).toMatchObject({ param: 'timeout', allowed: 'integer 1000..6000' });
  });
});

describe('best_effort', () => {
  it('captures the page as it is when a wait runs out, and names the wait', async () => {
    const result = await capture('/spinner-stays', { wait_for_hidden: '.spinner', best_effort: true, timeout: 2000 });
    expect(result.incomplete).toEqual(['wait_for_hidden']);
    expect(near((await decode(result.data as Buffer)).at(100, 50), RED)).toBe(true);
    const selector = await capture('/spinner-stays', { wait_for_selector: '#never', best_effort: true, timeout: 2000 });
    expect(selector.incomplete).toEqual(['wait_for_selector']);
  });

  it('goes on when the network never goes quiet (a long poll) with wait_until=networkidle0', async () => {
    const result = await capture('/long-poll', { wait_until: 'networkidle0', best_effort: true, timeout: 2000 });
    // The settle step, left a quarter of what remained, sees the poll still young: it ran out too.
    expect(result.incomplete).toEqual(['wait_until', 'settle']);
    expect(near((await decode(result.data as Buffer)).at(100, 50), GREEN)).toBe(true);
  });

  it('says nothing when every wait was met', async () => {
    const result = await capture('/ready-flag', { wait_for_function: 'window.ready', best_effort: true });
    expect(result.incomplete).toBeUndefined();
    expect(Object.keys(result.timings)).toEqual(['queue', 'prepare', 'navigate', 'settle', 'capture', 'encode', 'store']);
  });
});

describe('failure rules (422 CAPTURE_REJECTED)', () => {
  it('fail_on_console_error: console.error and uncaught exceptions, with what they said', async () => {
    const logged = await refusal('/console-error', { fail_on_console_error: true });
    expect(logged.code).toBe('CAPTURE_REJECTED');
    expect(logged.status).toBe(422);
    expect(logged.details).toEqual({ reason: 'console_error', items: [{ type: 'console', text: 'chart data missing' }] });
    const thrown = await refusal('/uncaught', { fail_on_console_error: true });
    expect(thrown.details.items).toEqual([{ type: 'exception', text: expect.stringContaining('undefinedFunction') }]);
    expect(near(await colourOf('/missing-image', { fail_on_console_error: true }), GREEN)).toBe(true);
  });

  it('fail_on_resource_status: a listed status of a subresource, unless its domain is ignored', async () => {
    const missing = await refusal('/missing-image', { fail_on_resource_status: '400-403,404' });
    expect(missing.details).toEqual({ reason: 'resource_status', items: [{ url: fixtures.url('/nothing-here.png'), status: 404 }] });
    expect((await refusal('/missing-image', { fail_on_resource_status: '4xx' })).code).toBe('CAPTURE_REJECTED');
    expect(near(await colourOf('/missing-image', { fail_on_resource_status: '5xx' }), GREEN)).toBe(true);
    expect(near(await colourOf('/missing-image', { fail_on_resource_status: '4xx', fail_on_resource_status_ignore: '127.0.0.1' }), GREEN)).toBe(true);
  });

  it('fail_on_resource_failed: a font that could not be loaded', async () => {
    const font = await refusal('/failed-font', { fail_on_resource_failed: true });
    expect(font.details).toEqual({ reason: 'resource_failed', items: [{ url: `http://127.0.0.1:${closedPort}/gone.woff2`, error: expect.stringMatching(/^net::ERR_/) }] });
    expect(near(await colourOf('/missing-image', { fail_on_resource_failed: true }), GREEN)).toBe(true);
  });

  it('fail_if_content_contains, fail_if_selector and fail_if_selector_missing, each matched and not', async () => {
    expect((await refusal('/content', { fail_if_content_contains: 'Access denied' })).details).toEqual({ reason: 'content_contains', items: [{ text: 'Access denied' }] });
    expect(near(await colourOf('/content', { fail_if_content_contains: 'Welcome' }), GREEN)).toBe(true);
    expect((await refusal('/content', { fail_if_selector: '.notice' })).details.reason).toBe('selector_present');
    expect(near(await colourOf('/content', { fail_if_selector: '.captcha' }), GREEN)).toBe(true);
    expect((await refusal('/content', { fail_if_selector_missing: 'article' })).details.reason).toBe('selector_missing');
    expect(near(await colourOf('/content', { fail_if_selector_missing: 'p.notice' }), GREEN)).toBe(true);
    expect((await refusal('/content', { fail_if_selector: 'p[' })).details.param).toBe('fail_if_selector');
  });
});

import { setTimeout as sleep } from 'node:timers/promises';
import type { Page } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { pageWait } from '../../src/core/page/page-wait.js';
import { isNavigationRace } from '../../src/core/errors/to-capture-error.js';

/** How often a condition is checked again in the page. */
const POLL_MS = 100;

/** Where the event listener of `wait_for_event` keeps whether its event fired, out of the page's way. */
const FIRED = 'capture-engine.event-fired';

/**
 * The explicit waits beyond `wait_until` and `wait_for_selector`: a JavaScript condition, an
 * element that must go, an event that must have fired. Each is bounded by the capture's budget
 * (see `pageWait` for `best_effort`).
 */
export function pageWaits(): CapturePlugin {
  return {
    name: 'page-waits',
    stages: [
      {
        // Before the page loads, so an event fired by its first script is not missed.
        name: 'listen-for-event',
        phase: 'prepare',
        leavesContextState: false,
        when: (params) => params.wait_for_event !== undefined,
        run: async (ctx) => {
          const script = await ctx.page.addInitScript(
            ([name, key]) => {
              let fired = false;
              window.addEventListener(name, () => void (fired = true), { capture: true, once: true });
              Object.defineProperty(window, Symbol.for(key), { get: () => fired });
            },
            [ctx.params.wait_for_event as string, FIRED] as const,
          );
          ctx.defer(() => script.dispose());
        },
      },
      {
        name: 'wait-for-event',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.wait_for_event !== undefined,
        run: (ctx) => pageWait(ctx, 'wait_for_event', (timeoutMs, signal) => until(ctx, 'wait_for_event', `(() => window[Symbol.for(${JSON.stringify(FIRED)})] === true)`, timeoutMs, signal)),
      },
      {
        name: 'wait-for-function',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.wait_for_function !== undefined,
        run: (ctx) => pageWait(ctx, 'wait_for_function', (timeoutMs, signal) => until(ctx, 'wait_for_function', `(() => (\n${ctx.params.wait_for_function as string}\n))`, timeoutMs, signal)),
      },
      {
        name: 'wait-for-hidden',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.wait_for_hidden !== undefined,
        run: (ctx) => {
          const selector = JSON.stringify(ctx.params.wait_for_hidden);
          const noneVisible = `(() => ![...document.querySelectorAll(${selector})].some((element) => element.checkVisibility({ visibilityProperty: true })))`;
          return pageWait(ctx, 'wait_for_hidden', (timeoutMs, signal) => until(ctx, 'wait_for_hidden', noneVisible, timeoutMs, signal));
        },
      },
    ],
  };
}

/**
 * Checks `condition` (the source of a function) in the page every POLL_MS until it holds: a truthy
 * value, a function it gives that returns one (called each time, as Playwright's `waitForFunction`
 * calls a function given as a string), or a promise that resolves to one (Gotenberg's thenable
 * `waitForExpression`). A condition that throws or rejects does not hold yet (what it reads may
 * not exist yet); one that cannot even be compiled (a syntax error, a bad selector) is the caller's
 * 400. Starts again in the new document when the page navigates meanwhile. Throws Playwright's
 * TimeoutError when `timeoutMs` passes first. A page without scripts (`javascript=false`) runs no
 * timer, the poll's included: there each check is one evaluation, and the wait between them is Node's.
 */
async function until(ctx: CaptureContext, param: 'wait_for_function' | 'wait_for_hidden' | 'wait_for_event', condition: string, timeoutMs: number, signal: AbortSignal): Promise<void> {
  const endsAt = Date.now() + timeoutMs;
  const inPageMs = ctx.params.javascript ? timeoutMs : 0;
  const poll = `(async () => {
    const condition = ${condition};
    const endsAt = Date.now() + ${inPageMs};
    for (;;) {
      try {
        let value = condition();
        if (typeof value === 'function') value = value();
        if (value && typeof value.then === 'function') value = await value;
        if (value) return true;
      } catch (error) {
        if (error instanceof SyntaxError || (error instanceof DOMException && error.name === 'SyntaxError')) return 'invalid: ' + error.message;
      }
      if (Date.now() >= endsAt) return false;
      await new Promise((resolve) => setTimeout(resolve, ${POLL_MS}));
    }
  })()`;
  for (;;) {
    const outcome = await evaluateOnce(ctx.page, poll);
    if (outcome === true) return;
    if (typeof outcome === 'string') throw captureErrors.invalidParameter(param, `Invalid parameter '${param}': ${outcome.replace(/^invalid: /, '')}`, allowedFor(param));
    if ((outcome === false && ctx.params.javascript) || Date.now() >= endsAt) throw Object.assign(new Error(`${param} not met within ${timeoutMs} ms`), { name: 'TimeoutError' });
    if (outcome === false) await sleep(POLL_MS, undefined, { signal });
  }
}

/** The poll's outcome; undefined when the page navigated meanwhile (poll again in the new document). */
async function evaluateOnce(page: Page, poll: string): Promise<boolean | string | undefined> {
  try {
    return await page.evaluate<boolean | string>(poll);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    if (/SyntaxError/.test(message)) return `invalid: ${message.split('\n')[0]?.replace(/^.*?SyntaxError: /, '')}`;
    if (isNavigationRace(error)) {
      await page.waitForLoadState('domcontentloaded').catch(() => undefined);
      return undefined;
    }
    throw error;
  }
}

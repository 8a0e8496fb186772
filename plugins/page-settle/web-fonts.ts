import type { CDPSession } from 'playwright-core';
import { abortable, sleep } from '../../src/core/deadline.js';
import { evaluateInPage } from '../shared/evaluate-in-page.js';

/** How often fonts still loading are looked at. */
const POLL_MS = 25;

/**
 * Resolves once the page's web fonts have loaded (`document.fonts.status`), as Playwright's
 * screenshots wait for `document.fonts.ready`; a font that failed counts as done, one that never
 * arrives holds it until `signal` aborts. Layout is forced at each look, as a font starts loading
 * only when text that uses it is laid out. Looked at from here: a page without scripts
 * (`javascript=false`) runs no timer, the engine's included.
 */
export async function webFontsLoaded(cdp: CDPSession, signal: AbortSignal): Promise<void> {
  const loaded = (): Promise<boolean> =>
    abortable(
      evaluateInPage(
        cdp,
        () => {
          // Between two documents (a meta refresh) there is none to lay out.
          void document.documentElement?.offsetHeight;
          return document.fonts.status === 'loaded';
        },
        undefined,
      ),
      signal,
    );
  while (!(await loaded())) await sleep(POLL_MS, signal);
}

import type { CDPSession } from 'playwright-core';
import { abortable, sleep } from '../../src/core/deadline.js';
import { isNavigationRace } from '../../src/core/errors/to-capture-error.js';
import { evaluateExpression } from '../shared/evaluate-in-page.js';

/** How often fonts still loading are looked at. */
const POLL_MS = 25;

/**
 * Resolves once the page's web fonts have loaded (`document.fonts.status`), as Playwright's
 * screenshots wait for `document.fonts.ready`; a font that failed counts as done, one that never
 * arrives holds it until `signal` aborts. Layout is forced at each look, as a font starts loading
 * only when text that uses it is laid out. Looked at from here: a page without scripts
 * (`javascript=false`) runs no timer, the engine's included.
 *
 * With `alsoRead` (an expression), the look that finds the fonts loaded evaluates it too and
 * resolves to its value: the step that follows reads the page without a round trip of its own.
 * A look that meets the page between two documents (a meta refresh, a script redirect) is taken
 * again in the new one.
 */
export async function webFontsLoaded<R = undefined>(cdp: CDPSession, signal: AbortSignal, alsoRead = 'undefined'): Promise<R> {
  const look = `(${fontsLoadedInPage.toString()})() ? { value: ${alsoRead} } : null`;
  for (;;) {
    const loaded = await abortable(
      evaluateExpression<{ value: R } | null>(cdp, look).catch((error: unknown) => {
        if (isNavigationRace(error)) return null;
        throw error;
      }),
      signal,
    );
    if (loaded) return loaded.value;
    await sleep(POLL_MS, signal);
  }
}

/** In the page: whether its web fonts have loaded, after laying it out (between the two documents of a meta refresh there is none to lay out). */
function fontsLoadedInPage(): boolean {
  void document.documentElement?.offsetHeight;
  return document.fonts.status === 'loaded';
}

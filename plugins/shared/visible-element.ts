import type { Locator } from 'playwright-core';
import type { CaptureContext } from '../../src/core/plugin-api.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';

/**
 * How long `selector` and `scroll_into_view` wait for their element to be visible once the page is
 * ready (settled or not): an element shown a few frames after load is found (Playwright's element
 * screenshot waits for it too), and one that is not there by then answers 422 at once instead of
 * holding a capture slot for the whole budget. `wait_for_selector` is the way to wait longer.
 */
export const ELEMENT_GRACE_MS = 1_000;

/**
 * The first element matching `selector`, once visible; 422 when it is not within `waitMs` (or
 * the budget; 0 looks once), 400 for a bad selector.
 */
export async function visible(ctx: CaptureContext, param: 'wait_for_selector' | 'click' | 'selector' | 'scroll_into_view', selector: string, waitMs = Infinity): Promise<Locator> {
  const element = ctx.page.locator(selector).first();
  try {
    // Without scripts (`javascript=false`) nothing shows up later, and Playwright's wait polls with animation frames the page never runs.
    if (waitMs > 0 && ctx.params.javascript) await element.waitFor({ state: 'visible', timeout: Math.max(1, Math.min(waitMs, ctx.remaining() - 250)) });
    else if (!(await element.isVisible())) throw captureErrors.elementNotFound(param, selector);
  } catch (error) {
    if (error instanceof Error && /not a valid selector|Unexpected token|while parsing/i.test(error.message)) {
      throw captureErrors.invalidParameter(param, `Invalid parameter '${param}': '${selector}' is not a valid CSS selector`, allowedFor(param));
    }
    if (error instanceof Error && error.name === 'TimeoutError') throw captureErrors.elementNotFound(param, selector);
    throw error;
  }
  return element;
}

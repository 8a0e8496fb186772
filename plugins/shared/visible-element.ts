import type { Locator } from 'playwright-core';
import type { CaptureContext } from '../../src/core/types.js';
import { captureErrors } from '../../src/core/error-factories.js';
import { allowedFor } from '../../src/core/schema.js';

/** The first element matching `selector`, once visible; 422 when it never is, 400 for a bad selector. */
export async function visible(ctx: CaptureContext, param: 'wait_for_selector' | 'click' | 'selector', selector: string): Promise<Locator> {
  const element = ctx.page.locator(selector).first();
  try {
    await element.waitFor({ state: 'visible', timeout: Math.max(1, ctx.remaining() - 250) });
  } catch (error) {
    if (error instanceof Error && /not a valid selector|Unexpected token|while parsing/i.test(error.message)) {
      throw captureErrors.invalidParameter(param, `Invalid parameter '${param}': '${selector}' is not a valid CSS selector`, allowedFor(param));
    }
    if (error instanceof Error && error.name === 'TimeoutError') throw captureErrors.elementNotFound(param, selector);
    throw error;
  }
  return element;
}

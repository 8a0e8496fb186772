import type { CapturePlugin } from '../../src/core/plugin-api.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';

/** Splits on commas outside brackets and parentheses, so `a:is(.x, .y)` stays one selector. */
export function splitSelectors(list: string): string[] {
  const selectors: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of list) {
    if (char === '(' || char === '[') depth++;
    if (char === ')' || char === ']') depth = Math.max(0, depth - 1);
    if (char === ',' && depth === 0) {
      selectors.push(current);
      current = '';
    } else current += char;
  }
  selectors.push(current);
  return selectors.map((selector) => selector.trim()).filter((selector) => selector.length > 0);
}

/**
 * Hides the caller's selectors with a stylesheet, so elements inserted later are hidden too.
 * An invalid selector is the caller's mistake and answers INVALID_PARAMETER.
 */
export function hideSelectors(): CapturePlugin {
  return {
    name: 'hide-selectors',
    stages: [
      {
        name: 'hide',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.hide_selectors.trim().length > 0,
        run: async ({ page, params }) => {
          const selectors = splitSelectors(params.hide_selectors);
          // `remove` (display: none) reflows the page; `hide` (visibility: hidden) keeps the space.
          const rule = params.hide_mode === 'hide' ? 'visibility: hidden !important' : 'display: none !important';
          const invalid = await page.evaluate(({ list, rule }) => {
            const bad = list.find((selector) => {
              try {
                document.createDocumentFragment().querySelector(selector);
                return false;
              } catch {
                return true;
              }
            });
            if (bad !== undefined) return bad;
            const style = document.createElement('style');
            style.dataset.captureEngine = 'hide-selectors';
            style.textContent = list.map((selector) => `${selector} { ${rule}; }`).join('\n');
            (document.head ?? document.documentElement).append(style);
            return undefined;
          }, { list: selectors, rule });
          if (invalid !== undefined) {
            throw captureErrors.invalidParameter('hide_selectors', `Invalid parameter 'hide_selectors': '${invalid}' is not a valid CSS selector`, allowedFor('hide_selectors'));
          }
        },
      },
    ],
  };
}

import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { DEFAULT_MASK_COLOR, MAX_MASKED_ELEMENTS } from '../../src/core/schema/shot-params.js';
import { splitSelectors } from '../hide-selectors/index.js';

/** A masked element's box: in page coordinates, or in the viewport's when it sits in a fixed box. */
interface MaskBox {
  x: number;
  y: number;
  width: number;
  height: number;
  fixed: boolean;
}

/**
 * `mask`: boxes of `mask_color` painted over the matching elements just before the shot, as
 * Playwright's `mask` does. They sit in the page above everything else (highest z-index, no
 * pointer events), placed in page coordinates so that a full-page or element shot, which renders
 * beyond the viewport, covers the same elements a viewport shot does.
 */
export function maskElements(): CapturePlugin {
  return {
    name: 'mask',
    stages: [
      {
        // In `capture`, after `delay`: what the page shows at the shot is what is covered.
        name: 'mask',
        phase: 'capture',
        leavesContextState: false,
        when: (params) => params.mask !== undefined && params.scenario === 'static',
        run: paintMasks,
      },
    ],
  };
}

async function paintMasks(ctx: CaptureContext): Promise<void> {
  const boxes: MaskBox[] = [];
  for (const selector of splitSelectors(ctx.params.mask as string)) {
    if (boxes.length >= MAX_MASKED_ELEMENTS) break;
    // Playwright's locators read CSS as Playwright's `mask` does: open shadow roots are looked into.
    const found = await ctx.page
      .locator(selector)
      .evaluateAll((nodes, room) => {
        const inFixedBox = (node: Element): boolean => {
          for (let at: Element | null = node; at; at = at.parentElement) if (getComputedStyle(at).position === 'fixed') return true;
          return false;
        };
        return nodes
          .map((node) => ({ node, box: node.getBoundingClientRect() }))
          .filter(({ box }) => box.width > 0 && box.height > 0)
          .slice(0, room)
          .map(({ node, box }) => {
            const fixed = inFixedBox(node);
            return { x: box.left + (fixed ? 0 : scrollX), y: box.top + (fixed ? 0 : scrollY), width: box.width, height: box.height, fixed };
          });
      }, MAX_MASKED_ELEMENTS - boxes.length)
      .catch((error: unknown) => {
        if (error instanceof Error && /not a valid selector|Unexpected token|while parsing/i.test(error.message)) {
          throw captureErrors.invalidParameter('mask', `Invalid parameter 'mask': '${selector}' is not a valid CSS selector`, allowedFor('mask'));
        }
        throw error;
      });
    boxes.push(...found);
  }
  if (boxes.length === 0) return;
  await ctx.page.evaluate(
    ({ boxes, color }) => {
      // One layer for the page's boxes (scrolls with it), one for those of fixed boxes (stays with the viewport).
      const layer = (position: 'absolute' | 'fixed'): HTMLElement => {
        const element = document.createElement('div');
        element.dataset.captureEngine = 'mask';
        element.style.cssText = `position:${position};left:0;top:0;width:0;height:0;overflow:visible;z-index:2147483647;pointer-events:none;margin:0;padding:0;border:0`;
        document.documentElement.append(element);
        return element;
      };
      const layers = { absolute: layer('absolute'), fixed: layer('fixed') };
      for (const box of boxes) {
        const cover = document.createElement('div');
        cover.style.cssText = `position:absolute;left:${box.x}px;top:${box.y}px;width:${box.width}px;height:${box.height}px;background:${color};margin:0;padding:0;border:0`;
        layers[box.fixed ? 'fixed' : 'absolute'].append(cover);
      }
    },
    { boxes, color: ctx.params.mask_color ?? DEFAULT_MASK_COLOR },
  );
}

import type { FrameLocator, Page } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { DEFAULT_MASK_COLOR, MAX_MASKED_ELEMENTS, MAX_MASKED_FRAMES, maskSteps } from '../../src/core/schema/shot-params.js';
import { splitSelectors } from '../hide-selectors/index.js';

/**
 * `mask`: boxes of `mask_color` painted over the matching elements just before the shot, as
 * Playwright's `mask` does. They sit in the element's own document above everything else (highest
 * z-index, no pointer events), placed in its page coordinates so that a full-page or element shot,
 * which renders beyond the viewport, covers the same elements a viewport shot does. `frame >> selector`
 * looks inside the frames `frame` matches, same-origin or not, as Playwright's frame locators do.
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
  const color = ctx.params.mask_color ?? DEFAULT_MASK_COLOR;
  let room = MAX_MASKED_ELEMENTS;
  for (const selector of splitSelectors(ctx.params.mask as string)) {
    const steps = maskSteps(selector);
    const target = steps.pop() as string;
    try {
      for (const scope of await framesOf(ctx.page, steps)) {
        if (room <= 0) return;
        // Playwright's locators read CSS as Playwright's `mask` does: open shadow roots are looked into.
        room -= await scope.locator(target).evaluateAll(paintOver, { room, color });
      }
    } catch (error) {
      if (error instanceof Error && /not a valid selector|Unexpected token|while parsing/i.test(error.message)) {
        throw captureErrors.invalidParameter('mask', `Invalid parameter 'mask': '${selector}' is not a valid CSS selector`, allowedFor('mask'));
      }
      throw error;
    }
  }
}

/** The documents `frameSteps` lead to from the page: each step the iframes it matches in the documents before, at most MAX_MASKED_FRAMES of them. */
async function framesOf(page: Page, frameSteps: string[]): Promise<(Page | FrameLocator)[]> {
  let scopes: (Page | FrameLocator)[] = [page];
  for (const step of frameSteps) {
    const next: FrameLocator[] = [];
    for (const scope of scopes) {
      const matches = scope.locator(step);
      // Only frames are entered: a frame locator on any other element would wait for it to become one.
      const frames = await matches.evaluateAll((nodes) => nodes.map((node) => node instanceof HTMLIFrameElement || node instanceof HTMLFrameElement));
      frames.forEach((isFrame, index) => isFrame && next.length < MAX_MASKED_FRAMES && next.push(matches.nth(index).contentFrame()));
    }
    scopes = next;
  }
  return scopes;
}

/**
 * In the elements' own document: a box over each visible one (at most `room`), in one layer that
 * scrolls with the page and one that stays with the viewport for those in fixed boxes. Answers how many it painted.
 */
function paintOver(nodes: Element[], { room, color }: { room: number; color: string }): number {
  const inFixedBox = (node: Element): boolean => {
    for (let at: Element | null = node; at; at = at.parentElement) if (getComputedStyle(at).position === 'fixed') return true;
    return false;
  };
  const layer = (position: 'absolute' | 'fixed'): HTMLElement => {
    const found = document.querySelector<HTMLElement>(`[data-capture-engine="mask"][data-position="${position}"]`);
    if (found) return found;
    const element = document.createElement('div');
    Object.assign(element.dataset, { captureEngine: 'mask', position });
    element.style.cssText = `position:${position};left:0;top:0;width:0;height:0;overflow:visible;z-index:2147483647;pointer-events:none;margin:0;padding:0;border:0`;
    document.documentElement.append(element);
    return element;
  };
  const covered = nodes
    // Not the boxes painted for an earlier selector (`mask=.ad, div`).
    .filter((node) => node.closest('[data-capture-engine="mask"]') === null)
    .map((node) => ({ node, box: node.getBoundingClientRect() }))
    .filter(({ box }) => box.width > 0 && box.height > 0)
    .slice(0, room);
  for (const { node, box } of covered) {
    const fixed = inFixedBox(node);
    const cover = document.createElement('div');
    cover.style.cssText = `position:absolute;left:${box.left + (fixed ? 0 : scrollX)}px;top:${box.top + (fixed ? 0 : scrollY)}px;width:${box.width}px;height:${box.height}px;background:${color};margin:0;padding:0;border:0`;
    layer(fixed ? 'fixed' : 'absolute').append(cover);
  }
  return covered.length;
}

import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { ELEMENT_GRACE_MS, visible } from '../shared/visible-element.js';
import { pageWait } from '../../src/core/page/page-wait.js';
import { reasonOf, runActions, runCallerScript } from '../shared/run-actions.js';
import { runModuleScript } from '../shared/module-script.js';
import { evaluateInPage } from '../shared/evaluate-in-page.js';
import { disableAnimations } from './disable-animations.js';

/**
 * What the caller asks done to the page once it is ready, before blocking leftovers are hidden and
 * before `delay`: wait for an element, click one, run the steps of `actions`, inject styles, run a script. Every wait is
 * bounded by the capture's deadline.
 */
export function pageActions(): CapturePlugin {
  return {
    name: 'page-actions',
    stages: [
      {
        name: 'wait-for-selector',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.wait_for_selector !== undefined,
        run: (ctx) => pageWait(ctx, 'wait_for_selector', (timeoutMs) => visible(ctx, 'wait_for_selector', ctx.params.wait_for_selector as string, timeoutMs)),
      },
      {
        name: 'click',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.click !== undefined,
        run: async (ctx) => {
          const element = await visible(ctx, 'click', ctx.params.click as string);
          await element.click({ timeout: ctx.remaining() });
        },
      },
      {
        // A recording plays them while it records (scenario-record).
        name: 'actions',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.actions !== undefined && params.actions.length > 0 && params.scenario !== 'record',
        run: (ctx) => runActions(ctx, ctx.params.actions ?? []),
      },
      {
        name: 'scroll-into-view',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.scroll_into_view !== undefined,
        run: async (ctx) => {
          const element = await visible(ctx, 'scroll_into_view', ctx.params.scroll_into_view as string, ELEMENT_GRACE_MS);
          // Every scrolling ancestor, both axes, as `scrollIntoView` does; the offset is room kept
          // above the element in each (its scroll margin), not a scroll past it as capture-website's.
          await element.evaluate((node: HTMLElement, offset) => {
            const margin = node.style.scrollMarginTop;
            node.style.scrollMarginTop = `${offset}px`;
            node.scrollIntoView({ block: 'start', inline: 'nearest', behavior: 'instant' });
            node.style.scrollMarginTop = margin;
          }, ctx.params.scroll_into_view_offset);
        },
      },
      {
        name: 'styles',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.styles !== undefined && params.styles.length > 0,
        run: async ({ page, params }) => void (await page.addStyleTag({ content: params.styles as string })),
      },
      {
        name: 'scripts',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.scripts !== undefined && params.scripts.length > 0,
        run: runScript,
      },
      {
        name: 'finish-animations',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.reduced_motion,
        run: ({ cdp }) => evaluateInPage(cdp, disableAnimations, undefined),
      },
    ],
  };
}

/** The caller's script, as the body of an async function in the page; its failure is the caller's (400). */
async function runScript(ctx: CaptureContext): Promise<void> {
  try {
    await (ctx.params.scripts_type === 'module' ? runModuleScript : runCallerScript)(ctx.page, ctx.params.scripts as string);
  } catch (error) {
    if (ctx.signal.aborted) throw error;
    throw captureErrors.invalidParameter('scripts', `Invalid parameter 'scripts': it failed in the page: ${reasonOf(error)}`, allowedFor('scripts'));
  }
}

import type { Route } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { blockedResourceTypes, blockedUrlPatterns } from '../../src/core/schema/blocking-params.js';
import { isPageDocument } from '../shared/page-document.js';
import { CHAT_SELECTORS, CHAT_URL_PATTERNS } from './chat-widgets.js';

/**
 * `block_resources`, `block_requests`, `block_chats` and `javascript=false`: what the caller wants
 * neither loaded nor run, set on the capture's page before it navigates. A refused request fails as the ad
 * blocker's do (`net::ERR_BLOCKED_BY_CLIENT`), so diagnostics and the failure rules see it as blocked.
 */
export function blockRequests(): CapturePlugin {
  return {
    name: 'block-requests',
    stages: [
      {
        name: 'javascript',
        phase: 'prepare',
        leavesContextState: true,
        when: (params) => !params.javascript,
        // Init scripts and evaluations (the engine's own, the caller's `scripts`) still run.
        run: async ({ cdp }) => {
          await cdp.send('Emulation.setScriptExecutionDisabled', { value: true });
        },
      },
      {
        name: 'refuse',
        phase: 'prepare',
        leavesContextState: true,
        when: (params) => params.block_resources !== undefined || params.block_requests !== undefined || params.block_chats,
        run: refuseMatching,
      },
      {
        name: 'hide-chats',
        phase: 'settle',
        leavesContextState: false,
        when: (params) => params.block_chats,
        run: async ({ page }) => void (await page.addStyleTag({ content: `${CHAT_SELECTORS.join(',')}{display:none!important}` })),
      },
    ],
  };
}

async function refuseMatching(ctx: CaptureContext): Promise<void> {
  const types = blockedResourceTypes(ctx.params.block_resources);
  const patterns = [...blockedUrlPatterns(ctx.params.block_requests), ...(ctx.params.block_chats ? CHAT_URL_PATTERNS : [])];
  const onRoute = async (route: Route): Promise<void> => {
    const request = route.request();
    try {
      const url = request.url();
      const refused = !isPageDocument(request) && (types.has(request.resourceType()) || patterns.some((pattern) => pattern.test(url)));
      // Others' handlers (headers, ad blocking) see what is not refused.
      await (refused ? route.abort('blockedbyclient') : route.fallback());
    } catch {
      // The page or its context closed while the request waited.
    }
  };
  await ctx.page.route('**/*', onRoute);
  ctx.defer(() => ctx.page.unroute('**/*', onRoute).catch(() => undefined));
}

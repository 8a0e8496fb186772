import type { Route } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { interceptBody, type InterceptRule } from '../../src/core/schema/intercept-params.js';
import { matchesGlob } from '../shared/url-glob.js';

/**
 * `intercept`: requests of the page answered with the caller's status, headers and body, never
 * sent (browserless's `requestInterceptors`). A route on the capture's page as blocking's are; it is
 * registered after them, so it is asked first (Playwright asks the last route first) and a request
 * both intercepted and blocked is answered.
 */
export function interceptRequests(): CapturePlugin {
  return {
    name: 'intercept-requests',
    stages: [
      {
        name: 'intercept',
        phase: 'prepare',
        // A response may set cookies in the context.
        leavesContextState: true,
        when: (params) => params.intercept !== undefined,
        run: answerMatching,
      },
    ],
  };
}

async function answerMatching(ctx: CaptureContext): Promise<void> {
  const rules = (ctx.params.intercept ?? []).map((rule: InterceptRule) => ({ rule, body: interceptBody(rule) }));
  const onRoute = async (route: Route): Promise<void> => {
    try {
      const url = route.request().url();
      const match = rules.find(({ rule }) => matchesGlob(rule.pattern, url));
      if (!match) return await route.fallback();
      const { rule, body } = match;
      await route.fulfill({ status: rule.status ?? 200, headers: rule.headers ?? {}, ...(rule.content_type ? { contentType: rule.content_type } : {}), body });
    } catch {
      // The page or its context closed while the request waited.
    }
  };
  await ctx.page.route('**/*', onRoute);
  ctx.defer(() => ctx.page.unroute('**/*', onRoute).catch(() => undefined));
}

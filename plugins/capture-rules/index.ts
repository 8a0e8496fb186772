import type { Request, Response } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { ignoredDomains, statusRanges, type StatusRange } from '../../src/core/schema/readiness-params.js';
import { stateKey } from '../../src/core/capture-state.js';
import { trackInflight, type InflightTracker } from '../../src/core/page/network-idle.js';
import { bestEffort } from '../../src/core/deadline.js';
import { ABORTED, BLOCKED_BY_CLIENT, BROWSER_LOAD_ERROR, egressFailure, egressRefusal, isMainDocument } from '../shared/request-outcomes.js';

/** Most offending items a refusal lists (and a capture keeps) of each kind. */
const MAX_ITEMS = 20;

/** Longest the resource rules wait for the loads already started (fonts, images) to end. */
const LOADS_SETTLE_MS = 3_000;

interface Seen {
  loads: InflightTracker;
  errors: { type: 'exception' | 'console'; text: string }[];
  statuses: { url: string; status: number }[];
  failures: { url: string; error: string }[];
}

const SEEN = stateKey<Seen>('capture-rules.seen');

const watches = (params: CaptureParams): boolean => params.fail_on_console_error || params.fail_on_resource_status !== undefined || params.fail_on_resource_failed;

const checksContent = (params: CaptureParams): boolean =>
  params.fail_if_content_contains !== undefined || params.fail_if_selector !== undefined || params.fail_if_selector_missing !== undefined;

/**
 * The caller's failure rules: a page that logged an error, whose subresources failed or answered a
 * listed status, or whose content shows (or lacks) something is refused with 422 CAPTURE_REJECTED,
 * naming the rule (`reason`) and what matched (`items`), before anything is taken.
 */
export function captureRules(): CapturePlugin {
  return {
    name: 'capture-rules',
    stages: [
      { name: 'watch-page', phase: 'prepare', leavesContextState: false, when: watches, run: watchPage },
      // In `capture`, after `delay` and before the shot: the page as it will be taken.
      { name: 'check-rules', phase: 'capture', leavesContextState: false, when: (params) => watches(params) || checksContent(params), run: checkRules },
    ],
  };
}

function watchPage(ctx: CaptureContext): void {
  const { page, params } = ctx;
  const seen: Seen = { loads: trackInflight(page), errors: [], statuses: [], failures: [] };
  ctx.state.set(SEEN, seen);
  const add = <T>(list: T[], item: T): void => void (list.length < MAX_ITEMS && list.push(item));
  const ranges = params.fail_on_resource_status === undefined ? [] : (statusRanges(params.fail_on_resource_status) ?? []);
  const ignored = ignoredDomains(params.fail_on_resource_status_ignore);
  const onConsole = (message: { type(): string; text(): string }): void => {
    // Chromium logs every failed load as an error too: those are the resource rules' business.
    if (message.type() === 'error' && !BROWSER_LOAD_ERROR.test(message.text())) add(seen.errors, { type: 'console', text: message.text() });
  };
  const onPageError = (error: Error): void => add(seen.errors, { type: 'exception', text: error.message });
  const onResponse = (response: Response): void => {
    if (isMainDocument(page, response.request())) return;
    // The egress guard's own answer: the resource was never reached.
    const refusal = egressRefusal(response);
    if (refusal !== undefined) return void add(seen.failures, { url: response.url(), error: refusal });
    const status = response.status();
    if (inRanges(status, ranges) && !isIgnored(response.url(), ignored)) add(seen.statuses, { url: response.url(), status });
  };
  const onFailed = (request: Request): void => {
    const error = request.failure()?.errorText ?? 'failed';
    // Failures that are no fault of the page: blocked by `block_ads`, or given up by the page itself.
    if (isMainDocument(page, request) || BLOCKED_BY_CLIENT.test(error) || ABORTED.test(error)) return;
    // Named as the egress guard's own answer names it, whether it came as one or as a refused tunnel.
    add(seen.failures, { url: request.url(), error: egressFailure(ctx.state, request) ?? error });
  };
  page.on('console', onConsole);
  page.on('pageerror', onPageError);
  page.on('response', onResponse);
  page.on('requestfailed', onFailed);
  ctx.defer(() => {
    seen.loads.detach();
    page.off('console', onConsole);
    page.off('pageerror', onPageError);
    page.off('response', onResponse);
    page.off('requestfailed', onFailed);
  });
}

async function checkRules(ctx: CaptureContext): Promise<void> {
  const { params } = ctx;
  const seen = ctx.state.get(SEEN);
  if (seen && (params.fail_on_resource_status !== undefined || params.fail_on_resource_failed)) await loadsSettled(ctx, seen.loads);
  if (params.fail_on_console_error && seen && seen.errors.length > 0) {
    throw captureErrors.captureRejected('console_error', `The page logged ${seen.errors.length === 1 ? 'an error' : `${seen.errors.length} errors`} (fail_on_console_error)`, seen.errors);
  }
  if (params.fail_on_resource_status !== undefined && seen && seen.statuses.length > 0) {
    throw captureErrors.captureRejected('resource_status', `${seen.statuses.length} of the page's resources answered a status of fail_on_resource_status`, seen.statuses);
  }
  if (params.fail_on_resource_failed && seen && seen.failures.length > 0) {
    throw captureErrors.captureRejected('resource_failed', `${seen.failures.length} of the page's resources could not be loaded (fail_on_resource_failed)`, seen.failures);
  }
  if (!checksContent(params)) return;
  const found = await inspectContent(ctx);
  if (found.contains) throw captureErrors.captureRejected('content_contains', 'The page contains the text of fail_if_content_contains', [{ text: params.fail_if_content_contains }]);
  if (found.present) throw captureErrors.captureRejected('selector_present', 'An element matches fail_if_selector', [{ selector: params.fail_if_selector }]);
  if (found.missing) throw captureErrors.captureRejected('selector_missing', 'No element matches fail_if_selector_missing', [{ selector: params.fail_if_selector_missing }]);
}

/**
 * Lets the loads the page has started end, so that their outcome counts: web fonts start loading
 * only once text using them is laid out, which is forced first. Bounded, as a long poll never ends.
 */
async function loadsSettled(ctx: CaptureContext, loads: InflightTracker): Promise<void> {
  const budget = ctx.budget(LOADS_SETTLE_MS);
  await bestEffort(
    async (signal) => {
      await ctx.page.evaluate(async () => {
        void document.documentElement?.offsetHeight;
        await document.fonts.ready;
      });
      await loads.waitForIdle(0, 0, signal);
    },
    budget,
    ctx.signal,
  );
}

/** What the page shows now, for the content rules; a selector that is not CSS is the caller's 400. */
async function inspectContent({ page, params }: CaptureContext): Promise<{ contains: boolean; present: boolean; missing: boolean }> {
  const found = await page.evaluate(
    ([text, present, missing]) => {
      const matches = (selector: string): boolean | 'invalid' => {
        try {
          return document.querySelector(selector) !== null;
        } catch {
          return 'invalid';
        }
      };
      const presentNow = present === null ? false : matches(present);
      const missingNow = missing === null ? false : matches(missing);
      return {
        contains: text !== null && (document.body?.innerText ?? '').includes(text),
        present: presentNow,
        missing: missingNow === 'invalid' ? 'invalid' : missing !== null && !missingNow,
      };
    },
    [params.fail_if_content_contains ?? null, params.fail_if_selector ?? null, params.fail_if_selector_missing ?? null] as const,
  );
  for (const param of ['fail_if_selector', 'fail_if_selector_missing'] as const) {
    const result = param === 'fail_if_selector' ? found.present : found.missing;
    if (result === 'invalid') throw captureErrors.invalidParameter(param, `Invalid parameter '${param}': '${params[param]}' is not a valid CSS selector`, allowedFor(param));
  }
  return { contains: found.contains, present: found.present === true, missing: found.missing === true };
}

function inRanges(status: number, ranges: readonly StatusRange[]): boolean {
  return ranges.some(([from, to]) => status >= from && status <= to);
}

function isIgnored(url: string, domains: readonly string[]): boolean {
  if (domains.length === 0) return false;
  const host = URL.canParse(url) ? new URL(url).hostname.toLowerCase() : '';
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

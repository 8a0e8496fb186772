import type { Frame, Response } from 'playwright-core';
import type { CaptureContext, CapturePlugin } from '../../src/core/plugin-api.js';
import { BOT_CHALLENGE } from '../../src/core/bot-challenge.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { abortable } from '../../src/core/deadline.js';
import { isMainDocument } from '../shared/request-outcomes.js';
import { detectChallenge, type DocumentAnswer, type Verdict } from './detect.js';

/** Longest a challenge that may clear itself is waited for (at most a share of the budget left). */
const CLEARANCE_WAIT_MS = 10_000;

/** A JavaScript challenge reloads once or twice at most; a page that keeps navigating is not waited for further. */
const MAX_CLEARANCE_HOPS = 3;

/**
 * Bot walls: right after the navigation, a page that is a bot manager's challenge or block page
 * (or a CAPTCHA standing for the whole page) is refused with 422 CAPTURE_REJECTED, `reason:
 * bot_challenge` and its `vendor`, before anything is taken; `on_bot_challenge=capture` takes it
 * anyway and marks it incomplete. A challenge that may clear itself is waited for first, bounded.
 * Documents the caller sent (`html`, `markdown`, `files`) are theirs and not looked at.
 */
export function botChallenge(): CapturePlugin {
  return {
    name: 'bot-challenge',
    stages: [{ name: 'detect', phase: 'navigate', leavesContextState: false, run: checkPage }],
  };
}

async function checkPage(ctx: CaptureContext): Promise<void> {
  if (ctx.document || !ctx.response) return;
  let answer = documentAnswer(ctx.response);
  let verdict = await detectChallenge(ctx.cdp, answer);
  if (verdict?.clears) {
    const cleared = await awaitClearance(ctx, verdict);
    verdict = cleared.verdict;
    answer = cleared.answer ?? answer;
    if (cleared.answer) ctx.response = { ...cleared.answer, url: ctx.page.url() };
  }
  if (!verdict) return;
  const rejected = ctx.params.on_bot_challenge === 'reject';
  ctx.state.set(BOT_CHALLENGE, { vendor: verdict.vendor, matched: verdict.matched, outcome: rejected ? 'rejected' : 'captured' });
  if (rejected) throw captureErrors.botChallenge(verdict.vendor, verdict.matched);
  ctx.incomplete.push('bot_challenge');
}

/**
 * Waits, within `CLEARANCE_WAIT_MS` and the budget, for the challenge to navigate away, and looks
 * again at each page it leads to: undefined `verdict` once the real page is there.
 */
async function awaitClearance(ctx: CaptureContext, first: Verdict): Promise<{ verdict: Verdict | undefined; answer?: DocumentAnswer }> {
  const { page } = ctx;
  const endsAt = performance.now() + ctx.budget(CLEARANCE_WAIT_MS);
  let answer: DocumentAnswer | undefined;
  const onResponse = (response: Response): void => {
    if (isMainDocument(page, response.request()) && (response.status() < 300 || response.status() >= 400)) answer = documentAnswer({ status: response.status(), headers: response.headers() });
  };
  page.on('response', onResponse);
  let verdict: Verdict | undefined = first;
  try {
    for (let hop = 0; hop < MAX_CLEARANCE_HOPS && verdict?.clears; hop++) {
      const left = endsAt - performance.now();
      if (left <= 0) break;
      const navigated = await abortable(
        page.waitForEvent('framenavigated', { predicate: (frame: Frame) => frame === page.mainFrame(), timeout: left }).then(
          () => true,
          () => false,
        ),
        ctx.signal,
      );
      if (!navigated) break;
      await abortable(page.waitForLoadState(ctx.params.wait_until === 'load' ? 'load' : 'domcontentloaded', { timeout: Math.max(1, endsAt - performance.now()) }), ctx.signal).catch((error: unknown) => {
        if (ctx.signal.aborted) throw error;
      });
      verdict = await detectChallenge(ctx.cdp, answer);
    }
  } finally {
    page.off('response', onResponse);
  }
  return { verdict, answer };
}

function documentAnswer(response: { status: number; headers?: Record<string, string> }): DocumentAnswer {
  const headers = Object.fromEntries(Object.entries(response.headers ?? {}).map(([name, value]) => [name.toLowerCase(), value]));
  return { status: response.status, headers };
}

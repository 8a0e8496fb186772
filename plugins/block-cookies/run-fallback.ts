import type { Frame, Page } from 'playwright-core';
import { consentFallbackInPage, type FallbackInput } from './consent-fallback.js';
import type { FrameConsentState } from './autoconsent-state.js';

/** The fallback's findings over all frames of a page. */
export interface PageReport {
  known: number;
  heuristic: number;
  overlays: number;
  unlocked: boolean;
  /** Subframes that are wholly a consent dialog (hidden from their parent unless held). */
  consentFrames: number;
  /** A consent UI was found and left alone, as `hold` asked. */
  held: boolean;
  /** Autoconsent's records, read in the same round trip. */
  autoconsent: FrameConsentState[];
}

/**
 * Runs the fallback in every frame. A subframe that is wholly a consent dialog is hidden from its
 * parent (its iframe element), since nothing inside it can remove the box it is shown in.
 */
export async function runFallback(page: Page, input: FallbackInput): Promise<PageReport> {
  const frames = page.frames().filter((frame) => !frame.isDetached());
  const reports = await Promise.all(frames.map((frame) => frame.evaluate(consentFallbackInPage, input).catch(() => undefined)));
  const total: PageReport = { known: 0, heuristic: 0, overlays: 0, unlocked: false, consentFrames: 0, held: false, autoconsent: [] };
  const consentFrames: Frame[] = [];
  reports.forEach((report, index) => {
    if (!report) return;
    const frame = frames[index] as Frame;
    total.known += report.known;
    total.heuristic += report.heuristic;
    total.overlays += report.overlays;
    total.unlocked ||= report.unlocked;
    total.held ||= report.held;
    if (report.autoconsent && typeof report.autoconsent === 'object') total.autoconsent.push({ ...(report.autoconsent as FrameConsentState), url: frame.url() });
    if (report.frameIsConsent) consentFrames.push(frame);
  });
  total.consentFrames = consentFrames.length;
  if (consentFrames.length === 0) return total;
  if (input.hold) {
    total.held = true;
    return total;
  }
  await Promise.all(consentFrames.map((frame) => hideFrameElement(frame, input.mark)));
  // The parents' backdrops and scroll locks go now that their dialog is known.
  const parents = [...new Set(consentFrames.map((frame) => frame.parentFrame()).filter((frame): frame is Frame => frame !== null))];
  const again = await Promise.all(parents.map((frame) => frame.evaluate(consentFallbackInPage, { ...input, consentSeen: true }).catch(() => undefined)));
  for (const report of again) {
    if (!report) continue;
    total.overlays += report.overlays;
    total.unlocked ||= report.unlocked;
  }
  return total;
}

async function hideFrameElement(frame: Frame, mark: string): Promise<void> {
  const element = await frame.frameElement().catch(() => undefined);
  if (!element) return;
  await element
    .evaluate((iframe, value) => {
      const box = iframe as HTMLElement;
      box.style.setProperty('display', 'none', 'important');
      box.setAttribute('data-capture-engine-hidden', value);
    }, mark)
    .catch(() => undefined);
  await element.dispose().catch(() => undefined);
}

import type { Page } from 'playwright-core';

/** Global under which each frame keeps what its autoconsent instance reported. */
export const STATE_KEY = '__captureEngineAutoconsent';

/** What one frame's autoconsent instance reported; times are ms since the epoch, 0 = not yet. */
export interface FrameConsentState {
  top: boolean;
  url: string;
  firstAttemptAt: number;
  detectedAt: number;
  popupAt: number;
  finishedAt: number;
  cmp: string;
  optedOut: boolean;
}

export interface SettleTimings {
  /** How long to wait for autoconsent to start looking at all (it starts when the page is idle). */
  startMs: number;
  /** After the top frame's first detection pass started, how long to listen for a CMP. */
  firstPassMs: number;
  /** After a CMP is detected, how long to wait for its popup to show. */
  popupGraceMs: number;
}

/** Reads every frame's record (frames without autoconsent, e.g. detached ones, are skipped). */
export async function readConsentStates(page: Page): Promise<FrameConsentState[]> {
  const states = await Promise.all(
    page.frames().map((frame) =>
      frame
        .evaluate((key) => {
          const state = (window as unknown as Record<string, Omit<FrameConsentState, 'url'> | undefined>)[key];
          return state ? { ...state, url: location.href } : undefined;
        }, STATE_KEY)
        .catch(() => undefined),
    ),
  );
  return states.filter((state): state is FrameConsentState => state !== undefined);
}

/**
 * Done waiting when no frame has a popup being opted out of, no detected CMP is still within its
 * grace for showing a popup, and the top frame's first pass had `firstPassMs` to report one (or
 * autoconsent did not start within `startMs` of `since`: a busy page, the fallback takes over).
 */
export function isSettled(
  states: readonly FrameConsentState[],
  now: number,
  since: number,
  { startMs, firstPassMs, popupGraceMs }: SettleTimings,
): boolean {
  if (states.some((s) => s.popupAt > 0 && s.finishedAt === 0)) return false;
  if (states.some((s) => s.detectedAt > 0 && s.popupAt === 0 && now - s.detectedAt < popupGraceMs)) return false;
  const top = states.find((s) => s.top);
  if (!top || top.firstAttemptAt === 0) return now - since >= startMs;
  return top.detectedAt > 0 || now - top.firstAttemptAt >= firstPassMs;
}

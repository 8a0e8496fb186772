import type { Page } from 'playwright-core';
import type { Phase } from './phases.js';
import { abortable } from './deadline.js';
import { captureErrors } from './errors/factories.js';

/**
 * Functions a library caller runs on the capture's Playwright page, as capture-website's
 * `beforeNavigation` and `beforeScreenshot` are used. They cannot travel over HTTP or in a job:
 * only `engine.capture()` takes them. Each is awaited within the capture's deadline.
 */
export interface CaptureHooks {
  /**
   * Runs once the page is prepared (viewport, emulation, cookies, headers, blocking and intercept
   * routes) and before it navigates: add routes, init scripts, listeners or cookies of your own.
   */
  beforeNavigation?: (page: Page) => unknown;
  /**
   * Runs once the page is ready (after the waits, actions, styles, scripts and hiding), before
   * `delay` and the shot: the last changes to the page, which `delay` then lets settle.
   */
  beforeCapture?: (page: Page) => unknown;
}

/** The hook that runs just before each phase's stages. */
const HOOK_BEFORE: Partial<Record<Phase, keyof CaptureHooks>> = { navigate: 'beforeNavigation', capture: 'beforeCapture' };

export function hasHooks(hooks: CaptureHooks): boolean {
  return hooks.beforeNavigation !== undefined || hooks.beforeCapture !== undefined;
}

/**
 * Runs the caller's hook of `phase`, if any. Its failure fails the capture as CAPTURE_FAILED
 * (reason `hook`), the caller's own error as its cause.
 */
export async function runHook(hooks: CaptureHooks, phase: Phase, page: Page, signal: AbortSignal): Promise<void> {
  const name = HOOK_BEFORE[phase];
  const hook = name === undefined ? undefined : hooks[name];
  if (hook === undefined) return;
  try {
    await abortable(Promise.resolve().then(() => hook(page)), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw captureErrors.captureFailed('hook', `${name} failed: ${error instanceof Error ? error.message : String(error)}`, error);
  }
}

import { Script } from 'node:vm';
import type { Locator, Page } from 'playwright-core';
import type { CaptureContext } from '../../src/core/plugin-api.js';
import type { ActionStep } from '../../src/core/schema/action-params.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { abortable } from '../../src/core/deadline.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { drawCursor } from './cursor.js';
import type { VideoTime } from './between-frames.js';

/**
 * How long a step that acts on an element (click, hover, type, select, press, scroll_to) waits for
 * it to be visible and ready: a journey whose button never shows fails at once rather than holding a
 * capture slot for the whole budget. `wait_for` is the way to wait longer.
 */
const ELEMENT_WAIT_MS = 5_000;
/** While a video is recorded, a person's pace: keys 40 ms apart, the pointer about 400 ms per move. */
const TYPING_DELAY_MS = 40;
const POINTER_STEPS = 24;
const POINTER_STEP_MS = 16;

/**
 * The caller's JavaScript run in the page (`scripts`, the `evaluate` action). A script that is one
 * expression is evaluated as shot-scraper's `--javascript` is (Playwright's `page.evaluate` of a
 * string): a function it gives is called and a promise it gives awaited, so
 * `new Promise(takeShot => ...)` holds the shot until it resolves. Any other script is the body of
 * an async function (`await` and `return` work there).
 */
export async function runCallerScript(page: Page, script: string): Promise<void> {
  let expression = script.trimEnd();
  while (expression.endsWith(';')) expression = expression.slice(0, -1).trimEnd();
  const source = isExpression(expression)
    ? `(async () => {\n let value = (\n${expression}\n);\n if (typeof value === 'function') value = value();\n await value;\n})()`
    : `(async () => {\n${script}\n})()`;
  await page.evaluate(source);
}

/** Whether `source` parses as one JavaScript expression (compiled here, never run). */
function isExpression(source: string): boolean {
  try {
    new Script(`(async () => (\n${source}\n))`);
    return true;
  } catch {
    return false;
  }
}

/** The first line of an error's message, without Playwright's `locator.click: ` prefix. */
export function reasonOf(error: unknown): string {
  const [line = ''] = (error instanceof Error ? error.message : String(error)).split('\n');
  return line.replace(/^[a-zA-Z.]+: /, '');
}

/**
 * Runs `actions` in order, each bounded by the capture's deadline and stopped by `signal`, once
 * `start` resolves (a recording's first moment; the pointer is drawn before it). A step that fails
 * answers 422 ACTION_FAILED with its index and kind (400 for a selector that is not CSS). In a video
 * drawn frame by frame, `time` is the video's: waits, keys and pointer moves take their time on it.
 */
export async function runActions(ctx: CaptureContext, steps: readonly ActionStep[], signal: AbortSignal = ctx.signal, start?: () => Promise<void>, time: VideoTime = WALL_CLOCK): Promise<void> {
  const recording = ctx.params.scenario === 'record';
  const pointer = ctx.params.show_cursor ? await drawCursor(ctx.page, ctx.params.viewport_width, ctx.params.viewport_height) : undefined;
  await start?.();
  const act: StepRunner = {
    ctx,
    recording,
    time,
    approach: async (element) => {
      if (!pointer) return;
      await element.scrollIntoViewIfNeeded({ timeout: elementWait(ctx) });
      const box = await element.boundingBox();
      if (!box) return;
      const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
      if (time === WALL_CLOCK) return pointer.glide(x, y, POINTER_STEPS, () => (recording ? time.sleep(POINTER_STEP_MS) : undefined));
      // On the video's time, the same glide one move a frame: each move then follows a drawn frame
      // (several between two frames left the capture waiting until its deadline).
      await pointer.glide(x, y, Math.max(1, Math.round((POINTER_STEPS * POINTER_STEP_MS) / time.frameMs)), () => time.sleep(time.frameMs));
    },
  };
  for (const [index, step] of steps.entries()) {
    try {
      await abortable(runStep(act, step), signal);
    } catch (error) {
      if (signal.aborted || ctx.signal.aborted) throw error;
      throw stepError(index, step, error);
    }
  }
}

/** Waits on the wall clock (the page's clocks run on it). */
const WALL_CLOCK: VideoTime = { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)), frameMs: 16 };

interface StepRunner {
  ctx: CaptureContext;
  recording: boolean;
  time: VideoTime;
  /** Moves the drawn pointer onto the element, when one is drawn. */
  approach: (element: Locator) => Promise<void>;
}

const elementWait = (ctx: CaptureContext): number => Math.max(1, Math.min(ELEMENT_WAIT_MS, ctx.remaining() - 250));
const budgetWait = (ctx: CaptureContext): number => Math.max(1, ctx.remaining() - 250);

async function runStep({ ctx, recording, time, approach }: StepRunner, step: ActionStep): Promise<void> {
  const { page } = ctx;
  const element = step.selector === undefined ? undefined : page.locator(step.selector).first();
  const timeout = elementWait(ctx);
  const behavior: ScrollBehavior = recording ? 'smooth' : 'instant';
  switch (step.action) {
    case 'click':
      await approach(element as Locator);
      return element?.click({ timeout });
    case 'hover':
      await approach(element as Locator);
      return element?.hover({ timeout });
    case 'type':
      if (!recording) return element?.fill(step.text as string, { timeout });
      await element?.fill('', { timeout });
      for (const key of step.text as string) {
        await element?.pressSequentially(key, { timeout: budgetWait(ctx) });
        await time.sleep(TYPING_DELAY_MS);
      }
      return;
    case 'press':
      return element ? element.press(step.key as string, { timeout }) : page.keyboard.press(step.key as string);
    case 'select':
      return void (await element?.selectOption(step.option as string, { timeout }));
    case 'wait':
      return time.sleep(Math.min(step.ms as number, ctx.remaining()));
    case 'wait_for':
      return time === WALL_CLOCK ? element?.waitFor({ state: 'visible', timeout: budgetWait(ctx) }) : whenShown(element as Locator, true, time);
    case 'wait_for_hidden':
      return time === WALL_CLOCK ? element?.waitFor({ state: 'hidden', timeout: budgetWait(ctx) }) : whenShown(element as Locator, false, time);
    case 'scroll_to':
      if (time !== WALL_CLOCK) return smoothScroll(ctx, element, step.y);
      if (element) return element.evaluate((node, how) => node.scrollIntoView({ block: 'start', behavior: how }), behavior, { timeout });
      return page.evaluate(({ y, how }) => window.scrollTo({ top: y, left: 0, behavior: how }), { y: step.y as number, how: behavior });
    case 'evaluate':
      return runCallerScript(page, step.script as string);
  }
}

/**
 * Until `element` is visible (or hidden), looked at once a frame of the video's time: the page
 * changes only as the video advances. A wait the video ends before is stopped with it.
 */
async function whenShown(element: Locator, visible: boolean, time: VideoTime): Promise<void> {
  while ((await element.isVisible()) !== visible) await time.sleep(time.frameMs);
}

/**
 * Scrolls smoothly to `y` (or `element`'s top) in a video drawn frame by frame: Chromium animates it
 * on the video's time, over the frames that follow. Asked through the capture's own protocol session:
 * a scroll asked through Playwright's evaluate never returned while the page's clock stood still.
 */
async function smoothScroll(ctx: CaptureContext, element: Locator | undefined, y: number | undefined): Promise<void> {
  const top = element ? await element.evaluate((node) => node.getBoundingClientRect().top + scrollY) : (y as number);
  await ctx.cdp.send('Runtime.evaluate', { expression: `window.scrollTo({ top: ${Math.round(top)}, left: 0, behavior: 'smooth' })` });
}

function stepError(index: number, step: ActionStep, error: unknown): CaptureError {
  if (error instanceof CaptureError) return error;
  const message = error instanceof Error ? error.message : '';
  if (step.selector !== undefined && /not a valid selector|Unexpected token|while parsing/i.test(message)) {
    const param = `actions[${index}].selector`;
    return captureErrors.invalidParameter(param, `Invalid parameter '${param}': '${step.selector}' is not a valid CSS selector`, allowedFor('actions'));
  }
  if (error instanceof Error && error.name === 'TimeoutError' && step.selector !== undefined) {
    const state = { wait_for_hidden: 'was still visible', wait_for: 'never became visible', select: `was not visible or had no option '${step.option}'` }[step.action as string] ?? 'was not visible and ready';
    return captureErrors.actionFailed(index, step.action, `the element '${step.selector}' ${state} in time`);
  }
  return captureErrors.actionFailed(index, step.action, reasonOf(error));
}

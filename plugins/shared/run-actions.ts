import { Script } from 'node:vm';
import type { Locator, Page } from 'playwright-core';
import type { CaptureContext } from '../../src/core/plugin-api.js';
import type { ActionStep } from '../../src/core/schema/action-params.js';
import { captureErrors } from '../../src/core/errors/factories.js';
import { abortable } from '../../src/core/deadline.js';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { allowedFor } from '../../src/core/schema/capture-params.js';
import { drawCursor } from './cursor.js';

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
 * answers 422 ACTION_FAILED with its index and kind (400 for a selector that is not CSS).
 */
export async function runActions(ctx: CaptureContext, steps: readonly ActionStep[], signal: AbortSignal = ctx.signal, start?: () => Promise<void>): Promise<void> {
  const recording = ctx.params.scenario === 'record';
  const pointer = ctx.params.show_cursor ? await drawCursor(ctx.page, ctx.params.viewport_width, ctx.params.viewport_height) : undefined;
  await start?.();
  const act: StepRunner = {
    ctx,
    recording,
    approach: async (element) => {
      if (!pointer) return;
      await element.scrollIntoViewIfNeeded({ timeout: elementWait(ctx) });
      const box = await element.boundingBox();
      if (box) await pointer.glide(box.x + box.width / 2, box.y + box.height / 2, POINTER_STEPS, recording ? POINTER_STEP_MS : 0);
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

interface StepRunner {
  ctx: CaptureContext;
  recording: boolean;
  /** Moves the drawn pointer onto the element, when one is drawn. */
  approach: (element: Locator) => Promise<void>;
}

const elementWait = (ctx: CaptureContext): number => Math.max(1, Math.min(ELEMENT_WAIT_MS, ctx.remaining() - 250));
const budgetWait = (ctx: CaptureContext): number => Math.max(1, ctx.remaining() - 250);

async function runStep({ ctx, recording, approach }: StepRunner, step: ActionStep): Promise<void> {
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
      return element?.pressSequentially(step.text as string, { delay: TYPING_DELAY_MS, timeout: budgetWait(ctx) });
    case 'press':
      return element ? element.press(step.key as string, { timeout }) : page.keyboard.press(step.key as string);
    case 'select':
      return void (await element?.selectOption(step.option as string, { timeout }));
    case 'wait':
      return new Promise((resolve) => setTimeout(resolve, Math.min(step.ms as number, ctx.remaining())));
    case 'wait_for':
      return element?.waitFor({ state: 'visible', timeout: budgetWait(ctx) });
    case 'wait_for_hidden':
      return element?.waitFor({ state: 'hidden', timeout: budgetWait(ctx) });
    case 'scroll_to':
      if (element) return element.evaluate((node, how) => node.scrollIntoView({ block: 'start', behavior: how }), behavior, { timeout });
      return page.evaluate(({ y, how }) => window.scrollTo({ top: y, left: 0, behavior: how }), { y: step.y as number, how: behavior });
    case 'evaluate':
      return runCallerScript(page, step.script as string);
  }
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

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Page } from 'playwright-core';
import type { ActionStep } from '../core/schema/action-params.js';
import { InputError } from './exit-codes.js';
import { isCommand, runLocal, type Command } from './local-commands.js';
import type { LocalFiles } from './local-files.js';

/**
 * The steps of a storyboard the CLI does itself, in Node, while the engine records the journey:
 * shot-scraper's `sh:`, `python:`, `screenshot:`, `open:` and `wait_for_url:` (release 1.11,
 * shot_scraper/cli.py _run_storyboard_action). Each is two of the engine's steps: an `evaluate`
 * that calls a binding of the page (its name and each step's token random), and a `wait_for` of
 * the mark the CLI sets on the document once the step is done, which holds across a navigation.
 * The binding runs only the next step of the list, once, so a page can neither start a command
 * of the file early nor run one twice; it exists only in the CLI's pages.
 */
type LocalAction = (page: Page, localFiles: LocalFiles) => Promise<void>;

const MARK = 'data-capture-engine-step';
/** How long `wait_for_url` waits, as Playwright's default timeout. */
const WAIT_FOR_URL_MS = 30_000;

export class LocalSteps {
  private readonly binding = `__captureEngineStoryboard${randomBytes(6).toString('hex')}`;
  private readonly steps: { token: string; run: LocalAction }[] = [];
  private next = 0;
  /** The first step that failed: the command fails with it once the recording is over. */
  error?: Error;

  get count(): number {
    return this.steps.length;
  }

  /** The engine's steps that run `run` at this point of the journey. */
  add(run: LocalAction): ActionStep[] {
    const token = randomBytes(8).toString('hex');
    this.steps.push({ token, run });
    return [
      { action: 'evaluate', script: `void window[${JSON.stringify(this.binding)}](${JSON.stringify(token)})` },
      { action: 'wait_for', selector: `html[${MARK}="${token}"]` },
    ];
  }

  /** Lets the page call the CLI (before its navigation; Playwright keeps a binding across documents). */
  async install(page: Page, localFiles: LocalFiles): Promise<void> {
    if (this.steps.length > 0) await page.exposeBinding(this.binding, (_source, token: unknown) => void this.call(page, localFiles, token));
  }

  private async call(page: Page, localFiles: LocalFiles, token: unknown): Promise<void> {
    const step = this.steps[this.next];
    if (step === undefined || step.token !== token) return;
    this.next++;
    if (this.error === undefined) {
      try {
        await step.run(page, localFiles);
      } catch (error) {
        this.error = error instanceof Error ? error : new Error(String(error));
      }
    }
    // Marked even after a failure: the journey goes on to its end, and the command then fails.
    await page.evaluate(([name, value]) => document.documentElement.setAttribute(name, value), [MARK, step.token] as const).catch(() => undefined);
  }
}

/** shot-scraper's _resolve_storyboard_url: a local file, a URL, or a path relative to the page's. */
export async function storyboardUrl(url: string, page: Page | undefined, localFiles: LocalFiles): Promise<string> {
  if (existsSync(url)) return localFiles.urlOf(url);
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return url;
  const base = page?.url();
  return base !== undefined && base !== 'about:blank' ? new URL(url, base).href : `http://${url}`;
}

const wrong = (message: string): InputError => new InputError(`Storyboard: ${message}`);
const isMap = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A command of the storyboard (`sh:` a string or list, `python:` a string). */
export function command(kind: 'sh' | 'python', value: unknown, at: string): Command {
  if (kind === 'sh' ? !isCommand(value) : typeof value !== 'string') throw wrong(`${at}: ${kind}: must be a ${kind === 'sh' ? 'string or list' : 'string'}`);
  return value as Command;
}

/** The local steps of a scene's `do:` list (undefined for an action the engine plays). */
export function localAction(kind: string, value: unknown, at: string, local: LocalSteps): ActionStep[] | undefined {
  switch (kind) {
    case 'sh':
    case 'python': {
      const run = command(kind, value, at);
      return local.add(() => runLocal(kind, run));
    }
    case 'open':
      if (typeof value !== 'string' || value === '') throw wrong(`${at}: URL values must be strings`);
      return local.add(async (page, localFiles) => void (await page.goto(await storyboardUrl(value, page, localFiles))));
    case 'wait_for_url':
      if (typeof value !== 'string' || value === '') throw wrong(`${at}: a URL pattern`);
      return local.add((page) => page.waitForURL(value, { timeout: WAIT_FOR_URL_MS }));
    case 'screenshot': {
      const options = isMap(value) ? value : { output: value };
      const { output, selector, full_page: fullPage = false, ...extra } = options;
      if (Object.keys(extra).length > 0) throw wrong(`${at}.${Object.keys(extra)[0] as string}: Extra inputs are not permitted`);
      if (typeof output !== 'string' || output === '') throw wrong(`${at}.output: Field required`);
      if (selector !== undefined && typeof selector !== 'string') throw wrong(`${at}.selector: a selector`);
      return local.add(async (page) => void (selector === undefined ? await page.screenshot({ path: output, fullPage: fullPage === true }) : await page.locator(selector).first().screenshot({ path: output })));
    }
    case 'expect':
    case 'expect_gone':
      return expectStep(kind, value, at, local);
    case 'click':
      return isMap(value) && (value.button !== undefined || value.count !== undefined) ? clickWith(value, at, local) : undefined;
    case 'type':
      return isMap(value) && value.delay_ms !== undefined ? typeWith(value, at, local) : undefined;
    default:
      return undefined;
  }
}

/** shot-scraper's `expect` and `expect_gone`: an element (a selector, and/or a text, `contains:` for short) shown, or gone, within `timeout` ms. */
function expectStep(kind: 'expect' | 'expect_gone', value: unknown, at: string, local: LocalSteps): ActionStep[] {
  const { selector, text = undefined, contains = undefined, timeout = WAIT_FOR_URL_MS, ...extra } = isMap(value) ? value : { selector: value };
  if (Object.keys(extra).length > 0) throw wrong(`${at}.${Object.keys(extra)[0] as string}: Extra inputs are not permitted`);
  const needle = text ?? contains;
  if (selector === undefined && needle === undefined) throw wrong(`${at}: ${kind}: needs a selector: and/or text:`);
  if ((selector !== undefined && typeof selector !== 'string') || (needle !== undefined && typeof needle !== 'string')) throw wrong(`${at}: selector: and text: are strings`);
  if (!Number.isInteger(timeout) || (timeout as number) < 1 || (timeout as number) > 600_000) throw wrong(`${at}.timeout: a whole number of ms from 1 to 600000`);
  return local.add(async (page) => {
    const scope = typeof selector === 'string' ? page.locator(selector) : undefined;
    const found = needle === undefined ? (scope as NonNullable<typeof scope>) : scope ? scope.filter({ hasText: needle }) : page.getByText(needle);
    await found.first().waitFor({ state: kind === 'expect' ? 'visible' : 'hidden', timeout: timeout as number });
  });
}

/** A click with shot-scraper's `button` or `count`, which the engine's click step has not: Playwright's own, from the CLI. */
function clickWith({ selector, button = 'left', count = 1, ...extra }: Record<string, unknown>, at: string, local: LocalSteps): ActionStep[] {
  if (Object.keys(extra).length > 0) throw wrong(`${at}.${Object.keys(extra)[0] as string}: Extra inputs are not permitted`);
  if (typeof selector !== 'string' || selector === '') throw wrong(`${at}.selector: Field required`);
  if (button !== 'left' && button !== 'right' && button !== 'middle') throw wrong(`${at}.button: Input should be 'left', 'right' or 'middle'`);
  if (!Number.isInteger(count) || (count as number) < 1 || (count as number) > 10) throw wrong(`${at}.count: a whole number from 1 to 10`);
  return local.add((page) => page.locator(selector).first().click({ button, clickCount: count as number }));
}

/** `type` with shot-scraper's `delay_ms` between keys, which the engine's type step has not (it types 40 ms apart). */
function typeWith({ into, selector, text, delay_ms: delay }: Record<string, unknown>, at: string, local: LocalSteps): ActionStep[] {
  const target = into ?? selector;
  if (typeof target !== 'string' || target === '') throw wrong(`${at}: type: must define into: or selector:`);
  if (typeof text !== 'string') throw wrong(`${at}.text: Field required`);
  if (typeof delay !== 'number' || !(delay >= 0) || delay > 1000) throw wrong(`${at}.delay_ms: a number of ms from 0 to 1000`);
  return local.add((page) => page.locator(target).first().pressSequentially(text, { delay }));
}

import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { ActionStep } from '../core/schema/action-params.js';
import { InputError, UsageError } from './exit-codes.js';
import { readFlags, readInput, type CommandFlags } from './shot-flags.js';
import { readStdin } from './shot-multi.js';
import { runShots, type WriteResult } from './shot.js';

/**
 * `capture-engine video storyboard.yml`: shot-scraper's storyboards (release 1.11, docs/video.md)
 * recorded as the engine's `scenario=record`, its scenes' steps played as `actions` while it records.
 */
const FLAGS: CommandFlags = {
  usage: `capture-engine video storyboard.yml [-o demo.webm] [--mp4]   (- reads the storyboard from standard input)
  A video of shot-scraper's storyboard: url, output, viewport {width, height}, cursor, wait, wait_for,
  javascript, and scenes of {name, open (the first only, for url), wait_for, do: [click, type, fill, press,
  scroll, pause, wait_for, javascript/js]}. Not here: sh, python, server, wait_for_url, screenshot, open
  within a scene. --mp4 records an MP4 instead of the WebM (one file, named .mp4).
  Also --browser-arg, --log-console, --bypass-csp, -a auth.json, --silent and shot's parameters.`,
  own: { mp4: 'yes-no' },
};

const TOP_KEYS = new Set(['output', 'url', 'viewport', 'cursor', 'wait', 'wait_for', 'javascript', 'scenes']);
const SCENE_KEYS = new Set(['name', 'open', 'wait_for', 'do']);
const NOT_HERE = new Set(['sh', 'python', 'server', 'wait_for_url', 'screenshot', 'leave_server']);

type Map = Record<string, unknown>;
const isMap = (value: unknown): value is Map => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Refused like shot-scraper's validation: the path of the key, and what is wrong with it. */
const wrong = (message: string): InputError => new InputError(`Storyboard: ${message}`);

function checkKeys(entry: Map, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(entry)) {
    if (NOT_HERE.has(key)) throw wrong(`${where}${key}: not supported by capture-engine video (run it before the command)`);
    if (!allowed.has(key)) throw wrong(`${where}${key}: Extra inputs are not permitted`);
  }
}

/** Seconds as shot-scraper writes them (`pause: 1.5`), in ms. */
function ms(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 60) throw wrong(`${where}: a number of seconds from 0 to 60`);
  return Math.round(value * 1000);
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') throw wrong(`${where}: Field required`);
  return value;
}

/** One step of a scene's `do:` list as the engine's actions. */
function action(step: unknown, where: string): ActionStep[] {
  if (!isMap(step) || Object.keys(step).length !== 1) throw wrong(`${where}: an action is a mapping of one key (click:, type:, pause:, ...)`);
  const [[kind, value]] = Object.entries(step) as [[string, unknown]];
  const at = `${where}.${kind}`;
  const options = isMap(value) ? value : {};
  switch (kind) {
    case 'click':
      if (isMap(value) && ((value.button ?? 'left') !== 'left' || (value.count ?? 1) !== 1)) throw wrong(`${at}: only a single left click is supported`);
      return [{ action: 'click', selector: text(isMap(value) ? value.selector : value, `${at}.selector`) }];
    case 'type':
    case 'fill':
      return [{ action: 'type', selector: text(options.into ?? options.selector, `${at}.into`), text: text(options.text, `${at}.text`) }];
    case 'press':
      return [{ action: 'press', key: text(isMap(value) ? value.key : value, `${at}.key`), ...(typeof options.selector === 'string' ? { selector: options.selector } : {}) }];
    case 'pause':
      return [{ action: 'wait', ms: ms(value, at) }];
    case 'wait_for':
      return [{ action: 'wait_for', selector: text(value, at) }];
    case 'javascript':
    case 'js':
      return [{ action: 'evaluate', script: text(value, at) }];
    case 'scroll': {
      if (typeof options.to === 'string') return [{ action: 'scroll_to', selector: options.to }];
      const [x, y] = typeof value === 'number' ? [0, value] : [Number(options.x ?? 0), Number(options.y ?? 0)];
      if (!Number.isFinite(x) || !Number.isFinite(y)) throw wrong(`${at}: a number of pixels, or {x, y, to, duration}`);
      const behavior = isMap(value) && value.duration !== undefined ? 'smooth' : 'instant';
      return [{ action: 'evaluate', script: `window.scrollBy({ left: ${x}, top: ${y}, behavior: '${behavior}' })` }];
    }
    default:
      throw wrong(NOT_HERE.has(kind) || kind === 'open' ? `${at}: not supported by capture-engine video` : `${at}: not an action (click, type, fill, press, scroll, pause, wait_for, javascript, js)`);
  }
}

/**
 * How long the recording lasts: every pause, a second for each other step and for the page to show
 * (shot-scraper records until the last step ends; the engine's recording has a length, and steps
 * still running when it ends are stopped).
 */
const seconds = (steps: ActionStep[]): number => Math.ceil(1 + steps.reduce((sum, step) => sum + (step.action === 'wait' ? (step.ms ?? 0) / 1000 : 1), 0));

/** The storyboard's capture parameters: the page, its size, the cursor, and its steps as actions. */
export function storyboardParams(board: unknown, output: string | undefined): Map {
  if (board === null || board === undefined) throw wrong('Storyboard YAML file cannot be empty');
  if (!isMap(board)) throw wrong('Storyboard YAML file must contain a mapping');
  checkKeys(board, TOP_KEYS, '');
  const file = output ?? (typeof board.output === 'string' ? board.output : undefined);
  if (file === undefined) throw wrong('Storyboard must define output: or use --output');
  const scenes = board.scenes;
  if (!Array.isArray(scenes) || scenes.length === 0) throw wrong('Storyboard must define a non-empty scenes: list');
  const first = (isMap(scenes[0]) ? scenes[0] : {}) as Map;
  const url = board.url ?? first.open;
  if (typeof url !== 'string') throw wrong('Storyboard must define url: or open: in the first scene');
  const steps: ActionStep[] = [];
  if (board.wait !== undefined) steps.push({ action: 'wait', ms: ms(board.wait, 'wait') });
  if (board.wait_for !== undefined) steps.push({ action: 'wait_for', selector: text(board.wait_for, 'wait_for') });
  if (board.javascript !== undefined) steps.push({ action: 'evaluate', script: text(board.javascript, 'javascript') });
  for (const [index, scene] of scenes.entries()) {
    const where = `scenes.${index}`;
    if (!isMap(scene)) throw wrong(`${where}: a scene is a mapping`);
    checkKeys(scene, SCENE_KEYS, `${where}.`);
    if (scene.open !== undefined && (index > 0 || board.url !== undefined)) throw wrong(`${where}.open: only the first scene may open the page, when there is no url:`);
    if (scene.wait_for !== undefined) steps.push({ action: 'wait_for', selector: text(scene.wait_for, `${where}.wait_for`) });
    if (scene.do !== undefined && !Array.isArray(scene.do)) throw wrong(`${where}.do: a list of actions`);
    for (const [at, step] of ((scene.do as unknown[] | undefined) ?? []).entries()) steps.push(...action(step, `${where}.do.${at}`));
  }
  const viewport = isMap(board.viewport) ? board.viewport : {};
  const cursor = isMap(board.cursor) ? board.cursor.visible !== false : board.cursor === true;
  return { url, output: file, scenario: 'record', duration: seconds(steps), viewport_width: viewport.width ?? 1280, viewport_height: viewport.height ?? 720, show_cursor: cursor, actions: steps };
}

export async function video(args: string[]): Promise<void> {
  const { own, params } = await readFlags(args, FLAGS);
  if (own.help) return void process.stdout.write(`${FLAGS.usage}\n`);
  const { url: file, ...rest } = params;
  if (typeof file !== 'string') throw new UsageError('video needs a storyboard file (- for standard input)', FLAGS.usage);
  const { parse } = await import('yaml');
  const board = await readInput(file, async () => parse(file === '-' ? await readStdin() : await readFile(file, 'utf8')) as unknown);
  const outputs = own.output as string[] | undefined;
  const { output, ...shot } = storyboardParams(board, outputs?.[0]);
  const named = own.mp4 === true ? String(output).replace(/\.[^./]*$/, '') + '.mp4' : String(output);
  own.output = [named];
  const write: WriteResult = async (result) => {
    await pipeline(result.stream(), createWriteStream(named));
    if (own.quiet !== true) process.stderr.write(`Video written to '${named}'\n`);
  };
  await runShots(own, { ...shot, ...rest }, FLAGS.usage, write);
}

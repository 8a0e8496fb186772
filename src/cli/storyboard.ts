import { createWriteStream } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import type { ActionStep } from '../core/schema/action-params.js';
import { InputError, UsageError } from './exit-codes.js';
import { readFlags, readInput, type CommandFlags } from './shot-flags.js';
import { readStdin } from './stdin.js';
import { runShots, type RunOptions, type WriteResult } from './shot.js';
import { LocalSteps, command, localAction } from './storyboard-local.js';
import { Servers, runLocal, type Command } from './local-commands.js';
import { webmToMp4 } from './webm-to-mp4.js';

/**
 * `capture-engine video storyboard.yml`: shot-scraper's storyboards (release 1.11, docs/video.md)
 * recorded as the engine's `scenario=record`, its scenes' steps played as `actions` while it records.
 */
const FLAGS: CommandFlags = {
  usage: `capture-engine video storyboard.yml [-o demo.webm] [--mp4]   (- reads the storyboard from standard input)
  A video of shot-scraper's storyboard: url, output, sh, python, server (run before the browser; the server
  stopped at the end unless --leave-server), viewport {width, height}, cursor, wait, wait_for,
  wait_for_url, javascript, and scenes of {name, sh, python, open, wait_for, wait_for_url, do: [click,
  type, fill, press, scroll, pause, wait_for, wait_for_url, expect, expect_gone, open, javascript/js,
  screenshot, sh, python]}
  (click: {selector, button, count} and type: {into, text, delay_ms} as there).
  sh: and python: run on this machine, as the file says, each for at most 10 minutes, their output on
  stderr. --mp4 also writes an MP4 copy of the WebM with ffmpeg, named .mp4.
  Also --browser-arg, --log-console, --bypass-csp, -a auth.json, --silent and shot's parameters.`,
  own: { mp4: 'yes-no' },
};

const TOP_KEYS = new Set(['output', 'url', 'sh', 'python', 'server', 'viewport', 'cursor', 'wait', 'wait_for', 'wait_for_url', 'javascript', 'scenes']);
const SCENE_KEYS = new Set(['name', 'open', 'wait_for', 'wait_for_url', 'sh', 'python', 'do']);
const CURSOR_KEYS = new Set(['visible', 'clicks', 'color', 'size', 'click_size']);

/** What of shot-scraper's cursor the engine does not draw: its pointer is a fixed black arrow, without click rings. */
function cursorNote(cursor: unknown): string | undefined {
  if (cursor === undefined || cursor === false) return undefined;
  const options = isMap(cursor) ? cursor : {};
  const unused = ['color', 'size', 'click_size'].filter((key) => options[key] !== undefined);
  const rings = options.clicks !== false;
  if (!rings && unused.length === 0) return undefined;
  return `Note: the pointer is drawn as a black arrow${rings ? ', without click rings' : ''}${unused.length > 0 ? `; cursor ${unused.join(', ')} not used` : ''}`;
}

type Map = Record<string, unknown>;
const isMap = (value: unknown): value is Map => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Refused like shot-scraper's validation: the path of the key, and what is wrong with it. */
const wrong = (message: string): InputError => new InputError(`Storyboard: ${message}`);

function checkKeys(entry: Map, allowed: Set<string>, where: string): void {
  for (const key of Object.keys(entry)) if (!allowed.has(key)) throw wrong(`${where}${key}: Extra inputs are not permitted`);
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
function action(step: unknown, where: string, local: LocalSteps): ActionStep[] {
  if (!isMap(step) || Object.keys(step).length !== 1) throw wrong(`${where}: actions must be single-key mappings`);
  const [[kind, value]] = Object.entries(step) as [[string, unknown]];
  const at = `${where}.${kind}`;
  const options = isMap(value) ? value : {};
  const done = localAction(kind, value, at, local);
  if (done !== undefined) return done;
  switch (kind) {
    case 'click':
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
      throw wrong(`${where}: Unknown storyboard action: ${kind}`);
  }
}

/**
 * How long the recording lasts: every pause, a second for each other step and for the page to show
 * (shot-scraper records until the last step ends; the engine's recording has a length, and steps
 * still running when it ends are stopped). A step the CLI does itself (two of the engine's) counts one.
 */
const seconds = (steps: ActionStep[], local: LocalSteps): number => Math.ceil(1 - local.count + steps.reduce((sum, step) => sum + (step.action === 'wait' ? (step.ms ?? 0) / 1000 : 1), 0));

/** What runs before the browser starts: the storyboard's top-level `sh:`, `python:` and `server:`, in that order. */
export interface BeforeRecording {
  sh?: Command;
  python?: Command;
  server?: Command;
}

/** The storyboard's capture parameters (the page, its size, the cursor, its steps as actions), with the steps `local` does and what runs before. */
export function storyboardParams(board: unknown, output: string | undefined, local: LocalSteps): { params: Map; before: BeforeRecording } {
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
  if (board.wait_for_url !== undefined) steps.push(...(localAction('wait_for_url', board.wait_for_url, 'wait_for_url', local) ?? []));
  if (board.javascript !== undefined) steps.push({ action: 'evaluate', script: text(board.javascript, 'javascript') });
  for (const [index, scene] of scenes.entries()) {
    const where = `scenes.${index}`;
    if (!isMap(scene)) throw wrong(`${where}: a scene is a mapping`);
    checkKeys(scene, SCENE_KEYS, `${where}.`);
    // As shot-scraper runs a scene: sh, python, open (the first scene's is the start without url:), wait_for, wait_for_url, do.
    for (const kind of ['sh', 'python'] as const) if (scene[kind] !== undefined) steps.push(...(localAction(kind, scene[kind], `${where}.${kind}`, local) ?? []));
    if (scene.open !== undefined && (index > 0 || board.url !== undefined)) steps.push(...(localAction('open', scene.open, `${where}.open`, local) ?? []));
    if (scene.wait_for !== undefined) steps.push({ action: 'wait_for', selector: text(scene.wait_for, `${where}.wait_for`) });
    if (scene.wait_for_url !== undefined) steps.push(...(localAction('wait_for_url', scene.wait_for_url, `${where}.wait_for_url`, local) ?? []));
    if (scene.do !== undefined && !Array.isArray(scene.do)) throw wrong(`${where}.do: a list of actions`);
    for (const [at, step] of ((scene.do as unknown[] | undefined) ?? []).entries()) steps.push(...action(step, `${where}.do.${at}`, local));
  }
  const viewport = isMap(board.viewport) ? board.viewport : {};
  if (isMap(board.cursor)) checkKeys(board.cursor, CURSOR_KEYS, 'cursor.');
  const cursor = isMap(board.cursor) ? board.cursor.visible !== false : board.cursor === true;
  const before: BeforeRecording = {};
  for (const kind of ['sh', 'python', 'server'] as const) if (board[kind] !== undefined) before[kind] = command(kind === 'python' ? 'python' : 'sh', board[kind], kind);
  // The CLI's own steps take the wall clock's time, as in shot-scraper: recorded live.
  const clock = local.count > 0 ? { video_clock: 'live' } : {};
  const params = { url, output: file, scenario: 'record', ...clock, duration: seconds(steps, local), viewport_width: viewport.width ?? 1280, viewport_height: viewport.height ?? 720, show_cursor: cursor, actions: steps };
  return { params, before };
}

export async function video(args: string[]): Promise<void> {
  const { own, params } = await readFlags(args, FLAGS);
  if (own.help) return void process.stdout.write(`${FLAGS.usage}\n`);
  const { url: file, ...rest } = params;
  if (typeof file !== 'string') throw new UsageError('video needs a storyboard file (- for standard input)', FLAGS.usage);
  const { parse } = await import('yaml');
  const board = await readInput(file, async () => parse(file === '-' ? await readStdin() : await readFile(file, 'utf8')) as unknown);
  const outputs = own.output as string[] | undefined;
  const local = new LocalSteps();
  const { params: { output, ...shot }, before } = storyboardParams(board, outputs?.[0], local);
  const note = cursorNote((board as Map).cursor);
  // A warning, not progress: --silent keeps it.
  if (note !== undefined) process.stderr.write(`${note}\n`);
  const named = String(output);
  own.output = [named];
  const write: WriteResult = async (result) => {
    // A step of the CLI's own that failed fails the command, and no video is written.
    if (local.error) throw local.error;
    await pipeline(result.stream(), createWriteStream(named));
    if (own.quiet !== true) process.stderr.write(`Video written to '${named}'\n`);
    if (own.mp4 !== true || /\.mp4$/i.test(named)) return;
    const mp4 = await webmToMp4(named);
    if (own.quiet !== true) process.stderr.write(`MP4 written to '${mp4}'\n`);
  };
  if (before.sh !== undefined) await runLocal('sh', before.sh);
  if (before.python !== undefined) await runLocal('python', before.python);
  const servers = new Servers();
  try {
    if (before.server !== undefined) {
      servers.start(before.server);
      await servers.ready(String(shot.url));
    }
    const onSession: RunOptions['onSession'] = ({ hooks }, localFiles) => (hooks.beforeNavigation = (page) => local.install(page, localFiles));
    await runShots(own, { ...shot, ...rest }, FLAGS.usage, write, { onSession }).catch((error: unknown) => {
      throw local.error ?? error;
    });
  } finally {
    servers.stop(own['leave-server'] === true);
  }
}

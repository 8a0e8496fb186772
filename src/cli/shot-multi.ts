import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { PARAM_NAMES, type CaptureParams } from '../core/schema/capture-params.js';
import { closestName } from '../core/schema/closest-name.js';
import { InputError } from './exit-codes.js';
import { readStdin } from './stdin.js';
import { isCommand, type Command } from './local-commands.js';
import { formatOfFile } from './output-format.js';
import { isLocalFile, type LocalFiles } from './local-files.js';
import { HTTP_ONLY, httpOnly, readInput, type Shot } from './shot-flags.js';
import { SCRAPER_NAMES, SELECTION_KEYS, addToSelection, emptySelection, filenameForUrl, qualityFormat, selectionParams, urlOrFile } from './shot-scraper.js';

/** One entry of a multi file: commands run first (shot-scraper's `sh:`, `python:`, then `server:`), then its shot if it has one. */
export interface MultiStep {
  sh?: Command;
  python?: string;
  /** shot-scraper's `server:`: started before the entry's shot, which waits until its port answers. */
  server?: Command;
  shot?: Shot;
  /** With --har, an entry without `output:`: its page is loaded for the HAR, no file written. */
  harOnly?: boolean;
}

/** What the command line says about every shot of the file: its parameters, and `-o` and `--no-clobber` choosing which run. */
export interface MultiCommandLine {
  defaults: Record<string, unknown>;
  outputs: string[];
  noClobber: boolean;
  har: boolean;
  localFiles: LocalFiles;
}

const IMAGES = new Set(['png', 'jpg', 'jpeg', 'webp', 'avif']);
const INPUTS = ['url', 'html', 'markdown', 'files'];
const OWN_KEYS = ['output', 'javascript', 'js_file', 'sh', 'python', 'server'];
const KNOWN = new Set<string>([...OWN_KEYS, ...Object.keys(SCRAPER_NAMES), ...SELECTION_KEYS, ...PARAM_NAMES.filter((name) => !HTTP_ONLY.includes(name))]);

/** Steps from a YAML (shot-scraper's `multi` format) or JSON file, `-` for standard input: a list of shots and commands. */
export async function readMulti(file: string, commandLine: MultiCommandLine): Promise<MultiStep[]> {
  const { parse: parseYaml } = await import('yaml');
  const entries = await readInput(file, async () => parseYaml(file === '-' ? await readStdin() : await readFile(file, 'utf8')) as unknown);
  if (entries === null || entries === undefined) return [];
  if (!Array.isArray(entries) || entries.some((each) => typeof each !== 'object' || each === null || Array.isArray(each))) {
    throw new InputError(`${file}: expected a YAML or JSON list of shots, each with "url" (or html), "output" and the capture's parameters`);
  }
  const steps: MultiStep[] = [];
  for (const [index, entry] of (entries as Record<string, unknown>[]).entries()) {
    const step = await readEntry(entry, `${file}, shot ${index + 1}`, commandLine);
    if (step !== undefined) steps.push(step);
  }
  return steps;
}

async function readEntry(entry: Record<string, unknown>, where: string, { defaults, outputs, noClobber, har, localFiles }: MultiCommandLine): Promise<MultiStep | undefined> {
  for (const key of Object.keys(entry)) {
    if (HTTP_ONLY.includes(key as keyof CaptureParams)) throw new InputError(`${where}: ${httpOnly(key)}`);
    if (!KNOWN.has(key)) {
      const suggestion = closestName(key, [...KNOWN]);
      throw new InputError(`${where}: unknown key "${key}"${suggestion === undefined ? '' : ` (did you mean "${suggestion}"?)`}`);
    }
  }
  const { output, javascript, js_file: jsFile, sh, python, server, ...rest } = entry;
  for (const [key, value] of [['sh', sh], ['server', server]] as const) if (value !== undefined && !isCommand(value)) throw new InputError(`${where}: ${key}: must be a string or list`);
  if (python !== undefined && typeof python !== 'string') throw new InputError(`${where}: python: must be a string`);
  const commands: MultiStep = { ...(sh === undefined ? {} : { sh: sh as Command }), ...(python === undefined ? {} : { python }), ...(server === undefined ? {} : { server: server as Command }) };
  const hasInput = INPUTS.some((input) => rest[input] !== undefined);
  // shot-scraper skips an existing file with --no-clobber, and runs only the outputs -o names.
  const named = typeof output === 'string' && output.trim() !== '' ? output.trim() : undefined;
  if (named !== undefined && ((noClobber && existsSync(named)) || (outputs.length > 0 && !outputs.includes(named)))) return undefined;
  if (!hasInput) return Object.keys(commands).length > 0 ? commands : undefined;
  const params: Record<string, unknown> = { ...defaults };
  const selection = emptySelection();
  for (const [key, value] of Object.entries(rest)) {
    if ((SELECTION_KEYS as readonly string[]).includes(key)) addToSelection(selection, key as (typeof SELECTION_KEYS)[number], value);
    else params[SCRAPER_NAMES[key] ?? key] = value;
  }
  if (typeof javascript === 'string' && jsFile !== undefined) throw new InputError(`${where}: javascript and js_file: give one of them`);
  if (typeof javascript === 'string') params.scripts = javascript;
  else if (javascript !== undefined) params.javascript = javascript;
  if (jsFile !== undefined) params.scripts = await readInput(`${where}, js_file ${String(jsFile)}`, () => readFile(String(jsFile), 'utf8'));
  Object.assign(params, selectionParams(selection, params.actions));
  // The URL is read when its shot runs (shot.ts): an earlier entry's sh: may write the file it names.
  const source = typeof rest.url === 'string' ? (isLocalFile(rest.url) ? `file:${path.resolve(rest.url)}` : await urlOrFile(rest.url, localFiles)) : undefined;
  if (named === undefined && source === undefined) throw new InputError(`${where}: "output" is missing`);
  const file = named ?? filenameForUrl(source as string, 'png');
  const shot: Shot = { ...params, ...qualityFormat(params, file), output: file };
  // shot-scraper: no height means the whole page.
  const format = shot.format ?? formatOfFile(file).format ?? 'png';
  if (IMAGES.has(String(format)) && shot.viewport_height === undefined && shot.full_page === undefined && shot.selector === undefined) shot.full_page = true;
  return { ...commands, shot, ...(har && named === undefined ? { harOnly: true } : {}) };
}

import { readFile } from 'node:fs/promises';
import { CaptureParamsSchema, PARAM_NAMES, allowedFor, type CaptureParams } from '../core/schema/capture-params.js';
import { closestName } from '../core/schema/closest-name.js';
import { InputError, UsageError } from './exit-codes.js';

export const USAGE = `capture-engine shot <url> -o <file> [--<parameter> <value> ...]
capture-engine shot --multi <shots.yml>
  One capture (or several with one engine), no server. Every parameter of /v1/capture is a flag,
  its name in kebab case: --format pdf --device-scale-factor 2 --full-page. Without --format, the
  file's extension names it: -o page.md is Markdown, page.pdf a PDF, page.txt text. A flag of a yes/no
  parameter alone means true. A value @<file> is read from that file (--html @page.html,
  --headers @headers.json). --width and --height are short for --viewport-width and
  --viewport-height. --multi reads a YAML (or JSON) list of shots, each {output: file, ...parameters},
  as shot-scraper's multi does. --response-type json prints each capture as a line of JSON (file,
  size, format, id, timings) instead of a line of text.
  On a terminal, each shot shows its phase and seconds, a bar of frames for a video and of shots
  for --multi, on stderr; --quiet (or stderr not a terminal) shows none.
  Also: --allow-private-networks, --storage-dir <dir>, --help (lists every parameter).`;

/** The command's own flags; every other flag is a capture parameter. */
const OWN = new Set(['output', 'multi', 'allow-private-networks', 'storage-dir', 'help', 'quiet']);
const OWN_YES_NO = new Set(['allow-private-networks', 'help', 'quiet']);
const ALIASES: Record<string, keyof CaptureParams> = { width: 'viewport_width', height: 'viewport_height' };
const SHORT: Record<string, string> = { o: 'output', h: 'help', q: 'quiet' };

export type Shot = Record<string, unknown> & { output: string };

/** Parameters of the HTTP service's queue and result cache: a shot captures now, to its file, so they are refused. */
const HTTP_ONLY: readonly (keyof CaptureParams)[] = ['async', 'webhook_url', 'cache', 'cache_ttl', 'cache_stale_ttl', 'cache_key', 'fresh'];
const httpOnly = (as: string): string =>
  `${as} is for the HTTP service (its job queue and result cache): capture-engine shot captures at once, to its file; leave ${as} out`;

export function oneShot(own: Record<string, unknown>, params: Record<string, unknown>): Shot {
  if (params.url === undefined && !['html', 'markdown', 'files'].some((input) => params[input] !== undefined)) throw new UsageError('shot needs a URL (or --html, --markdown, --files)', USAGE);
  if (typeof own.output !== 'string') throw new UsageError('-o <file> is missing', USAGE);
  return { ...params, output: own.output };
}

/** Shots from a YAML (shot-scraper's `multi` format) or JSON file: a list of {output, ...parameters}. */
export async function readMulti(file: string): Promise<Shot[]> {
  const { parse: parseYaml } = await import('yaml');
  const shots = await readInput(file, async () => parseYaml(await readFile(file, 'utf8')) as unknown);
  if (!Array.isArray(shots) || shots.some((each) => typeof each !== 'object' || each === null || typeof (each as Shot).output !== 'string')) {
    throw new InputError(`${file}: expected a YAML or JSON list of shots, each with "output" and the capture's parameters`);
  }
  return (shots as Shot[]).map((each, index) => {
    const refused = HTTP_ONLY.find((name) => Object.hasOwn(each, name));
    if (refused !== undefined) throw new InputError(`${file}, shot ${index + 1}: ${httpOnly(refused)}`);
    return Object.fromEntries(Object.entries(each).map(([name, value]) => [ALIASES[name] ?? name, value])) as Shot;
  });
}

/** Splits the arguments into the command's own flags and the capture's parameters (the first positional is the url). */
export async function readFlags(args: string[]): Promise<{ own: Record<string, unknown>; params: Record<string, unknown> }> {
  const own: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-')) {
      if (params.url !== undefined) throw new UsageError(`unexpected ${arg}: the URL is ${String(params.url)}`, USAGE);
      params.url = arg;
      continue;
    }
    const [flag, inline] = arg.replace(/^--?/, '').split(/=(.*)/s, 2) as [string, string | undefined];
    const name = SHORT[flag] ?? flag;
    const param = ALIASES[name] ?? (name.replaceAll('-', '_') as keyof CaptureParams);
    const yesNo = OWN_YES_NO.has(name) || (OWN.has(name) ? false : isYesNo(param));
    const next = args[i + 1];
    let value: string | boolean;
    if (inline !== undefined) value = inline;
    else if (yesNo) value = next === 'true' || next === 'false' ? args[++i] === 'true' : true;
    else if (next === undefined) throw new UsageError(`--${name} needs a value`, USAGE);
    else value = args[++i] as string;
    if (OWN.has(name)) own[name] = value;
    else if (HTTP_ONLY.includes(param)) throw new UsageError(httpOnly(`--${name}`), USAGE);
    else if (PARAM_NAMES.includes(param)) params[param] = typeof value === 'string' ? await fromFile(param, value) : value;
    else throw new UsageError(`unknown flag --${name}${flagSuggestion(name)} (capture-engine shot --help lists the parameters)`, USAGE);
  }
  return { own, params };
}

/** `--widht`: ` (did you mean --width?)`, among the parameters, their short forms and the command's own flags. */
function flagSuggestion(name: string): string {
  const flags = [...OWN, ...Object.keys(ALIASES), ...PARAM_NAMES.filter((param) => !HTTP_ONLY.includes(param)).map((param) => param.replaceAll('_', '-'))];
  const suggestion = closestName(name, flags);
  return suggestion === undefined ? '' : ` (did you mean --${suggestion}?)`;
}

function isYesNo(param: keyof CaptureParams): boolean {
  return (CaptureParamsSchema.properties[param] as { type?: string } | undefined)?.type === 'boolean';
}

/** `@file`: the file's text, parsed as JSON for a parameter that takes a list or an object. */
async function fromFile(param: keyof CaptureParams, value: string): Promise<unknown> {
  if (!value.startsWith('@')) return value;
  const type = (CaptureParamsSchema.properties[param] as { type?: string }).type;
  return readInput(`--${param.replaceAll('_', '-')} ${value}`, async () => {
    const text = await readFile(value.slice(1), 'utf8');
    return type === 'array' || type === 'object' ? (JSON.parse(text) as unknown) : text;
  });
}

/** A file a flag names, read: what fails is refused input, named by the flag. */
async function readInput<T>(what: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    throw new InputError(`${what}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
}

/** One line per parameter, straight from the schema, and those the HTTP service alone takes. */
export function parameterHelp(): string {
  const flag = (name: string): string => `--${name.replaceAll('_', '-')}`;
  const lines = PARAM_NAMES.filter((name) => !HTTP_ONLY.includes(name)).map((name) => {
    const schema = CaptureParamsSchema.properties[name] as { description?: string };
    return `  ${flag(name)} <${allowedFor(name)}>\n      ${schema.description ?? ''}`;
  });
  return [...lines, `\nOf the HTTP service only, refused here: ${HTTP_ONLY.map(flag).join(', ')}`].join('\n');
}

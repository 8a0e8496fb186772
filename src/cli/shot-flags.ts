import { readFile } from 'node:fs/promises';
import { CaptureParamsSchema, PARAM_NAMES, allowedFor, type CaptureParams } from '../core/schema/capture-params.js';
import { closestName } from '../core/schema/closest-name.js';
import { InputError, UsageError } from './exit-codes.js';
import { FORMATS, type CaptureFormat } from '../core/schema/formats.js';
import { loadScriptSource } from './scraper-options.js';
import { SELECTION_KEYS, addToSelection, emptySelection, filenameForUrl, qualityFormat, selectionParams } from './shot-scraper.js';

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
  shot-scraper's flags and YAML keys work as there: -w/-h (a number), -s and --selector-all <css>
  (repeated: the box around all), --js-selector, -j/--javascript <script>, --js-file, --wait,
  --wait-for, --retina, --scale-factor, --silent, -o - (standard output), no -o (a name from the
  URL), --multi - (standard input) with sh:, python:, js_file:, and -o/-n choosing its shots.
  A flag given twice is refused, but -o with --multi, --browser-arg and the selectors.
  Also as there: --browser-arg --SWITCH (repeatable; switches that take the browser out of the
  engine's hands are refused), --log-console (the page's console on stderr), --log-requests FILE
  (a JSON line per request), --bypass-csp, -a/--auth auth.json (a Playwright storage state, as
  shot-scraper auth writes it), --fail, --har / --har-zip / --har-file FILE (the HAR of every page
  in one file, trace.har by default). A local HTML file opens with the files beside it.
  --skip (a page answering 4xx/5xx: say so, write nothing, exit 0), --auth-username/--auth-password
  (HTTP Basic, to the page's origin), -b/--browser chromium|chrome (the only engine here),
  --js-file FILE, - or gh:user/script (github.com/user/shot-scraper-scripts). A --multi shot that
  times out is said on stderr and the next one runs, unless --fail or --fail-on-error.
  --interactive and --devtools are refused: the engine's browser has no window (-j acts on the page).
  Also: --allow-private-networks, --storage-dir <dir>, --help (lists every parameter).`;

/**
 * The command's own flags; every other flag is a capture parameter. shot-scraper's `--har` writes
 * the HAR of every page to a file (here, as there): the capture parameter `har` is of the HTTP service.
 */
const OWN = new Set(['output', 'multi', 'allow-private-networks', 'storage-dir', 'help', 'quiet', 'no-clobber', 'browser-arg', 'log-console', 'log-requests', 'bypass-csp', 'auth', 'har', 'har-zip', 'har-file', 'skip', 'browser', 'auth-username', 'auth-password', 'leave-server', 'interactive', 'devtools', 'fail-on-error']);
const OWN_YES_NO = new Set(['allow-private-networks', 'help', 'quiet', 'no-clobber', 'log-console', 'bypass-csp', 'har', 'har-zip', 'skip', 'leave-server', 'interactive', 'devtools', 'fail-on-error']);
/** Own flags that may be given more than once, each value kept. */
const REPEATED = new Set(['output', 'browser-arg']);
const ALIASES: Record<string, keyof CaptureParams> = { fail: 'fail_on_http_error', width: 'viewport_width', height: 'viewport_height', 'scale-factor': 'device_scale_factor', retina: 'device_scale_factor', wait: 'delay', 'wait-for': 'wait_for_function', 'js-file': 'scripts' };
/** shot-scraper's short flags besides ours (-h is --height when a number follows it there). */
const SHORT: Record<string, string> = { o: 'output', h: 'help', q: 'quiet', n: 'no-clobber', w: 'width', s: 'selector', p: 'padding', j: 'javascript', a: 'auth', b: 'browser', silent: 'quiet' };
/** Flags whose repeats shot-scraper boxes together, and `--selector-all <selector>`, its way of saying every match. */
const SELECTION_FLAGS: Record<string, (typeof SELECTION_KEYS)[number]> = { selector: 'selector', 'selector-all': 'selector_all', 'js-selector': 'js_selector', 'js-selector-all': 'js_selector_all' };

export type Shot = Record<string, unknown> & { output: string };

/**
 * What a subcommand (`pdf`, `javascript`, ...) reads besides shot's flags: its own flags (yes/no or
 * taking a value), its short forms, flags that name a parameter of its own (pdf's `--width` is the
 * paper's), and whether a second positional follows the URL (`javascript URL SCRIPT`).
 */
export interface CommandFlags {
  usage: string;
  own?: Record<string, 'yes-no' | 'value'>;
  short?: Record<string, string>;
  aliases?: Record<string, keyof CaptureParams>;
  second?: string;
}

/** Parameters of the HTTP service's queue and result cache: a shot captures now, to its file, so they are refused. */
export const HTTP_ONLY: readonly (keyof CaptureParams)[] = ['async', 'webhook_url', 'cache', 'cache_ttl', 'cache_stale_ttl', 'cache_key', 'fresh'];
export const httpOnly = (as: string): string =>
  `${as} is for the HTTP service (its job queue and result cache): capture-engine shot captures at once, to its file; leave ${as} out`;

export function oneShot(own: Record<string, unknown>, params: Record<string, unknown>): Shot {
  if (params.url === undefined && !['html', 'markdown', 'files'].some((input) => params[input] !== undefined)) throw new UsageError('shot needs a URL (or --html, --markdown, --files)', USAGE);
  const outputs = own.output as string[] | undefined;
  if (outputs !== undefined && outputs.length > 1) throw new UsageError('-o is given more than once: one shot writes one file (several -o choose the shots of --multi)', USAGE);
  // shot-scraper names the file after the URL when -o is left out.
  const output = outputs?.[0] ?? (typeof params.url === 'string' ? filenameForUrl(params.url, FORMATS[params.format as CaptureFormat]?.extension ?? 'png') : undefined);
  if (output === undefined) throw new UsageError('-o <file> is missing', USAGE);
  return { ...params, ...qualityFormat(params, output), output };
}

/** A flag that takes a value there and is yes/no here: a value after the URL that is not true or false is the value. */
const takesValue = (next: string | undefined, params: Record<string, unknown>): boolean => next !== undefined && params.url !== undefined && !next.startsWith('-') && next !== 'true' && next !== 'false';

/**
 * Splits the arguments into the command's own flags and the capture's parameters (the first
 * positional is the url). A flag given twice is refused, but for -o (the shots --multi runs) and the
 * selectors, whose elements shot-scraper captures in one box.
 */
export async function readFlags(args: string[], command: CommandFlags = { usage: USAGE }): Promise<{ own: Record<string, unknown>; params: Record<string, unknown> }> {
  const { usage } = command;
  const commandOwn = command.own ?? {};
  const isOwn = (name: string): boolean => OWN.has(name) || Object.hasOwn(commandOwn, name);
  const own: Record<string, unknown> = {};
  const params: Record<string, unknown> = {};
  const given = new Map<string, string>();
  const selection = emptySelection();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    if (!arg.startsWith('-') || arg === '-') {
      if (params.url === undefined) params.url = arg;
      else if (command.second !== undefined && own[command.second] === undefined) own[command.second] = arg;
      else throw new UsageError(`unexpected ${arg}: the URL is ${String(params.url)}`, usage);
      continue;
    }
    const [flag, inline] = arg.replace(/^--?/, '').split(/=(.*)/s, 2) as [string, string | undefined];
    const next = args[i + 1];
    let name = flag === 'h' && next !== undefined && /^\d+$/.test(next) ? 'height' : (command.short?.[flag] ?? SHORT[flag] ?? flag);
    if ((name === 'javascript' || name === 'selector-all') && inline === undefined && takesValue(next, params)) name = name === 'javascript' ? 'scripts' : 'selector-all';
    const selectionKey = name === 'selector-all' && (inline ?? (takesValue(next, params) ? next : undefined)) === undefined ? undefined : SELECTION_FLAGS[name];
    const param = command.aliases?.[name] ?? ALIASES[name] ?? (name.replaceAll('-', '_') as keyof CaptureParams);
    const yesNo = selectionKey === undefined && (OWN_YES_NO.has(name) || commandOwn[name] === 'yes-no' || name === 'retina' || (isOwn(name) ? false : isYesNo(param)));
    let value: string | boolean;
    if (inline !== undefined) value = inline;
    else if (yesNo) value = next === 'true' || next === 'false' ? args[++i] === 'true' : true;
    else if (next === undefined) throw new UsageError(`--${name} needs a value`, usage);
    else value = args[++i] as string;
    if (selectionKey !== undefined) {
      addToSelection(selection, selectionKey, value);
      continue;
    }
    const key = isOwn(name) ? name : param;
    const before = given.get(key);
    if (before !== undefined && !REPEATED.has(key)) throw new UsageError(`--${name} ${before === `--${name}` ? 'is given twice' : `repeats ${before}`}: give it once`, usage);
    given.set(key, `--${name}`);
    if (REPEATED.has(key)) own[name] = [...((own[name] as string[] | undefined) ?? []), value];
    else if (isOwn(name)) own[name] = value;
    else if (HTTP_ONLY.includes(param)) throw new UsageError(httpOnly(`--${name}`), usage);
    else if (name === 'retina') params[param] = value === true ? 2 : 1;
    else if (name === 'js-file') params[param] = await loadScriptSource(String(value), '--js-file');
    else if (PARAM_NAMES.includes(param)) params[param] = typeof value === 'string' ? await fromFile(param, value) : value;
    else throw new UsageError(`unknown flag --${name}${flagSuggestion(name)} (capture-engine shot --help lists the parameters)`, usage);
  }
  return { own, params: { ...params, ...selectionParams(selection, params.actions) } };
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
export async function readInput<T>(what: string, read: () => Promise<T>): Promise<T> {
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

import { createWriteStream } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { createCaptureEngine } from '../create-capture-engine.js';
import type { CaptureEngine } from '../core/engine.js';
import { CaptureParamsSchema, PARAM_NAMES, allowedFor, type CaptureParams } from '../core/schema/capture-params.js';
import { baseOptions } from './options-from-env.js';
import { EXIT_HELP, InputError, UsageError } from './exit-codes.js';

const USAGE = `capture-engine shot <url> -o <file> [--<parameter> <value> ...]
capture-engine shot --multi <shots.yml>
  One capture (or several with one engine), no server. Every parameter of /v1/capture is a flag,
  its name in kebab case: --format pdf --device-scale-factor 2 --full-page. A flag of a yes/no
  parameter alone means true. A value @<file> is read from that file (--html @page.html,
  --headers @headers.json). --width and --height are short for --viewport-width and
  --viewport-height. --multi reads a YAML (or JSON) list of shots, each {output: file, ...parameters},
  as shot-scraper's multi does.
  Also: --allow-private-networks, --storage-dir <dir>, --help (lists every parameter).`;

/** The command's own flags; every other flag is a capture parameter. */
const OWN = new Set(['output', 'multi', 'allow-private-networks', 'storage-dir', 'help']);
const ALIASES: Record<string, keyof CaptureParams> = { width: 'viewport_width', height: 'viewport_height' };
const SHORT: Record<string, string> = { o: 'output', h: 'help' };

type Shot = Record<string, unknown> & { output: string };

/** `capture-engine shot`: captures to files, no server. */
export async function shot(args: string[]): Promise<void> {
  const { own, params } = await readFlags(args);
  if (own.help) return void process.stdout.write(`${USAGE}\n\n${EXIT_HELP}\n\nParameters:\n${parameterHelp()}\n`);
  const shots = own.multi !== undefined ? await readMulti(own.multi as string) : [oneShot(own, params)];
  // Shots run one after another: one slot, and a context warmed for the next shot only when there is one.
  const engine = await createCaptureEngine({ ...baseOptions(own['allow-private-networks'] === true, own['storage-dir'] as string | undefined), concurrency: 1, warmContexts: shots.length > 1 ? 1 : 0 });
  try {
    for (const each of shots) await capture(engine, each);
  } finally {
    await engine.close();
  }
}

async function capture(engine: CaptureEngine, { output, ...params }: Shot): Promise<void> {
  const result = await engine.capture(params);
  try {
    if (result.data) await writeFile(output, result.data);
    else await pipeline(result.stream(), createWriteStream(output));
  } finally {
    await result.dispose();
  }
  process.stdout.write(`${output}: ${result.format}, ${result.size} bytes\n`);
}

function oneShot(own: Record<string, unknown>, params: Record<string, unknown>): Shot {
  if (params.url === undefined && !['html', 'markdown', 'files'].some((input) => params[input] !== undefined)) throw new UsageError('shot needs a URL (or --html, --markdown, --files)', USAGE);
  if (typeof own.output !== 'string') throw new UsageError('-o <file> is missing', USAGE);
  return { ...params, output: own.output };
}

/** Shots from a YAML (shot-scraper's `multi` format) or JSON file: a list of {output, ...parameters}. */
async function readMulti(file: string): Promise<Shot[]> {
  const { parse: parseYaml } = await import('yaml');
  const shots = await readInput(file, async () => parseYaml(await readFile(file, 'utf8')) as unknown);
  if (!Array.isArray(shots) || shots.some((each) => typeof each !== 'object' || each === null || typeof (each as Shot).output !== 'string')) {
    throw new InputError(`${file}: expected a YAML or JSON list of shots, each with "output" and the capture's parameters`);
  }
  return (shots as Shot[]).map((each) => Object.fromEntries(Object.entries(each).map(([name, value]) => [ALIASES[name] ?? name, value])) as Shot);
}

/** Splits the arguments into the command's own flags and the capture's parameters (the first positional is the url). */
async function readFlags(args: string[]): Promise<{ own: Record<string, unknown>; params: Record<string, unknown> }> {
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
    const yesNo = name === 'allow-private-networks' || name === 'help' || (OWN.has(name) ? false : isYesNo(param));
    const next = args[i + 1];
    let value: string | boolean;
    if (inline !== undefined) value = inline;
    else if (yesNo) value = next === 'true' || next === 'false' ? args[++i] === 'true' : true;
    else if (next === undefined) throw new UsageError(`--${name} needs a value`, USAGE);
    else value = args[++i] as string;
    if (OWN.has(name)) own[name] = value;
    else if (PARAM_NAMES.includes(param)) params[param] = typeof value === 'string' ? await fromFile(param, value) : value;
    else throw new UsageError(`unknown flag --${name} (capture-engine shot --help lists the parameters)`, USAGE);
  }
  return { own, params };
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

/** One line per parameter, straight from the schema. */
function parameterHelp(): string {
  return PARAM_NAMES.map((name) => {
    const schema = CaptureParamsSchema.properties[name] as { description?: string };
    return `  --${name.replaceAll('_', '-')} <${allowedFor(name)}>\n      ${schema.description ?? ''}`;
  }).join('\n');
}

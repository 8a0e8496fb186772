import { writeFile } from 'node:fs/promises';
import { UsageError } from './exit-codes.js';
import { readFlags, type CommandFlags, type Shot } from './shot-flags.js';
import { runShots, type WriteResult } from './shot.js';
import { filenameForUrl } from './shot-scraper.js';
import { isZipName } from './har-output.js';
import { loadScriptSource } from './scraper-options.js';

/**
 * shot-scraper's other commands (release 1.11, docs/html.md, accessibility.md, javascript.md,
 * pdf.md, har.md), with their flags and what they print, on the engine's formats: `html` is
 * format=html of the whole document, `accessibility` the ARIA snapshot as JSON, `javascript` a
 * script's value as JSON, `pdf` format=pdf, `har` the page load's HAR. Every flag of `shot` works too.
 */
const COMMON = `Flags as shot-scraper's: -o FILE (- for standard output), -j/--javascript SCRIPT, --js-file FILE,
  --wait MS, --timeout MS, --user-agent UA, --fail, --log-console, --log-requests FILE, --bypass-csp,
  -a/--auth auth.json (a storage state, as shot-scraper auth writes), --browser-arg --SWITCH, --silent;
  and every parameter of capture-engine shot --help. URL may be a local HTML file: the files beside it load.`;

type CommandName = 'html' | 'accessibility' | 'javascript' | 'pdf' | 'har';

const FLAGS: Record<CommandName, CommandFlags> = {
  html: { usage: `capture-engine html URL [-o page.html] [-s SELECTOR]\n  The page's final HTML, after its JavaScript ran (-s: the outerHTML of the first match).\n  ${COMMON}` },
  accessibility: { usage: `capture-engine accessibility URL [-o tree.json]\n  The page's accessibility tree (Playwright's ARIA snapshot of the body) as JSON.\n  ${COMMON}` },
  javascript: {
    usage: `capture-engine javascript URL [SCRIPT] [-i script.js | gh:user/script] [-r] [-o out.json] [-w 1280 -h 720]\n  The script's value as JSON (-r: a string as it is); a function is called, a promise awaited.\n  Without SCRIPT or -i, the script is read from standard input. A script that throws exits 1.\n  ${COMMON}`,
    own: { raw: 'yes-no', input: 'value' },
    short: { r: 'raw', i: 'input' },
    second: 'script',
  },
  pdf: {
    usage: `capture-engine pdf URL [-o page.pdf] [--landscape] [--format a4|letter|legal|tabloid|a3|a5]\n  [--width 10cm --height 20cm] [--scale 0.1..2] [--print-background] [--media-screen]\n  ${COMMON}`,
    own: { 'media-screen': 'yes-no' },
    aliases: { format: 'pdf_paper', width: 'pdf_width', height: 'pdf_height', landscape: 'pdf_landscape', scale: 'pdf_scale', 'print-background': 'pdf_print_background' },
  },
  har: {
    usage: `capture-engine har URL [-o page.har | page.har.zip] [-z/--zip] [-x/--extract]\n  The HAR of the page's load with the bodies of its responses: inline in a .har, as files beside\n  har.har in a .har.zip. -x also writes each body into a folder named after the HAR (page.har: page/).\n  ${COMMON}`,
    own: { zip: 'yes-no', extract: 'yes-no' },
    short: { z: 'zip', x: 'extract' },
  },
};

/** The command `name` of the CLI: its flags read, one capture, its output written. */
export function scraperCommand(name: CommandName): (args: string[]) => Promise<void> {
  return async (args) => {
    const flags = FLAGS[name];
    const { own, params } = await readFlags(args, flags);
    if (own.help) return void process.stdout.write(`${flags.usage}\n`);
    if (typeof params.url !== 'string') throw new UsageError(`${name} needs a URL (or the path of a local HTML file)`, flags.usage);
    // The URL as given, for the line saying what was written (a local file is served at another).
    own.source = params.url;
    const run = await COMMANDS[name](own, params, flags.usage);
    await runShots(own, run.params, flags.usage, run.write, { evaluate: run.evaluate });
  };
}

/** A command's capture: its parameters, the script to evaluate in its page, and how its output is written. */
type Prepared = { params: Record<string, unknown>; evaluate?: string; write: WriteResult };
const COMMANDS: Record<CommandName, (own: Record<string, unknown>, params: Record<string, unknown>, usage: string) => Promise<Prepared>> = {
  html: (own, { selector, selector_all: all, actions, ...params }) => {
    if (all !== undefined || actions !== undefined) throw new UsageError('html takes one -s selector', FLAGS.html.usage);
    own.output ??= ['-'];
    if (selector === undefined) return Promise.resolve({ params: { ...params, format: 'html', content: 'full' }, write: (result, shot) => writeText(result.text ?? '', shot, own, 'HTML snapshot') });
    // shot-scraper's -s: the outerHTML of the first match, read once the page is ready.
    const script = `(() => { const found = document.querySelector(${JSON.stringify(selector)}); if (!found) throw new Error('no element matches ' + ${JSON.stringify(JSON.stringify(selector))}); return found.outerHTML; })()`;
    return Promise.resolve({ params: { ...params, format: 'text' }, evaluate: script, write: evaluated((value, shot) => writeText(String(value), shot, own, 'HTML snapshot')) });
  },
  accessibility: (own, params) => {
    own.output ??= ['-'];
    return Promise.resolve({
      params: { ...params, format: 'aria' },
      write: async (result, shot) => {
        const { parse } = await import('yaml');
        await writeText(`${JSON.stringify(parse(result.text ?? ''), null, 4)}\n`, shot, own, 'Accessibility tree');
      },
    });
  },
  javascript: async (own, params, usage) => {
    own.output ??= ['-'];
    if (own.script !== undefined && own.input !== undefined) throw new UsageError('give the script or -i FILE, not both', usage);
    const script = (own.script as string | undefined) ?? (await loadScriptSource(typeof own.input === 'string' ? own.input : '-', `-i ${String(own.input ?? '-')}`));
    if (script.trim() === '') throw new UsageError('javascript needs a script: after the URL, with -i FILE, or on standard input', usage);
    const write = evaluated((value, shot) => writeText(own.raw === true ? String(value) : `${JSON.stringify(value ?? null, null, 4)}\n`, shot, own));
    return { params: { ...params, format: 'text' }, evaluate: script, write };
  },
  pdf: (own, params) => {
    const paper = typeof params.pdf_paper === 'string' ? { pdf_paper: paperName(params.pdf_paper) } : {};
    // shot-scraper prints backgrounds only with --print-background; Chromium's print media unless --media-screen.
    const media = own['media-screen'] === true ? { media_type: 'screen' } : {};
    own.output ??= [filenameForUrl(params.url as string, 'pdf')];
    const write: WriteResult = async (result, shot) => writeBytes(await result.buffer(), shot, own, 'PDF');
    return Promise.resolve({ params: { pdf_print_background: false, ...params, ...paper, ...media, format: 'pdf' }, write });
  },
  har: (own, params, usage) => {
    const given = (own.output as string[] | undefined)?.[0];
    // shot-scraper: with -x, an -o without .har or .har.zip is the base of both names (-x -o /tmp/site: site.har and site/).
    const output = given !== undefined && own.extract === true && !/\.har(\.zip)?$/i.test(given) ? `${given}.${own.zip === true ? 'har.zip' : 'har'}` : given;
    own['har-file'] = output ?? filenameForUrl(params.url as string, own.zip === true ? 'har.zip' : 'har');
    if (own.zip === true && !isZipName(own['har-file'] as string)) throw new UsageError(`--zip writes a .har.zip file, not ${String(own['har-file'])}`, usage);
    own.output = ['-'];
    return Promise.resolve({ params: { ...params, format: 'text' }, write: () => Promise.resolve() });
  },
};

/** A write of the value of the script page-hooks.ts evaluated in the page once it was ready; what it threw fails the command. */
function evaluated(write: (value: unknown, shot: Shot) => Promise<void>): WriteResult {
  return async (_result, shot, { hooks }) => {
    if (hooks.evaluation?.error) throw hooks.evaluation.error;
    await write(hooks.evaluation?.value, shot);
  };
}

/** shot-scraper's paper names are lower case (`a4`, `letter`); the engine's as printers name them. */
function paperName(name: string): string {
  return /^a\d$/i.test(name) ? name.toUpperCase() : `${name.charAt(0).toUpperCase()}${name.slice(1).toLowerCase()}`;
}

async function writeText(text: string, shot: Shot, own: Record<string, unknown>, what?: string): Promise<void> {
  await writeBytes(Buffer.from(text), shot, own, what);
}

/** To -o, or standard output with `-o -` (the default of the commands that print); shot-scraper's line on stderr for a file. */
async function writeBytes(data: Buffer, { output }: Shot, own: Record<string, unknown>, what?: string): Promise<void> {
  if (output === '-') return void process.stdout.write(data);
  await writeFile(output, data);
  if (what !== undefined && own.quiet !== true) process.stderr.write(`${what} of '${String(own.source)}' written to '${output}'\n`);
}

import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CaptureResult } from '../core/capture-result.js';
import type { CaptureOptions } from '../core/engine.js';
import { EXIT_HELP, UsageError } from './exit-codes.js';
import { USAGE, oneShot, parameterHelp, readFlags, type Shot } from './shot-flags.js';
import { readMulti, type MultiStep } from './shot-multi.js';
import { Servers, runLocal } from './local-commands.js';
import { shotProgress } from './shot-progress.js';
import { formatOfFile } from './output-format.js';
import { urlOrFile } from './shot-scraper.js';
import { LocalFiles } from './local-files.js';
import { openSession, wantsHar, type ShotSession } from './shot-session.js';
import { extractHar, writeHar } from './har-output.js';
import { basicAuthHeaders, checkBrowser, checkInteractive, checkSkip } from './scraper-options.js';
import { isCaptureError } from '../core/errors/catalogue.js';

/** A command's own part in its run: a script evaluated in each page once it is ready, and the session once it is open. */
export interface RunOptions {
  evaluate?: string;
  onSession?: (session: ShotSession, localFiles: LocalFiles) => void;
}

/** What a command does with a finished capture: `shot` writes its file; `html`, `pdf` and the others theirs. */
export type WriteResult = (result: CaptureResult, shot: Shot, session: ShotSession) => Promise<void>;

/** `capture-engine shot`: captures to files, no server. */
export async function shot(args: string[]): Promise<void> {
  const { own, params } = await readFlags(args);
  if (own.help) return void process.stdout.write(`${USAGE}\n\n${EXIT_HELP}\n\nParameters:\n${parameterHelp()}\n`);
  await runShots(own, params, USAGE, writeShot);
}

/**
 * Runs the command line's shots (one, or those of `--multi`) on one engine, each written by
 * `write`, with `evaluate` run in each page once it is ready; with `--har`, the HAR of every page
 * in one file afterwards.
 */
export async function runShots(own: Record<string, unknown>, given: Record<string, unknown>, usage: string, write: WriteResult, { evaluate, onSession }: RunOptions = {}): Promise<void> {
  checkBrowser(own.browser, usage);
  checkInteractive(own, usage);
  const params = { ...given, ...basicAuthHeaders(own, given.headers, usage), ...checkSkip(own, given, usage) };
  const localFiles = new LocalFiles();
  try {
    const steps = own.multi !== undefined ? await multiSteps(own, params, localFiles) : [{ shot: oneShot(own, params) }];
    const shots = steps.flatMap((step) => (step.shot === undefined ? [] : [step.shot]));
    const session = await openSession(own, localFiles, usage, { shots: shots.length });
    if (evaluate !== undefined) session.hooks.evaluation = { script: evaluate };
    onSession?.(session, localFiles);
    const progress = await shotProgress(process.stderr, own.quiet === true);
    const servers = new Servers();
    let serverStarting = false;
    try {
      for (const step of steps) {
        if (step.sh !== undefined) await runLocal('sh', step.sh);
        if (step.python !== undefined) await runLocal('python', step.python);
        if (step.server !== undefined) {
          servers.start(step.server);
          serverStarting = true;
        }
        if (step.shot === undefined) continue;
        const shot = await withUrl(step.shot, localFiles);
        // shot-scraper waits for the servers started since the last shot before the next one.
        if (serverStarting) {
          await servers.ready(String(shot.url));
          serverStarting = false;
        }
        const wanted = { ...shot, ...(wantsHar(own) ? { har: true } : {}) };
        const result = await skipped(own, given, shot, capture(session, wanted, progress.follow(shots.indexOf(step.shot), shots.length, shot.output)));
        progress.clear();
        if (result === 'stop') return;
        if (result === 'next') continue;
        try {
          // shot-scraper's multi --har: an entry without output: loads its page for the HAR alone.
          if (step.harOnly !== true) await write(result, shot, session);
          else if (own.quiet !== true) process.stderr.write(`Skipping screenshot of '${String(shot.url)}'\n`);
        } finally {
          await result.dispose();
        }
      }
    } finally {
      progress.clear();
      servers.stop(own['leave-server'] === true);
      await session.engine.close();
    }
    if (wantsHar(own)) await writeHarFile(own, session);
  } finally {
    await localFiles.close();
  }
}

/**
 * shot-scraper's `--skip`: a page answering an error status is said on stderr, and the command ends
 * there with 0 (`stop`). Its `multi`: a shot that times out is said, and the next one runs (`next`),
 * unless `--fail` or `--fail-on-error`.
 */
async function skipped(own: Record<string, unknown>, params: Record<string, unknown>, shot: Shot, capturing: Promise<CaptureResult>): Promise<CaptureResult | 'stop' | 'next'> {
  try {
    return await capturing;
  } catch (error) {
    if (!isCaptureError(error)) throw error;
    if (own.skip === true && error.details.reason === 'http_status') {
      process.stderr.write(`${String(error.details.status)} error for ${String(shot.url)}, skipping\n`);
      return 'stop';
    }
    if (own.multi === undefined || error.code !== 'CAPTURE_TIMEOUT' || own['fail-on-error'] === true || params.fail_on_http_error === true) throw error;
    process.stderr.write(`${error.message} (${String(shot.url)})\n`);
    return 'next';
  }
}

/** The file's steps, with the command line's parameters for every shot (an entry's own win) and its -o choosing the shots. */
function multiSteps(own: Record<string, unknown>, { url, ...defaults }: Record<string, unknown>, localFiles: LocalFiles): Promise<MultiStep[]> {
  if (url !== undefined) throw new UsageError(`unexpected ${String(url)}: --multi takes its URLs from the file`, USAGE);
  return readMulti(own.multi as string, { defaults, outputs: (own.output as string[] | undefined) ?? [], noClobber: own['no-clobber'] === true, har: wantsHar(own), localFiles });
}

/** A shot's URL as shot-scraper reads it: a local file with the files beside it, a bare host with http://. */
async function withUrl(shot: Shot, localFiles: LocalFiles): Promise<Shot> {
  return typeof shot.url === 'string' ? { ...shot, url: await urlOrFile(shot.url, localFiles) } : shot;
}

async function capture({ engine }: ShotSession, { output, response_type: responseType, ...params }: Shot, onProgress: CaptureOptions['onProgress']): Promise<CaptureResult> {
  // The file goes to -o, never to the storage a json answer of the HTTP service is served from: a
  // shot answers json itself. Any other value is the engine's to refuse. A HAR is made on the way
  // to the store, which keeps nothing here (shot-session.ts).
  // No format given: the file's extension names it (page.md, page.pdf), else the engine's default.
  const wanted = params.format === undefined ? { ...params, ...formatOfFile(output) } : params;
  const kept = params.har === true ? { response_type: 'json' } : responseType === 'json' || responseType === 'image' ? {} : { response_type: responseType };
  return engine.capture({ ...wanted, ...kept }, { onProgress });
}

/** `shot`'s file: to -o, or to standard output with `-o -`, and a line saying what was written. */
async function writeShot(result: CaptureResult, { output, response_type: responseType }: Shot): Promise<void> {
  // `-o -`: the file itself on standard output, and what was written on stderr.
  if (output === '-') await pipeline(result.data ? Readable.from([result.data]) : result.stream(), process.stdout, { end: false });
  else if (result.data) await writeFile(output, result.data);
  else await pipeline(result.stream(), createWriteStream(output));
  (output === '-' ? process.stderr : process.stdout).write(responseType === 'json' ? `${JSON.stringify(captureReport(output, result))}\n` : `${output}: ${result.format}, ${result.size} bytes\n`);
}

/** shot-scraper's names: `--har` writes trace.har, `--har-zip` trace.har.zip, `--har-file` the file it names. */
async function writeHarFile(own: Record<string, unknown>, session: ShotSession): Promise<void> {
  const file = typeof own['har-file'] === 'string' ? own['har-file'] : own['har-zip'] === true ? 'trace.har.zip' : 'trace.har';
  const har = await writeHar(session.hooks.hars, file);
  if (own.quiet !== true) process.stderr.write(`Wrote to HAR file: ${file}\n`);
  if (own.extract === true) process.stderr.write(`Extracted resources to: ${await extractHar(har, file)}\n`);
}

/** A shot as `--response-type json` prints it: the fields of the HTTP service's json answer, with the file for its url. */
function captureReport(file: string, result: CaptureResult): Record<string, unknown> {
  const { id, size, format, width, height, clippedFrom, page, incomplete, diagnostics, timings } = result;
  return { file, size, format: format.toUpperCase(), id, width, height, clipped_from: clippedFrom, page, incomplete, diagnostics, timings };
}

import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { CaptureResult } from '../core/capture-result.js';
import type { CaptureOptions } from '../core/engine.js';
import { EXIT_HELP, UsageError } from './exit-codes.js';
import { USAGE, oneShot, parameterHelp, readFlags, type Shot } from './shot-flags.js';
import { readMulti, runCommands, type MultiStep } from './shot-multi.js';
import { shotProgress } from './shot-progress.js';
import { formatOfFile } from './output-format.js';
import { urlOrFile } from './shot-scraper.js';
import { LocalFiles } from './local-files.js';
import { openSession, wantsHar, type ShotSession } from './shot-session.js';
import { writeHar } from './har-output.js';

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
export async function runShots(own: Record<string, unknown>, params: Record<string, unknown>, usage: string, write: WriteResult, evaluate?: string): Promise<void> {
  const localFiles = new LocalFiles();
  try {
    const steps = own.multi !== undefined ? await multiSteps(own, params, localFiles) : [{ shot: await withUrl(oneShot(own, params), localFiles) }];
    const shots = steps.flatMap((step) => (step.shot === undefined ? [] : [step.shot]));
    const session = await openSession(own, localFiles, usage, { shots: shots.length });
    if (evaluate !== undefined) session.hooks.evaluation = { script: evaluate };
    const progress = await shotProgress(process.stderr, own.quiet === true);
    try {
      for (const step of steps) {
        runCommands(step);
        if (step.shot === undefined) continue;
        const wanted = { ...step.shot, ...(wantsHar(own) ? { har: true } : {}) };
        const result = await capture(session, wanted, progress.follow(shots.indexOf(step.shot), shots.length, step.shot.output));
        progress.clear();
        try {
          await write(result, step.shot, session);
        } finally {
          await result.dispose();
        }
      }
    } finally {
      progress.clear();
      await session.engine.close();
    }
    if (wantsHar(own)) await writeHarFile(own, session);
  } finally {
    await localFiles.close();
  }
}

/** The file's steps, with the command line's parameters for every shot (an entry's own win) and its -o choosing the shots. */
function multiSteps(own: Record<string, unknown>, { url, ...defaults }: Record<string, unknown>, localFiles: LocalFiles): Promise<MultiStep[]> {
  if (url !== undefined) throw new UsageError(`unexpected ${String(url)}: --multi takes its URLs from the file`, USAGE);
  return readMulti(own.multi as string, { defaults, outputs: (own.output as string[] | undefined) ?? [], noClobber: own['no-clobber'] === true, localFiles });
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
  await writeHar(session.hooks.hars, file);
  if (own.quiet !== true) process.stderr.write(`Wrote to HAR file: ${file}\n`);
}

/** A shot as `--response-type json` prints it: the fields of the HTTP service's json answer, with the file for its url. */
function captureReport(file: string, result: CaptureResult): Record<string, unknown> {
  const { id, size, format, width, height, clippedFrom, page, incomplete, diagnostics, timings } = result;
  return { file, size, format: format.toUpperCase(), id, width, height, clipped_from: clippedFrom, page, incomplete, diagnostics, timings };
}

import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createCaptureEngine } from '../create-capture-engine.js';
import type { CaptureEngine, CaptureOptions } from '../core/engine.js';
import type { CaptureResult } from '../core/capture-result.js';
import { baseOptions } from './options-from-env.js';
import { EXIT_HELP, UsageError } from './exit-codes.js';
import { USAGE, oneShot, parameterHelp, readFlags, type Shot } from './shot-flags.js';
import { readMulti, runCommands, type MultiStep } from './shot-multi.js';
import { shotProgress, type ShotProgress } from './shot-progress.js';
import { formatOfFile } from './output-format.js';

/** `capture-engine shot`: captures to files, no server. */
export async function shot(args: string[]): Promise<void> {
  const { own, params } = await readFlags(args);
  if (own.help) return void process.stdout.write(`${USAGE}\n\n${EXIT_HELP}\n\nParameters:\n${parameterHelp()}\n`);
  const steps = own.multi !== undefined ? await multiSteps(own, params) : [{ shot: oneShot(own, params) }];
  const shots = steps.flatMap((step) => (step.shot === undefined ? [] : [step.shot]));
  // Shots run one after another: one slot, and a context warmed for the next shot only when there is one.
  const engine = await createCaptureEngine({ ...baseOptions(own['allow-private-networks'] === true, own['storage-dir'] as string | undefined), concurrency: 1, warmContexts: shots.length > 1 ? 1 : 0 });
  const progress = await shotProgress(process.stderr, own.quiet === true);
  try {
    for (const step of steps) {
      runCommands(step);
      if (step.shot !== undefined) await capture(engine, step.shot, progress.follow(shots.indexOf(step.shot), shots.length, step.shot.output), progress);
    }
  } finally {
    progress.clear();
    await engine.close();
  }
}

/** The file's steps, with the command line's parameters for every shot (an entry's own win) and its -o choosing the shots. */
function multiSteps(own: Record<string, unknown>, { url, ...defaults }: Record<string, unknown>): Promise<MultiStep[]> {
  if (url !== undefined) throw new UsageError(`unexpected ${String(url)}: --multi takes its URLs from the file`, USAGE);
  return readMulti(own.multi as string, { defaults, outputs: (own.output as string[] | undefined) ?? [], noClobber: own['no-clobber'] === true });
}

async function capture(engine: CaptureEngine, { output, response_type: responseType, ...params }: Shot, onProgress: CaptureOptions['onProgress'], progress: ShotProgress): Promise<void> {
  // The file goes to -o, never to the storage a json answer of the HTTP service is served from: a
  // shot answers json itself. Any other value is the engine's to refuse.
  // No format given: the file's extension names it (page.md, page.pdf), else the engine's default.
  const wanted = params.format === undefined ? { ...params, ...formatOfFile(output) } : params;
  const result = await engine.capture(responseType === 'json' || responseType === 'image' ? wanted : { ...wanted, response_type: responseType }, { onProgress });
  try {
    // `-o -`: the file itself on standard output, and what was written on stderr.
    if (output === '-') await pipeline(result.data ? Readable.from([result.data]) : result.stream(), process.stdout, { end: false });
    else if (result.data) await writeFile(output, result.data);
    else await pipeline(result.stream(), createWriteStream(output));
  } finally {
    await result.dispose();
    progress.clear();
  }
  (output === '-' ? process.stderr : process.stdout).write(responseType === 'json' ? `${JSON.stringify(captureReport(output, result))}\n` : `${output}: ${result.format}, ${result.size} bytes\n`);
}

/** A shot as `--response-type json` prints it: the fields of the HTTP service's json answer, with the file for its url. */
function captureReport(file: string, result: CaptureResult): Record<string, unknown> {
  const { id, size, format, width, height, clippedFrom, page, incomplete, diagnostics, timings } = result;
  return { file, size, format: format.toUpperCase(), id, width, height, clipped_from: clippedFrom, page, incomplete, diagnostics, timings };
}

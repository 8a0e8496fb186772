import { mkdtemp, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { throwIfAborted } from '../../src/core/deadline.js';

/** Bytes of a tool's stderr kept for the error message: its last lines say why. */
const STDERR_TAIL = 2_000;
/** Largest file a tool may write: a runaway conversion fails instead of filling the disk. */
export const MAX_TOOL_OUTPUT_BYTES = 1024 * 1024 * 1024;

export interface ToolRun {
  /** What the caller is told the step was, e.g. `pdf_a`. */
  step: string;
  binary: string;
  args: string[];
  /** Working directory: the run's temp dir, so relative paths stay inside it. */
  cwd: string;
  /** The file the tool writes; checked to exist and be within MAX_TOOL_OUTPUT_BYTES. None when the answer is its stdout. */
  output?: string;
  /** Aborts on the capture's deadline or disconnect: the tool is killed (SIGKILL) and awaited. */
  signal: AbortSignal;
  /** At most this long; the capture's remaining time. */
  timeoutMs: number;
}

/**
 * Runs a PDF tool to its end or to its kill: bounded in time (the capture's deadline), in what it
 * prints (stderr's tail kept; stdout's, the answer, when the tool writes no file) and in the file it writes. Exit codes in `okCodes`
 * (qpdf's 3 is "succeeded with warnings") count as success.
 */
export async function runTool(run: ToolRun, okCodes: readonly number[] = [0]): Promise<string> {
  throwIfAborted(run.signal);
  // Loaded by the first finished PDF only: a plain capture never needs it (test/cli/cold-path).
  const { execa } = await import('execa');
  const child = execa(run.binary, run.args, {
    cwd: run.cwd,
    stdin: 'ignore',
    stdout: run.output === undefined ? 'pipe' : 'ignore',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    cancelSignal: run.signal,
    timeout: Math.max(1, run.timeoutMs),
    killSignal: 'SIGKILL',
    forceKillAfterDelay: false,
    env: { LC_ALL: 'C' },
    extendEnv: true,
    windowsHide: true,
  });
  let [stdout, stderr] = ['', ''];
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout = (stdout + chunk.toString()).slice(-STDERR_TAIL);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
  });
  const result = await child;
  throwIfAborted(run.signal);
  const ok = !result.timedOut && result.signal === undefined && okCodes.includes(result.exitCode ?? -1);
  if (!ok) throw toolFailed(run, result, stderr);
  if (run.output === undefined) return stdout;
  const written = await stat(run.output).catch(() => undefined);
  if (!written || written.size === 0) throw toolFailed(run, result, `${stderr} (no output written)`);
  if (written.size > MAX_TOOL_OUTPUT_BYTES) throw toolFailed(run, result, `output larger than ${MAX_TOOL_OUTPUT_BYTES} bytes`);
  return '';
}

/** A temp dir under `parent` for `work`, removed afterwards whatever happened. */
export async function inTempDir<T>(parent: string, work: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(path.join(parent, 'pdf-'));
  try {
    return await work(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

function toolFailed(run: ToolRun, result: { exitCode?: number; signal?: string; timedOut?: boolean; originalMessage?: string }, stderr: string): CaptureError {
  const how = result.timedOut
    ? 'ran out of time'
    : result.signal
      ? `was killed by ${result.signal}`
      : result.exitCode === undefined
        ? `could not start (${result.originalMessage ?? 'unknown error'})`
        : `exited with code ${result.exitCode}`;
  // The message reaches HTTP clients: keep the server's paths out of it.
  const tail = stderr.split(run.cwd + path.sep).join('').trim().split('\n').slice(-5).join(' | ');
  return new CaptureError('CAPTURE_FAILED', `${run.step}: ${path.basename(run.binary)} ${how}${tail ? `: ${tail}` : ''}`, { details: { reason: 'pdf_tools', param: run.step } });
}

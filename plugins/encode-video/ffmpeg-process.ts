import path from 'node:path';
import type { Writable } from 'node:stream';
import { execa } from 'execa';
import { CaptureError } from '../../src/core/errors/catalogue.js';
import { throwIfAborted } from '../../src/core/deadline.js';

/** Bytes of ffmpeg's stderr kept for error messages; with `-loglevel error` the last lines say why. */
const STDERR_TAIL = 2_000;

export interface FfmpegProcess {
  /**
   * Streams every frame into ffmpeg's stdin, pulling the next one only when ffmpeg has taken the
   * last (its pipe's backpressure paces the frame producer), then waits for the file to be written.
   */
  encode(frames: AsyncIterable<Buffer>): Promise<void>;
  /** Ends the process at once (abort, cleanup) and waits until it has exited; harmless when done. */
  kill(): Promise<void>;
}

/** Starts ffmpeg reading an image pipe on stdin. `signal` kills it (SIGKILL: nothing worth flushing). */
export function startFfmpeg(binary: string, args: string[], output: string, signal: AbortSignal): FfmpegProcess {
  const child = execa(binary, args, {
    stdin: 'pipe',
    stdout: 'ignore',
    stderr: 'pipe',
    buffer: false,
    reject: false,
    cancelSignal: signal,
    killSignal: 'SIGKILL',
    forceKillAfterDelay: false,
    // execa's default kills ffmpeg as soon as the process gets SIGTERM, failing the videos a
    // graceful shutdown lets finish; ffmpeg ends on its own when its stdin closes with us.
    cleanup: false,
    windowsHide: true,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-STDERR_TAIL);
  });
  // Writing after ffmpeg died raises EPIPE here; its exit status is the better explanation.
  child.stdin.on('error', () => undefined);
  const exited = child.then(() => true);

  return {
    async encode(frames) {
      for await (const frame of frames) {
        throwIfAborted(signal);
        if (child.stdin.write(frame)) continue;
        if (!(await drained(child.stdin))) break;
      }
      child.stdin.end();
      const result = await child;
      throwIfAborted(signal);
      if (result.failed) throw encoderFailed(result, stderr, output);
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

/**
 * Waits until `stdin` takes more data: true on drain, false once ffmpeg has gone (the pipe errors or
 * closes). Listeners are removed either way, so a recording of any length holds none of them.
 */
function drained(stdin: Writable): Promise<boolean> {
  if (stdin.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (ok: boolean) => (): void => {
      stdin.off('drain', onDrain);
      stdin.off('close', onGone);
      stdin.off('error', onGone);
      resolve(ok);
    };
    const onDrain = settle(true);
    const onGone = settle(false);
    stdin.on('drain', onDrain);
    stdin.on('close', onGone);
    stdin.on('error', onGone);
  });
}

function encoderFailed(result: { exitCode?: number; signal?: string; originalMessage?: string }, stderr: string, output: string): CaptureError {
  const how = result.signal
    ? `was killed by ${result.signal}`
    : result.exitCode === undefined
      ? `could not start (${result.originalMessage ?? 'unknown error'})`
      : `exited with code ${result.exitCode}`;
  // The message reaches HTTP clients: keep the server's paths out of it.
  const tail = stderr.split(path.dirname(output) + path.sep).join('').trim().split('\n').slice(-5).join(' | ');
  return new CaptureError('CAPTURE_FAILED', `Video encoder failed: ffmpeg ${how}${tail ? `: ${tail}` : ''}`, {
    details: { reason: 'encoder' },
  });
}

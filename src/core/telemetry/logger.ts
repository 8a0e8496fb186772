import { writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type Pino from 'pino';

/** pino, loaded with `require`: it is CommonJS, which an ES `import` makes Node scan for its export names first (benchmarks/cold-start). */
const pino = createRequire(import.meta.url)('pino') as typeof Pino;

/**
 * The logger port: the shape of pino's `logger.info(fields, message)`, so an application's pino
 * logger, `fastify.log` or a child of either can be passed as it is.
 */
export type LogFn = (fields: object, message: string) => void;

export interface Logger {
  info: LogFn;
  warn: LogFn;
  error: LogFn;
}

/** Where a key could appear in a logged object; pino replaces these with `[redacted]`. */
export const REDACTED_PATHS = [
  'apiKey',
  'api_key',
  'key',
  '*.apiKey',
  '*.api_key',
  'headers["x-api-key"]',
  'req.headers["x-api-key"]',
  'request.headers["x-api-key"]',
];

/**
 * Where the console logger's lines go: those of one event-loop turn leave in one synchronous write
 * to stderr (a write per request was a fifth of the cost of turning a request away under load),
 * and what is pending at exit is written then. Synchronous on purpose: an asynchronous write still
 * in flight when the process exits is lost.
 */
function batchedStderr(): { write(line: string): void } {
  const pending: string[] = [];
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    if (pending.length === 0) return;
    const text = pending.join('');
    pending.length = 0;
    writeSync(2, text);
  };
  process.once('exit', flush);
  return {
    write(line) {
      pending.push(line);
      if (scheduled) return;
      scheduled = true;
      setImmediate(flush);
    },
  };
}

/** One for the process, however many loggers write to it. */
let stderrLines: { write(line: string): void } | undefined;

/** JSON lines on stderr through pino, keys redacted; nothing logged is lost when the process exits. */
export function consoleLogger(level: 'info' | 'warn' | 'error' = 'info'): Logger {
  return pino(
    {
      level,
      messageKey: 'message',
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    (stderrLines ??= batchedStderr()),
  );
}

const quiet: LogFn = () => undefined;
export const silentLogger: Logger = { info: quiet, warn: quiet, error: quiet };

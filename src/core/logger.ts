import pino from 'pino';

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
 * JSON lines on stderr through pino. Writes are asynchronous (a write per request was a fifth of
 * the cost of turning a request away under load); pino flushes what is pending when the process
 * exits, so a crash loses nothing already logged.
 */
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
    pino.destination({ dest: 2, sync: false }),
  );
}

const quiet: LogFn = () => undefined;
export const silentLogger: Logger = { info: quiet, warn: quiet, error: quiet };

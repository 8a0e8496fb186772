import type { Logger } from './types.js';

/**
 * Lines wait for the end of the event-loop turn and go out in one write: a write per request was
 * a fifth of the cost of turning a request away under load. What is pending at exit is written
 * then (stderr is synchronous for files and pipes), so a crash loses nothing already logged.
 */
const pending: string[] = [];
let flushScheduled = false;
let flushesAtExit = false;

function flush(): void {
  flushScheduled = false;
  if (pending.length === 0) return;
  process.stderr.write(pending.join(''));
  pending.length = 0;
}

function writeLine(line: string): void {
  pending.push(line);
  if (flushScheduled) return;
  flushScheduled = true;
  setImmediate(flush);
  if (!flushesAtExit) {
    flushesAtExit = true;
    process.once('exit', flush);
  }
}

/** JSON lines on stderr. Callers pass fields, never secrets: keys are logged by their id only. */
export function consoleLogger(level: 'info' | 'warn' | 'error' = 'info'): Logger {
  const order = { info: 0, warn: 1, error: 2 };
  const write = (lvl: keyof typeof order) => (message: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    writeLine(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, message, ...fields })}\n`);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

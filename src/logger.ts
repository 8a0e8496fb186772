import type { Logger } from './types.js';

/** JSON lines on stderr. Callers pass fields, never secrets: keys are logged by their id only. */
export function consoleLogger(level: 'info' | 'warn' | 'error' = 'info'): Logger {
  const order = { info: 0, warn: 1, error: 2 };
  const write = (lvl: keyof typeof order) => (message: string, fields?: Record<string, unknown>) => {
    if (order[lvl] < order[level]) return;
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, message, ...fields })}\n`);
  };
  return { info: write('info'), warn: write('warn'), error: write('error') };
}

export const silentLogger: Logger = { info: () => undefined, warn: () => undefined, error: () => undefined };

import { isCaptureError } from '../core/errors/catalogue.js';

/** What `capture-engine` exits with, so a script can tell a typo from a site that is down. */
export const EXIT = { ok: 0, internal: 1, usage: 2, refused: 3, unreachable: 4, timeout: 5 } as const;

/** The exit statuses as `shot --help` and the docs list them. */
export const EXIT_HELP = `Exit status:
  0  done
  1  anything else: the configuration (an environment variable), or an internal error
  2  usage: an unknown flag, a flag without its value, no URL or -o, a flag the CLI cannot honour
  3  refused input: a parameter, a file a flag names, a target the egress guard refuses
     (URL_NOT_ALLOWED), a selector, action or failure rule the page did not meet
  4  target unreachable: DNS, a refused or reset connection, TLS, a page that could not be loaded
     (CAPTURE_FAILED, UPLOAD_FAILED)
  5  timeout (CAPTURE_TIMEOUT)`;

/** A command line the command cannot run: it answers with what is wrong and its usage. */
export class UsageError extends Error {
  constructor(
    message: string,
    readonly usage: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** A file a flag names that cannot be read or parsed: input refused like a wrong parameter. */
export class InputError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InputError';
  }
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof InputError) return EXIT.refused;
  if (!isCaptureError(error)) return EXIT.internal;
  if (error.code === 'CAPTURE_TIMEOUT') return EXIT.timeout;
  if (error.code === 'CAPTURE_FAILED' || error.code === 'UPLOAD_FAILED') return EXIT.unreachable;
  return error.status >= 400 && error.status < 500 ? EXIT.refused : EXIT.internal;
}

/** The lines a failure prints: the code and message of a capture's error with its hint, a usage error with the usage. */
export function failureText(error: unknown): string {
  if (error instanceof UsageError) return `capture-engine: ${error.message}\n\n${error.usage}`;
  if (!isCaptureError(error)) return `capture-engine: ${error instanceof Error ? error.message : String(error)}`;
  const hint = typeof error.details.hint === 'string' ? `\n${error.details.hint}` : '';
  return `capture-engine: ${error.code}: ${error.message}${hint}`;
}

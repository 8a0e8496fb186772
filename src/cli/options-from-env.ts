import { allowedAddresses } from '../create-capture-engine.js';
import type { CaptureEngineOptions } from '../capture-engine-options.js';

/** Options every command shares: from flags first, then the environment. */
export function baseOptions(allowPrivate: boolean | undefined, storageDir: string | undefined): CaptureEngineOptions {
  return {
    allowPrivateNetworks: allowPrivate === true || process.env.CAPTURE_ALLOW_PRIVATE_NETWORKS === 'true',
    storageDir: storageDir ?? process.env.CAPTURE_STORAGE_DIR,
    timeoutMs: positiveIntegerEnv('CAPTURE_TIMEOUT_MS'),
    concurrency: positiveIntegerEnv('CAPTURE_CONCURRENCY'),
    maxQueue: integerEnv('CAPTURE_MAX_QUEUE', 0),
    warmContexts: integerEnv('CAPTURE_WARM_CONTEXTS', 0),
    warmIdleMs: integerEnv('CAPTURE_WARM_IDLE_MS', 0),
    contextReuse: process.env.CAPTURE_CONTEXT_REUSE === 'true',
    rendererMemoryMb: positiveIntegerEnv('CAPTURE_RENDERER_MEMORY_MB'),
    browserMemoryMb: positiveIntegerEnv('CAPTURE_BROWSER_MEMORY_MB'),
    proxies: parseNamedProxies(process.env.CAPTURE_PROXIES),
    allowAddress: parseAllowedAddresses(process.env.CAPTURE_ALLOW_ADDRESSES),
    urlAllowList: process.env.CAPTURE_URL_ALLOW_LIST,
    urlDenyList: process.env.CAPTURE_URL_DENY_LIST,
    // An unknown value stops the start: createCaptureEngine refuses it by the option's name.
    videoClock: (process.env.CAPTURE_VIDEO_CLOCK || undefined) as CaptureEngineOptions['videoClock'],
    browserProcessModel: (process.env.CAPTURE_BROWSER_PROCESS_MODEL || undefined) as CaptureEngineOptions['browserProcessModel'],
    webBotAuth: webBotAuthFromEnv(),
    userAgent: process.env.CAPTURE_USER_AGENT || undefined,
    operatorUrl: process.env.CAPTURE_OPERATOR_URL || undefined,
  };
}

/** Web Bot Auth from `CAPTURE_WEB_BOT_AUTH_KEY` (an Ed25519 private JWK's file) and `CAPTURE_WEB_BOT_AUTH_AGENT`: both or neither. */
function webBotAuthFromEnv(): CaptureEngineOptions['webBotAuth'] {
  const keyFile = process.env.CAPTURE_WEB_BOT_AUTH_KEY;
  const signatureAgent = process.env.CAPTURE_WEB_BOT_AUTH_AGENT;
  if (keyFile === undefined && signatureAgent === undefined) return undefined;
  if (!keyFile || !signatureAgent) throw new Error('CAPTURE_WEB_BOT_AUTH_KEY and CAPTURE_WEB_BOT_AUTH_AGENT go together: set both, or neither');
  return { keyFile, signatureAgent };
}

/**
 * Non-public addresses allowed without opening all private networks (an intranet host, a local
 * S3 for `upload_url`), separated by commas: `address:port` (IPv6 as `[address]:port`) for one port,
 * `address:*` for all of them. A bare address is refused: read as every port, it would open the
 * address's SSH and database along with the one service meant. Undefined when unset.
 */
export function parseAllowedAddresses(text: string | undefined): ((address: string, port: number) => boolean) | undefined {
  if (text === undefined || text.trim() === '') return undefined;
  return allowedAddresses(text.split(','), 'CAPTURE_ALLOW_ADDRESSES');
}

/** A positive integer from the environment, when set; anything else stops the start. */
export function positiveIntegerEnv(variable: string, env: NodeJS.ProcessEnv = process.env): number | undefined {
  return integerEnv(variable, 1, env);
}

/** An integer of at least `min` from the environment, when set; anything else stops the start. */
function integerEnv(variable: string, min: number, env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env[variable];
  if (raw === undefined || raw === '') return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${variable} must be ${min === 1 ? 'a positive integer' : `an integer of at least ${min}`}, not ${raw}`);
  return value;
}

/**
 * Named proxies from the environment: a JSON object (`{"de": "http://..."}`) or `name=url` pairs
 * separated by commas. Anything else stops the start.
 */
function parseNamedProxies(text: string | undefined): Record<string, string> {
  if (text === undefined || text.trim() === '') return {};
  if (text.trim().startsWith('{')) {
    const parsed = JSON.parse(text) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Object.values(parsed).some((value) => typeof value !== 'string')) throw new Error('CAPTURE_PROXIES must map names to proxy URLs');
    return parsed as Record<string, string>;
  }
  return Object.fromEntries(
    text.split(',').map((pair) => {
      const equals = pair.indexOf('=');
      if (equals <= 0) throw new Error('CAPTURE_PROXIES must be name=url pairs separated by commas, or a JSON object');
      return [pair.slice(0, equals).trim(), pair.slice(equals + 1).trim()];
    }),
  );
}

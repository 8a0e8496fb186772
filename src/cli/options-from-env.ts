import type { CaptureEngineOptions } from '../capture-engine-options.js';

/** Options every command shares: from flags first, then the environment. */
export function baseOptions(allowPrivate: boolean | undefined, storageDir: string | undefined): CaptureEngineOptions {
  return {
    allowPrivateNetworks: allowPrivate === true || process.env.CAPTURE_ALLOW_PRIVATE_NETWORKS === 'true',
    storageDir: storageDir ?? process.env.CAPTURE_STORAGE_DIR,
    timeoutMs: positiveIntegerEnv('CAPTURE_TIMEOUT_MS'),
    concurrency: positiveIntegerEnv('CAPTURE_CONCURRENCY'),
    maxQueue: integerEnv('CAPTURE_MAX_QUEUE', 0),
    contextReuse: process.env.CAPTURE_CONTEXT_REUSE === 'true',
    rendererMemoryMb: positiveIntegerEnv('CAPTURE_RENDERER_MEMORY_MB'),
    browserMemoryMb: positiveIntegerEnv('CAPTURE_BROWSER_MEMORY_MB'),
  };
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

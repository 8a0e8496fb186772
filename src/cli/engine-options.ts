import type { CaptureEngineOptions } from '../engine-options.js';

/** Options every command shares: from flags first, then the environment. */
export function baseOptions(allowPrivate: boolean | undefined, storageDir: string | undefined): CaptureEngineOptions {
  return {
    allowPrivateNetworks: allowPrivate === true || process.env.CAPTURE_ALLOW_PRIVATE_NETWORKS === 'true',
    storageDir: storageDir ?? process.env.CAPTURE_STORAGE_DIR,
    ...positiveFromEnv('timeoutMs', 'CAPTURE_TIMEOUT_MS'),
    ...positiveFromEnv('concurrency', 'CAPTURE_CONCURRENCY'),
  };
}

/** `{ [option]: n }` when the variable is set; a value that is no positive integer stops the start. */
function positiveFromEnv(option: 'timeoutMs' | 'concurrency', variable: string): Partial<CaptureEngineOptions> {
  const raw = process.env[variable];
  if (raw === undefined || raw === '') return {};
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new Error(`${variable} must be a positive integer, not ${raw}`);
  return { [option]: value };
}

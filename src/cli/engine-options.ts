import type { CaptureEngineOptions } from '../engine-options.js';

/** Options every command shares: from flags first, then the environment. */
export function baseOptions(allowPrivate: boolean | undefined, storageDir: string | undefined): CaptureEngineOptions {
  return {
    allowPrivateNetworks: allowPrivate === true || process.env.CAPTURE_ALLOW_PRIVATE_NETWORKS === 'true',
    storageDir: storageDir ?? process.env.CAPTURE_STORAGE_DIR,
  };
}

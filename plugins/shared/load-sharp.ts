import { createRequire } from 'node:module';
import type sharp from 'sharp';

let loading: Promise<typeof sharp> | undefined;

/**
 * sharp, loaded on first use: it takes a cold process about 150 ms to load, which a capture that
 * Chromium encodes itself may never need. `preloadSharp()` starts it ahead of first use, at a moment
 * its caller knows Node to be idle. It is CommonJS and loaded with `require`, which holds Node's
 * thread while it runs (an ES `import` made Node scan its files for their export names first, for
 * longer): it starts once what the caller set going has been sent on its way.
 */
export function loadSharp(): Promise<typeof sharp> {
  loading ??= new Promise((resolve) => setImmediate(resolve)).then(() => createRequire(import.meta.url)('sharp') as typeof sharp);
  return loading;
}

/** Starts loading sharp in the background; a failure surfaces at first use. */
export function preloadSharp(): void {
  loadSharp().catch(() => undefined);
}

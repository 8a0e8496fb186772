import type sharp from 'sharp';

let loading: Promise<typeof sharp> | undefined;

/**
 * sharp, loaded on first use: it takes a cold process about 150 ms to load, which a capture that
 * Chromium encodes itself may never need. `preloadSharp()` starts it ahead of first use, at a moment
 * its caller knows Node to be idle.
 */
export function loadSharp(): Promise<typeof sharp> {
  loading ??= import('sharp').then((module) => module.default);
  return loading;
}

/** Starts loading sharp in the background; a failure surfaces at first use. */
export function preloadSharp(): void {
  loadSharp().catch(() => undefined);
}

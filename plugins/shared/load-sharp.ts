import { createRequire } from 'node:module';
import type sharp from 'sharp';

let loading: Promise<typeof sharp> | undefined;

/**
 * sharp, loaded on first use: it takes a cold process 35-70 ms of its main thread to load, which a
 * capture that Chromium encodes itself never needs. It is CommonJS and loaded with `require`: an ES
 * `import` made Node scan its files for their export names first, for about twice as long.
 */
export function loadSharp(): Promise<typeof sharp> {
  loading ??= Promise.resolve().then(() => createRequire(import.meta.url)('sharp') as typeof sharp);
  return loading;
}

import type Sharp from 'sharp';
import { lazyRequire } from '../../src/core/loading/lazy-require.js';

/**
 * sharp, loaded on first use: it takes a cold process 35-70 ms of its main thread to load, which a
 * capture that Chromium encodes itself never needs. It is CommonJS and loaded with `require`: an ES
 * `import` made Node scan its files for their export names first, for about twice as long.
 */
export const loadSharp = lazyRequire<typeof Sharp>('sharp');

// The engine as users get it: the built package in ../dist (`npm run build` at the repository
// root), through its public entry points only.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const ENGINE_ENTRY = path.join(ROOT, 'dist/src/index.js');
export const adapterEntry = (name) => path.join(ROOT, `dist/adapters/${name}.js`);

/** Why the entry point is missing (a message to print), or null. */
export function missing(entry = ENGINE_ENTRY) {
  return fs.existsSync(entry) ? null : `${path.relative(ROOT, entry)} missing: run \`npm run build\` at the repository root`;
}

/** createCaptureEngine, createNodeListener, redisLimiterStore, silentLogger... */
export const loadEngine = () => import(pathToFileURL(ENGINE_ENTRY).href);

/** express | fastify | koa: captureMiddleware / capturePlugin. */
export const loadAdapter = (name) => import(pathToFileURL(adapterEntry(name)).href);

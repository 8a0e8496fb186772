// The contenders of the static benchmark, grouped in units: each unit runs in a worker
// process of its own (../worker.js); cpu/cpu-breakdown.js runs them too. A job is { url, format: 'png'|'jpg'|'webp', width, height,
// fullPage, scale, selector?, device? (a name every contender's descriptors have), thumbWidth?, blockImages?, quality };
// a capture returns a Buffer.
//
// Every contender produces the same pixels: the viewport at device scale factor 1 (or the full
// page for fullPage), encoded in the requested format at the requested quality.

import fs from 'node:fs';
import { CHROMIUM_PATH, HEADLESS_SHELL_PATH } from '../../lib/chromium.js';
import { ENGINE_ENTRY, adapterEntry, missing } from '../../lib/dist.js';
import { browserlessContender } from './browserless.js';
import { captureWebsiteContender } from './capture-website.js';
import { cdpFloor } from './cdp-floor.js';
import { engineUnit } from './engine.js';
import { floor } from './floor.js';

export const CONTENDER_NAMES = ['floor', 'floor-fast', 'floor-fast-shell', 'cdp-shell', 'library', 'http', 'capture-website', 'browserless'];

// cdp-shell shoots viewports only (cdp-floor.js), so it runs when named, not by default;
// floor-fast-shell is floor-fast on the headless shell, so it runs by default only when the
// others drive another binary.
export const DEFAULT_CONTENDERS = CONTENDER_NAMES.filter((name) => name !== 'cdp-shell' && !(name === 'floor-fast-shell' && HEADLESS_SHELL_PATH === CHROMIUM_PATH));

/**
 * Units run in one worker process each: { setup(), capture: { [contender]: (job) => Buffer },
 * close() }. library and http share one unit (one engine); the others are alone. `binary`: the
 * Chromium each drives (the engine's is the one it finds, CHROMIUM_PATH).
 */
export const UNITS = {
  floor: { contenders: ['floor', 'floor-fast'], binary: CHROMIUM_PATH, create: () => floor() },
  'floor-shell': { contenders: ['floor-fast-shell'], binary: HEADLESS_SHELL_PATH, create: () => floor({ executablePath: HEADLESS_SHELL_PATH, suffix: '-shell' }) },
  'cdp-shell': { contenders: ['cdp-shell'], binary: HEADLESS_SHELL_PATH, create: () => cdpFloor() },
  engine: { contenders: ['library', 'http'], binary: CHROMIUM_PATH, create: (names) => engineUnit({ withHttp: names.includes('http') }) },
  'capture-website': { contenders: ['capture-website'], binary: CHROMIUM_PATH, create: () => captureWebsiteContender() },
  browserless: { contenders: ['browserless'], binary: CHROMIUM_PATH, create: () => browserlessContender() },
};

export const unitOf = (contender) => Object.keys(UNITS).find((u) => UNITS[u].contenders.includes(contender));

/** { contender: the binary it drives } for these contenders. */
export const binariesOf = (contenders) => Object.fromEntries(contenders.map((name) => [name, UNITS[unitOf(name)].binary]));

const resolvable = (specifier) => {
  try {
    import.meta.resolve(specifier);
    return true;
  } catch {
    return false;
  }
};

/** Why a contender cannot run here, or null. */
export function unavailable(name) {
  if (!fs.existsSync(CHROMIUM_PATH)) return `no Chromium at ${CHROMIUM_PATH} (set CAPTURE_CHROMIUM_PATH)`;
  if ((name === 'floor-fast-shell' || name === 'cdp-shell') && !fs.existsSync(HEADLESS_SHELL_PATH)) return `no headless shell at ${HEADLESS_SHELL_PATH} (apt-get install chromium-headless-shell, or set BENCH_HEADLESS_SHELL_PATH)`;
  const needs = { floor: 'playwright-core', 'floor-fast': 'playwright-core', 'floor-fast-shell': 'playwright-core', 'cdp-shell': 'playwright-core', http: 'express', 'capture-website': 'capture-website', browserless: 'browserless' }[name];
  if (needs && !resolvable(needs)) {
    return `package ${needs} not installed: run \`npm install\` in ${needs === 'capture-website' || needs === 'browserless' ? 'benchmarks/' : 'the repository root'}`;
  }
  if (name === 'library' || name === 'http') return missing(ENGINE_ENTRY) ?? (name === 'http' ? missing(adapterEntry('express')) : null);
  return null;
}

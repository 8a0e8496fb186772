import type { CaptureParams } from './schema/capture-params.js';
import { isImageFormat } from './schema/formats.js';

/**
 * Parameters whose effect outlives the page on its context: emulation overrides, extra headers,
 * cookies the caller set, geolocation grants, the blocking routes and init scripts, the background
 * override. A capture that sets one never shares a context: a reset would have to undo each.
 */
const CONTEXT_STATE: readonly (keyof CaptureParams)[] = [
  'cookies',
  'headers',
  'user_agent',
  'locale',
  'timezone',
  'dark_mode',
  'reduced_motion',
  'device_scale_factor',
  'omit_background',
  'latitude',
  'block_ads',
  'block_cookies',
];

/**
 * Whether a capture leaves nothing on its browser context that the reset between two captures
 * (about:blank, cookies and the visited origins' storage cleared) does not clear: a still image
 * of the static scenario with none of the parameters above.
 */
export function canShareContext(params: CaptureParams): boolean {
  if (params.scenario !== 'static' || !isImageFormat(params.format)) return false;
  return CONTEXT_STATE.every((name) => params[name] === undefined || params[name] === false);
}

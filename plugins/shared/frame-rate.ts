import type { CaptureParams } from '../../src/core/schema/capture-params.js';
import { DEFAULTS } from '../../src/core/defaults.js';

/**
 * Frames per second a scenario renders: a gif's own `gif_fps` (rendering frames the gif would drop
 * is CPU for nothing), else the request's `fps`, else the scenario's configured rate.
 */
export function frameRateFor(params: CaptureParams, configured: number | undefined): number {
  return params.format === 'gif' ? params.gif_fps : (params.fps ?? configured ?? DEFAULTS.fps);
}

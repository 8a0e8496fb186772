import type { CaptureParams } from './schema/capture-params.js';
import { isVideoFormat } from './schema/formats.js';

/**
 * Whether a capture is a video the video browser can draw frame by frame, each frame for its own
 * moment (issue 53): `record` without actions, whose steps run on the wall clock. `scroll` and
 * journeys are recorded live.
 */
export function drawableFrameByFrame(params: CaptureParams): boolean {
  return params.scenario === 'record' && isVideoFormat(params.format) && (params.actions?.length ?? 0) === 0;
}

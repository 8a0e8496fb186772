import type { CaptureParams } from './schema/capture-params.js';
import { isVideoFormat } from './schema/formats.js';

/**
 * Whether a capture is a video the video browser can draw frame by frame, each frame for its own
 * moment (issue 53): `record` and `scroll` without actions, whose steps run on the wall clock
 * (journeys are recorded live).
 */
export function drawableFrameByFrame(params: CaptureParams): boolean {
  return (params.scenario === 'record' || params.scenario === 'scroll') && isVideoFormat(params.format) && (params.actions?.length ?? 0) === 0;
}

import type { CaptureParams } from './schema/capture-params.js';
import { isVideoFormat } from './schema/formats.js';
import type { VideoClock } from './schema/video-params.js';
import { captureErrors } from './errors/factories.js';

/**
 * Whether a capture is a video the video browser draws frame by frame, each frame for its own moment
 * (issue 53): `record` and `scroll`, asked with `video_clock=frames` or by default on an engine whose
 * first clock is frames. `clocks` are the engine's, its default first: an engine on a remote browser
 * has only live, and refuses frames by name.
 */
export function drawnFrameByFrame(params: CaptureParams, clocks: readonly VideoClock[]): boolean {
  if (params.video_clock !== undefined && !clocks.includes(params.video_clock)) {
    throw captureErrors.invalidParameter('video_clock', `Invalid parameter 'video_clock': this service draws videos ${clocks.join(' or ')} only (its browser is remote)`, clocks.join(', '));
  }
  const video = (params.scenario === 'record' || params.scenario === 'scroll') && isVideoFormat(params.format);
  return video && (params.video_clock ?? clocks[0]) === 'frames';
}

